/**
 * What a failure stops (§14): a throttle pauses every start and drops the pace, a transient failure has
 * its task wait alone, an item failure fails its task and the run goes on, a fatal one stops the run.
 * Both pacings, in virtual time, with failures shaped as HTTP clients throw them.
 */
import { defer, lastValueFrom, map, mergeMap, Subject, throwError, timer, toArray, VirtualTimeScheduler } from 'rxjs';
import {
  httpStatus,
  HttpError,
  isSlowStartBatchError,
  slowStart,
  slowStartState,
  type BatchResult,
  type SlowStartEvent,
  type SlowStartOptions,
  type SlowStartState,
  type TaskContext,
  type TaskFactory,
} from '../../src/index';

/** A failure as Angular's `HttpErrorResponse` has it: a status, and headers read with `get()`. */
class Failure extends Error {
  readonly headers: Headers;
  constructor(
    readonly status: number,
    headers: Record<string, string> = {},
  ) {
    super(`HTTP ${status}`);
    this.headers = new Headers(headers);
  }
}

/** One try: a success after `ms`, or a failure with `status` (and `headers`) after 1 ms. */
type Step = number | { status: number; headers?: Record<string, string> };

/** Runs tasks in virtual time: `plan[i]` lists what each try of task i does, its last step repeating. */
function run(plan: Step[][], options: SlowStartOptions) {
  const scheduler = new VirtualTimeScheduler();
  const tries: { index: number; attempt: number; at: number }[] = [];
  const emitted: { result: BatchResult<number>; at: number }[] = [];
  const events: SlowStartEvent[] = [];
  let state: SlowStartState | undefined;
  let error: unknown;
  let endedAt: number | undefined;
  const tasks = plan.map(
    (steps, index): TaskFactory<number> =>
      (context: TaskContext) =>
        defer(() => {
          tries.push({ index, attempt: context.attempt, at: scheduler.now() });
          const step = steps[context.attempt - 1] ?? steps.at(-1);
          if (typeof step === 'number') return timer(step, scheduler).pipe(map(() => index));
          return timer(1, scheduler).pipe(mergeMap(() => throwError(() => new Failure(step.status, step.headers))));
        }),
  );
  const subject = new Subject<SlowStartEvent>();
  subject.pipe(slowStartState()).subscribe((s) => (state = s));
  subject.subscribe((event) => events.push(event));
  const subscription = slowStart(tasks, { ...options, scheduler, events: subject }).subscribe({
    next: (result) => emitted.push({ result, at: scheduler.now() }),
    error: (e: unknown) => {
      error = e;
      endedAt = scheduler.now();
    },
    complete: () => (endedAt = scheduler.now()),
  });
  return {
    scheduler,
    tries,
    emitted,
    events,
    subscription,
    get state() {
      return state as SlowStartState;
    },
    get error() {
      return error;
    },
    get endedAt() {
      return endedAt;
    },
  };
}

/** The tries of task `index`, as `[attempt, at]`. */
const triesOf = (r: ReturnType<typeof run>, index: number) => r.tries.filter((t) => t.index === index).map((t) => [t.attempt, t.at]);
/** 422 is an item failure; the default decides the rest. */
const items = { when: (error: unknown) => (httpStatus(error) === 422 ? ('item' as const) : undefined) };

describe.each(['batch', 'window'] as const)('§14 in %s pacing', (pacing) => {
  it('a transient failure (503 without Retry-After) has its task wait its backoff alone: no pause, no drop, the others go on', () => {
    const r = run([[{ status: 503 }, 10], [10], [10], [10], [10], [10], [10]], { pacing, retry: { delay: 100 } });
    r.scheduler.flush();
    expect(r.error).toBeUndefined();
    // Task 0 fails at 1 and goes again at 101; tasks 1 to 6 do not wait for it.
    expect(triesOf(r, 0)).toEqual([
      [1, 0],
      [2, 101],
    ]);
    expect(r.tries.filter((t) => t.index > 0).every((t) => t.at < 101)).toBe(true);
    const types = r.events.map((event) => event.type);
    expect(types).not.toContain('paused');
    expect(types).not.toContain('throttled');
    expect(r.events.filter((event) => event.type === 'pace').every((event) => !event.dropped)).toBe(true);
    const retrying = r.events.find((event) => event.type === 'retrying');
    expect(retrying).toMatchObject({ type: 'retrying', kind: 'transient', key: 0, attempt: 1, retryAt: 101, duration: 1 });
    expect(r.state).toMatchObject({ succeeded: 7, retrying: 0, failed: 0, itemFailed: 0, ended: 'completed' });
  });

  it('a throttle (429) pauses every start and drops the pace, for what the server asked, whatever the attempt', () => {
    // The third try waits 1,000 ms as asked, where the default backoff would wait 2,000 to 4,000.
    const throttle = { status: 429, headers: { 'Retry-After': '1' } };
    const r = run([[throttle, throttle, 10]], { pacing, retry: {} });
    r.scheduler.flush();
    expect(triesOf(r, 0)).toEqual([
      [1, 0],
      [2, 1001],
      [3, 2002],
    ]);
    const throttles = r.events.flatMap((event) =>
      event.type === 'throttled' ? [{ kind: event.kind, attempt: event.attempt, duration: event.duration, retryAt: event.retryAt }] : [],
    );
    expect(throttles).toEqual([
      { kind: 'throttle', attempt: 1, duration: 1, retryAt: 1001 },
      { kind: 'throttle', attempt: 2, duration: 1, retryAt: 2002 },
    ]);
    expect(r.endedAt).toBe(2012);
  });

  it("a transient failure's event tells how long its own try took, the second try's as the first's", () => {
    const r = run([[{ status: 503 }, { status: 503 }, 10]], { pacing, retry: { delay: 100 } });
    r.scheduler.flush();
    const retries = r.events.flatMap((event) => (event.type === 'retrying' ? [[event.attempt, event.duration]] : []));
    expect(retries).toEqual([
      [1, 1],
      [2, 1],
    ]);
    expect(r.state).toMatchObject({ succeeded: 1, retrying: 0, ended: 'completed' });
  });

  it('an item failure fails its task alone: the run goes on, the result lists it, the end lists it to run again', () => {
    const r = run([[10], [{ status: 422 }], [10], [10]], { pacing, retry: items, keys: ['a', 'b', 'c', 'd'] });
    r.scheduler.flush();
    expect(r.error).toBeUndefined();
    expect(r.tries.map((t) => t.index)).toEqual([0, 1, 2, 3]);
    const results = r.emitted.map((e) => e.result);
    expect(results.flatMap((result) => result.itemFailures)).toEqual([{ index: 1, reason: expect.any(Failure) }]);
    expect(results.flatMap((result) => result.values)).toEqual([0, undefined, 2, 3]);
    expect(results.at(-1)?.successes).toBe(3);
    expect(r.events.find((event) => event.type === 'failed')).toMatchObject({ kind: 'item', key: 'b', attempt: 1 });
    const end = r.events.at(-1);
    expect(end).toMatchObject({ type: 'end', how: 'completed', succeeded: 3, failed: 0, itemFailed: 1, unfinishedKeys: ['b'] });
    expect(r.state).toMatchObject({ succeeded: 3, failed: 0, itemFailed: 1 });
    expect(r.state.tasks.get('b')).toBe('itemFailed');
  });

  it('item failures in a row stop the run at maxConsecutiveItemFailures, not below; a success between starts the count again', () => {
    const bad = [{ status: 422 }];
    const below = run([bad, bad, [5], bad, bad], {
      pacing,
      initialBatchSize: 1,
      concurrency: 1,
      retry: { ...items, maxConsecutiveItemFailures: 3 },
    });
    below.scheduler.flush();
    expect(below.error).toBeUndefined();
    expect(below.state).toMatchObject({ succeeded: 1, itemFailed: 4, failed: 0, ended: 'completed' });

    const at = run([bad, bad, bad, [5]], {
      pacing,
      initialBatchSize: 1,
      concurrency: 1,
      retry: { ...items, maxConsecutiveItemFailures: 3 },
    });
    at.scheduler.flush();
    if (!isSlowStartBatchError(at.error)) throw new Error('expected a SlowStartBatchError');
    expect((at.error.cause as Error).message).toBe(
      '3 item failures in a row, with no success between them: the run stops, as after a fatal failure (see retry.maxConsecutiveItemFailures)',
    );
    expect(((at.error.cause as Error).cause as Failure).status).toBe(422);
    expect(at.tries.map((t) => t.index)).toEqual([0, 1, 2]);
    expect(at.state).toMatchObject({ itemFailed: 2, failed: 1, ended: 'failed' });
  });

  it('a fatal failure (403) stops the run after one call, and a task out of tries is fatal unless outOfTries says item', () => {
    const r = run([[{ status: 403 }], [10], [10]], { pacing, retry: {} });
    r.scheduler.flush();
    expect(r.tries).toHaveLength(1);
    expect(isSlowStartBatchError(r.error)).toBe(true);
    expect(r.events.find((event) => event.type === 'failed')).toMatchObject({ kind: 'fatal' });

    const outOfTries = run([[{ status: 504 }], [10]], { pacing, retry: { maxAttempts: 2, delay: 5, outOfTries: 'item' } });
    outOfTries.scheduler.flush();
    expect(outOfTries.error).toBeUndefined();
    // Due at 6, it waits for a slot: task 1 took the only one at 1, until 11.
    expect(triesOf(outOfTries, 0)).toEqual([
      [1, 0],
      [2, 11],
    ]);
    expect(outOfTries.state).toMatchObject({ succeeded: 1, itemFailed: 1, ended: 'completed' });
  });

  it('a run left during a backoff arms nothing more, and its waiting task is abandoned and listed to run again', () => {
    const r = run([[{ status: 502 }], [10]], { pacing, retry: { delay: 1_000 } });
    // Up to 500 ms: task 0 waits out its backoff until 1,001.
    r.scheduler.maxFrames = 500;
    r.scheduler.flush();
    expect([r.endedAt, r.state.retrying, r.state.succeeded]).toEqual([undefined, 1, 1]);
    r.subscription.unsubscribe();
    expect(r.scheduler.actions).toHaveLength(0);
    expect(r.events.at(-1)).toMatchObject({ type: 'end', how: 'cancelled', abandoned: 1, unfinishedKeys: [0] });
    expect(r.state).toMatchObject({ retrying: 0, abandoned: 1 });
  });
});

describe('§14: a transient failure and the barrier of batch pacing', () => {
  it('the task due after its backoff takes a slot of the batch open then, ahead of new factories', () => {
    // Batches 1, 2, 4: task 0 fails at 1 and is due at 31, while the batch of tasks 1 and 2 runs.
    const r = run([[{ status: 504 }, 5], [40], [40], [5], [5], [5], [5]], { retry: { delay: 30 } });
    r.scheduler.flush();
    expect(triesOf(r, 0)).toEqual([
      [1, 0],
      [2, 41],
    ]);
    // The next batch opens at 41 with the retry first; the pace was not dropped.
    expect(r.tries.filter((t) => t.at === 41).map((t) => t.index)).toEqual([0, 3, 4, 5]);
  });

  it('a batch closed by a transient failure or a failed item reports the pace it grew to before the next starts', () => {
    const r = run([[{ status: 504 }, 5], [5], [5]], { retry: { delay: 0 } });
    r.scheduler.flush();
    const lines = r.events.flatMap((event) =>
      event.type === 'pace' ? [`pace ${event.limit}`] : event.type === 'started' ? [`start ${event.index}`] : [],
    );
    // Batch 1 is task 0 alone; its transient failure closes it, and the pace grows to 2 before batch 2.
    expect(lines.slice(0, 4)).toEqual(['pace 1', 'start 0', 'pace 2', 'start 1']);
  });

  it('the batch that a retry completes by failing at once as an item is emitted before the next batch starts', () => {
    const scheduler = new VirtualTimeScheduler();
    const log: string[] = [];
    // Task 0 fails at once, transient on its first try and an item on its second; the others take 5 ms.
    const task =
      (index: number): TaskFactory<number> =>
      (context) =>
        defer(() => {
          log.push(`start ${index}`);
          if (index > 0) return timer(5, scheduler).pipe(map(() => index));
          return throwError(() => new Failure(context.attempt === 1 ? 503 : 422));
        });
    const retry = { ...items, delay: 7 };
    const tasks = Array.from({ length: 12 }, (_, index) => task(index));
    slowStart(tasks, { pacing: 'batch', retry, scheduler }).subscribe((result) => log.push(`result ${result.startIndex}`));
    scheduler.flush();
    // At 7 ms the retry starts ahead of the next batch, in the same round: its failure must end the round.
    const retried = log.indexOf('start 0', 1);
    expect(log.slice(retried, retried + 2)).toEqual(['start 0', 'result 0']);
  });

  it('a batch whose every try failed as an item does not grow the pace', () => {
    const bad = [{ status: 422 }];
    const r = run([[5], bad, bad, [5], [5], [5], [5]], { retry: { ...items, maxConsecutiveItemFailures: 10 } });
    r.scheduler.flush();
    // Batches: [0] then [1, 2], both items, so the next is 2 again, not 4: [3, 4], then [5, 6].
    const batchStarts = [...new Set(r.tries.map((t) => t.at))].map((at) => r.tries.filter((t) => t.at === at).map((t) => t.index));
    expect(batchStarts).toEqual([[0], [1, 2], [3, 4], [5, 6]]);
  });
});

describe('§14: HTTP responses as a task returns them', () => {
  const respond = (status: number) => () => Promise.resolve(new Response(status === 204 ? null : 'body', { status }));

  it('a fetch Response that is not ok is a failed try, whose HttpError carries the response', async () => {
    const error = await lastValueFrom(slowStart([respond(204), respond(404)])).catch((e: unknown) => e);
    if (!isSlowStartBatchError(error)) throw new Error('expected a SlowStartBatchError');
    const reason = error.cause as HttpError;
    expect(reason).toBeInstanceOf(HttpError);
    expect([reason.name, reason.status, reason.message, reason.response.status]).toEqual(['HttpError', 404, 'HTTP 404', 404]);
    expect(httpStatus(reason)).toBe(404);
    expect(await (reason.response as Response).text()).toBe('body');
  });

  it('reads a 429 response as a throttle and a 422 as the item `when` says, by default with retry', async () => {
    let tries = 0;
    const throttledOnce = () => Promise.resolve(new Response(null, { status: tries++ === 0 ? 429 : 201, headers: { 'Retry-After': '0' } }));
    const results = await lastValueFrom(slowStart([throttledOnce, respond(422)], { retry: items }).pipe(toArray()));
    expect(tries).toBe(2);
    expect(results.flatMap((result) => result.itemFailures.map((failure) => httpStatus(failure.reason)))).toEqual([422]);
  });

  it('with `httpErrors: false`, a response that is not ok is the value', async () => {
    const [result] = await lastValueFrom(slowStart([respond(500)], { httpErrors: false }).pipe(toArray()));
    expect((result.values[0] as Response).status).toBe(500);
  });

  it('refuses an httpErrors that is not a boolean', () => {
    expect(() => slowStart([], { httpErrors: 'yes' as never })).toThrow(
      new TypeError('Expected `httpErrors` to be a boolean or undefined, got "yes" (string)'),
    );
  });
});

describe('§14: retry without `when`', () => {
  it('takes a failure that carries no status for fatal: it is not retried, as it was before the kinds', () => {
    const r = run([[{ status: 400 }]], { retry: { maxAttempts: 5 } });
    r.scheduler.flush();
    expect(r.tries).toHaveLength(1);
    expect(isSlowStartBatchError(r.error)).toBe(true);
  });
});

describe('progress a terminal wants', () => {
  it('the start of a run over an array tells its total, and the live state the rate and the time left', () => {
    const events: SlowStartEvent[] = [];
    const r = run([[100], [100], [100], [100]], { initialBatchSize: 1, concurrency: 1 });
    r.scheduler.flush();
    expect(r.events[0]).toEqual({ type: 'start', total: 4, fingerprint: 'tasks:4', time: 0 });
    // One success every 100 ms: 10 a second, and nothing left at the end.
    expect(r.state).toMatchObject({ total: 4, succeeded: 4, successRate: 10, timeLeft: 0 });
    slowStart(
      (function* () {
        yield () => [1];
      })(),
      { events: (event) => events.push(event) },
    ).subscribe();
    // A generator says nothing of its length: the run cannot tell its source by a fingerprint, and its start has no `total`.
    expect(events[0]).toStrictEqual({ type: 'start', fingerprint: '', time: expect.any(Number) });
  });
});
