/**
 * Throttles slow the run down instead of stopping it (§10): a transient failure pauses every start,
 * drops the pace, and the task is tried again ahead of every new one, with a fresh context.
 */
import { concat, defer, map, Subject, throwError, timer, VirtualTimeScheduler } from 'rxjs';
import {
  isSlowStartBatchError,
  slowStart,
  slowStartBatch,
  type BatchResult,
  type SlowStartOptions,
  type TaskContext,
  type TaskFactory,
} from '../../src/index';

/** A throttle, as a server would send it. */
class Throttled extends Error {
  constructor(readonly retryAfterMs?: number) {
    super('429 Too Many Requests');
  }
}

/**
 * Runs tasks in virtual time. `plan[i]` lists what each try of task i does: a number is a success after
 * that many ms, `'throttle'` a throttle after 1 ms, `'throttleNow'` a throttle as it is subscribed,
 * `'fail'` a failure after 1 ms. With `sourceErrorAt`, the source errors then, after delivering every
 * factory; with `leaveFrom`, the subscriber unsubscribes on the first result emitted at that time or later.
 */
function run(
  plan: (number | 'throttle' | 'throttleNow' | 'fail')[][],
  options: SlowStartOptions,
  { sourceErrorAt, leaveFrom }: { sourceErrorAt?: number; leaveFrom?: number } = {},
) {
  const scheduler = new VirtualTimeScheduler();
  const tries: { index: number; attempt: number; batch: number; at: number; signal: AbortSignal }[] = [];
  const emitted: { result: BatchResult<number>; at: number }[] = [];
  let error: unknown;
  let endedAt: number | undefined;
  let completedAt: number | undefined;
  const tasks = plan.map(
    (steps, index): TaskFactory<number> =>
      (context: TaskContext) =>
        defer(() => {
          tries.push({ index, attempt: context.attempt, batch: context.batch, at: scheduler.now(), signal: context.signal });
          const step = steps[context.attempt - 1] ?? steps.at(-1);
          if (typeof step === 'number') return timer(step, scheduler).pipe(map(() => index));
          if (step === 'throttleNow') throwThrottle();
          return timer(1, scheduler).pipe(map(() => (step === 'throttle' ? throwThrottle() : throwFailure(index))));
        }),
  );
  const source = sourceErrorAt === undefined ? tasks : concat(tasks, timer(sourceErrorAt, scheduler).pipe(map(() => throwFailure(-1))));
  const subscription = slowStart(source, { ...options, scheduler }).subscribe({
    next: (result) => {
      emitted.push({ result, at: scheduler.now() });
      if (leaveFrom !== undefined && scheduler.now() >= leaveFrom) subscription.unsubscribe();
    },
    error: (e: unknown) => {
      error = e;
      endedAt = scheduler.now();
    },
    complete: () => (endedAt = completedAt = scheduler.now()),
  });
  return {
    scheduler,
    tries,
    emitted,
    get error() {
      return error;
    },
    get completedAt() {
      return completedAt;
    },
    /** When the stream completed or errored. */
    get endedAt() {
      return endedAt;
    },
    subscription,
    tasks,
  };
}

function throwThrottle(): never {
  throw new Throttled();
}
function throwFailure(index: number): never {
  throw new Error(`task ${index} failed`);
}

const transient = { when: (error: unknown) => error instanceof Throttled, delay: 10 };

describe('retry (§10)', () => {
  it('pauses every start, then tries the task again ahead of the new ones, with attempt + 1 and a fresh signal', () => {
    // Task 1 is throttled once; tasks 2 and 3 wait behind the pause.
    const r = run([[1], ['throttle', 1], [1], [1]], { initialBatchSize: 1, retry: transient });
    r.scheduler.flush();
    expect(r.tries.map(({ index, attempt, at }) => [index, attempt, at])).toEqual([
      [0, 1, 0],
      [1, 1, 1],
      [2, 1, 1],
      // Task 1 fails at 2 and task 2 ends at 2; nothing starts until 12, and the retry goes first.
      [1, 2, 12],
      [3, 1, 13],
    ]);
    const [first, second] = r.tries.filter(({ index }) => index === 1);
    expect(second.signal).not.toBe(first.signal);
    expect(second.batch).toBe(first.batch);
    // The result of task 1 waits for its retry; results still cover the source in order.
    expect(r.emitted.map(({ result, at }) => [result.batch, result.startIndex, result.size, at])).toEqual([
      [0, 0, 1, 1],
      [1, 1, 2, 13],
      [2, 3, 1, 14],
    ]);
    expect(r.completedAt).toBe(14);
  });

  it('waits as long as the server asks when `when` returns a number, and the backoff when it is longer', () => {
    const retryAfter = (ms: number) => ({ when: (error: unknown) => (error instanceof Throttled ? ms : false), delay: 10 });
    for (const [asked, expectedAt] of [
      [50, 52],
      [3, 12],
    ]) {
      const r = run([[1], ['throttle', 1]], { retry: retryAfter(asked) });
      r.scheduler.flush();
      expect(r.tries.at(-1)).toMatchObject({ index: 1, attempt: 2, at: expectedAt });
    }
  });

  it('stops as before on a failure that is not transient', () => {
    const r = run([[1], ['fail'], [1], [1]], { retry: transient });
    r.scheduler.flush();
    if (!isSlowStartBatchError(r.error)) throw new Error('expected a SlowStartBatchError');
    expect(r.error.results[0]).toEqual({ index: 1, status: 'rejected', reason: new Error('task 1 failed') });
    expect(r.tries.map(({ index }) => index)).toEqual([0, 1, 2]);
  });

  it('tries a task at most maxAttempts times, then fails the run with the reason of the last try', () => {
    const r = run([[1], ['throttle']], { retry: { ...transient, maxAttempts: 3 } });
    r.scheduler.flush();
    expect(r.tries.filter(({ index }) => index === 1).map(({ attempt }) => attempt)).toEqual([1, 2, 3]);
    if (!isSlowStartBatchError(r.error)) throw new Error('expected a SlowStartBatchError');
    expect(r.error.results).toEqual([{ index: 1, status: 'rejected', reason: new Throttled() }]);
    expect(r.error.unfinished).toEqual([r.tasks[1]]);
  });

  it('drops the pace: after a throttle, window pacing starts again from initialBatchSize', () => {
    // 8 quick tasks reach a limit of 4; then task 7 is throttled while 4 are in flight.
    const plan: (number | 'throttle')[][] = Array.from({ length: 16 }, (_, i) => (i === 7 ? ['throttle', 5] : [5]));
    const r = run(plan, { pacing: 'window', retry: { when: () => true, delay: 0 } });
    r.scheduler.flush();
    const startsAt = (at: number) => r.tries.filter((t) => t.at === at).map(({ index, attempt }) => [index, attempt]);
    // Tasks 7 to 14 start at 15 (limit 8); task 7 is throttled at 16 with 8 in flight: the threshold
    // becomes 4 and the limit 1. The 7 still in flight finish at 20; then the retry starts alone.
    expect(startsAt(15)).toHaveLength(8);
    expect(startsAt(20)).toEqual([[7, 2]]);
    // Its success raises the limit to 2 (slow start towards the threshold of 4); one task is left.
    expect(startsAt(25)).toEqual([[15, 1]]);
    expect(r.completedAt).toBeDefined();
    expect(r.emitted.flatMap(({ result }) => result.values)).toEqual(Array.from({ length: 16 }, (_, i) => i));
  });

  it('counts, after a drop, only the successes of tasks started since: the pause ends with one start, not a burst', () => {
    // Tasks 3 to 6 start at 20; task 3 is throttled at 21 (a pause of 1,000 ms); 4 to 6 succeed at 100,
    // during the pause. They started before the drop, so they do not grow the new pace.
    const plan: (number | 'throttle')[][] = [[10], [10], [10], ['throttle', 10], [80], [80], [80], [10], [10], [10]];
    const r = run(plan, { pacing: 'window', retry: { when: () => 1000, delay: 0 } });
    r.scheduler.flush();
    const startsAt = (at: number) => r.tries.filter((t) => t.at === at).map(({ index, attempt }) => [index, attempt]);
    expect(startsAt(1021)).toEqual([[3, 2]]);
    // The retry's success is the first of the new pace: the limit grows to 2 (the threshold).
    expect(startsAt(1031)).toEqual([
      [7, 1],
      [8, 1],
    ]);
    expect(r.completedAt).toBeDefined();
  });

  it('drops the pace: in batch pacing the batch after a throttle is the smallest one', () => {
    // Batches 1, 2, 4; task 5 (in the batch of 4) is throttled; the next batch holds one task: its retry.
    const plan: (number | 'throttle')[][] = Array.from({ length: 10 }, (_, i) => (i === 5 ? ['throttle', 1] : [1]));
    const r = run(plan, { retry: { when: () => true, delay: 0 } });
    r.scheduler.flush();
    const byTime = new Map<number, number[]>();
    for (const { index, at } of r.tries) byTime.set(at, [...(byTime.get(at) ?? []), index]);
    expect([...byTime.values()]).toEqual([[0], [1, 2], [3, 4, 5, 6], [5], [7, 8], [9]]);
    expect(r.emitted.flatMap(({ result }) => result.values)).toEqual(Array.from({ length: 10 }, (_, i) => i));
  });

  it('keeps half of what was in flight at the throttle, the throttled task included, as the threshold', () => {
    // Batches 1, 2, 4, 8; task 7, the first of the batch of 8 to settle, is throttled with all 8 in
    // flight: the threshold is 4. After the retry alone, batches double up to it, then grow by one.
    const plan: (number | 'throttle')[][] = Array.from({ length: 26 }, (_, i) => (i === 7 ? ['throttle', 1] : [1]));
    const r = run(plan, { retry: { when: () => true, delay: 0 } });
    r.scheduler.flush();
    const sizes = new Map<number, number>();
    for (const { at } of r.tries) sizes.set(at, (sizes.get(at) ?? 0) + 1);
    expect([...sizes.values()]).toEqual([1, 2, 4, 8, 1, 2, 4, 5]);
    expect(r.completedAt).toBeDefined();
  });

  it('opens the batch after a pause when the pause ends, with the factories that came during it', () => {
    // Found by the reference model: a factory pushed during the pause used to open the next batch then,
    // short, and a later one had to wait for the batch after.
    const scheduler = new VirtualTimeScheduler();
    const source = new Subject<TaskFactory<number>>();
    const starts: [number, number, number][] = [];
    const throttledOnce = new Set<number>();
    const task =
      (index: number): TaskFactory<number> =>
      ({ attempt }) => {
        starts.push([index, attempt, scheduler.now()]);
        if (index === 0 && !throttledOnce.has(0)) {
          throttledOnce.add(0);
          return timer(1, scheduler).pipe(map(() => throwThrottle()));
        }
        return timer(1, scheduler).pipe(map(() => index));
      };
    source.pipe(slowStartBatch({ initialBatchSize: 3, retry: { when: () => true, delay: 10 }, scheduler })).subscribe();
    [0, 1, 2].forEach((index) => source.next(task(index)));
    // Task 0 is throttled at 1: nothing starts until 11. Factories 3 and 4 come during the pause.
    scheduler.schedule(() => source.next(task(3)), 5);
    scheduler.schedule(() => source.next(task(4)), 8);
    scheduler.flush();
    expect(starts.filter(([, , at]) => at === 11)).toEqual([
      [0, 2, 11],
      [3, 1, 11],
      [4, 1, 11],
    ]);
  });

  it('ends the run when `when` throws, after the tasks in flight, and loses nothing', () => {
    const broken = new Error('when is broken');
    const r = run([[1], ['throttle'], [5]], {
      initialBatchSize: 1,
      retry: {
        when: () => {
          throw broken;
        },
      },
    });
    r.scheduler.flush();
    if (!isSlowStartBatchError(r.error)) throw new Error('expected a SlowStartBatchError');
    expect(r.error.cause).toBe(broken);
    expect(r.error.results).toEqual([
      { index: 1, status: 'rejected', reason: broken },
      { index: 2, status: 'fulfilled', value: 2 },
    ]);
  });

  it('reports a `when` that answers neither a boolean nor a number as the task failure', () => {
    const r = run([[1], ['throttle']], { retry: { when: (() => 'yes') as never } });
    r.scheduler.flush();
    if (!isSlowStartBatchError(r.error)) throw new Error('expected a SlowStartBatchError');
    expect(r.error.cause).toEqual(
      new TypeError(
        'Expected `retry.when()` to be a failure kind, { kind, retryAfter }, a boolean, a finite number of milliseconds >= 0, or undefined, got "yes" (string)',
      ),
    );
  });

  it('cancels the pause when unsubscribed: nothing stays scheduled', () => {
    const r = run([[1], ['throttle', 1], [1]], { retry: { when: () => true, delay: 1000 } });
    // The throttle at 2 pauses the run until 1002; the consumer leaves at 5.
    r.scheduler.schedule(() => r.subscription.unsubscribe(), 5);
    r.scheduler.flush();
    // Had the pause's timer stayed scheduled, the clock would have run on to it.
    expect(r.scheduler.frame).toBe(5);
    expect(r.tries.map(({ index }) => index)).toEqual([0, 1, 2]);
  });

  it('is validated when called', () => {
    expect(() => slowStart([], { retry: 3 as never })).toThrow(
      new TypeError('Expected `retry` to be an object or undefined, got 3 (number)'),
    );
    expect(() => slowStart([], { retry: { maxAttempts: 0 } })).toThrow(
      new RangeError('Expected `retry.maxAttempts` to be an integer >= 1, got 0 (number)'),
    );
    expect(() => slowStart([], { retry: { maxAttempts: 1 } })).not.toThrow();
    expect(() => slowStart([], { retry: { delay: -1 } })).toThrow(RangeError);
    expect(() => slowStart([], { retry: { delay: 0 } })).not.toThrow();
    expect(() => slowStart([], { retry: { when: true } as never })).toThrow(
      new TypeError('Expected `retry.when` to be a function or undefined, got true (boolean)'),
    );
    expect(() => slowStart([], { retry: { count: 3 } as never })).toThrow(
      new TypeError(
        'Unknown option `retry.count`: expected one of `when`, `maxAttempts`, `delay`, `learnRate`, `maxConsecutiveItemFailures`, `outOfTries`',
      ),
    );
    expect(() => slowStart([], { retry: { learnRate: 1 } as never })).toThrow(
      new TypeError('Expected `retry.learnRate` to be a boolean or undefined, got 1 (number)'),
    );
    expect(() => slowStart([], { retry: { learnRate: false } })).not.toThrow();
  });
});

describe('retry.learnRate', () => {
  const startTimes = (r: ReturnType<typeof run>) => r.tries.map(({ index, attempt, at }) => [index, attempt, at]);
  // Three tasks succeed in 10 ms, then task 3 is throttled once at 21: the pace drops and pauses until 121.
  const plan: (number | 'throttle')[][] = [[10], [10], [10], ['throttle', 10], ...Array.from({ length: 6 }, () => [10])];
  const window: SlowStartOptions = { pacing: 'window', initialBatchSize: 1 };
  // No jitter unless a spec asks for it: a throttle's pause is what it asked for.
  beforeEach(() => jest.spyOn(Math, 'random').mockReturnValue(0));
  afterEach(() => jest.restoreAllMocks());

  it("lengthens a throttle's pause by up to 5 % at random, so that clients throttled together come back apart", () => {
    jest.spyOn(Math, 'random').mockReturnValue(0.5);
    const r = run(plan, { ...window, retry: { when: () => true, delay: 100, learnRate: true } });
    r.scheduler.flush();
    // Throttled at 21 with a pause of 100: the retry starts at 21 + 102.5.
    const retried = r.tries.find(({ index, attempt }) => index === 3 && attempt === 2);
    expect(retried?.at).toBeCloseTo(123.5, 9);
    // Without learnRate the pause is what it asked for.
    const plain = run(plan, { ...window, retry: { when: () => true, delay: 100 } });
    plain.scheduler.flush();
    expect(plain.tries.find(({ index, attempt }) => index === 3 && attempt === 2)?.at).toBe(121);
  });

  it('after a drop, allows each pause 90 % of what the run was served until it ended, spread over its first tenth', () => {
    const long = [...plan, ...Array.from({ length: 8 }, () => [10])];
    const r = run(long, { ...window, retry: { when: () => true, delay: 100, learnRate: true } });
    r.scheduler.flush();
    // By the end of the pause at 121, six successes: tasks 0 to 2, and 4 to 6, in flight at the throttle.
    // 90 % of them allows 5 starts in the 100 ms to the next pause's end, 10 / 5 ms apart: the retry at
    // 121; task 7 when the retry has succeeded, at 131, and the window allows a second task; task 8 one
    // interval later, at 133. The window holds two in flight: tasks 9 and 10 start as 7 and 8 end, at
    // 141 and 143. Task 11 waits for the cycle's end at 221. All 5 started unrefused, so that
    // cycle allows 5.4 * 2 + 1 = 11.8 starts, 10 / 11 ms apart.
    const expected = [
      [0, 1, 0],
      [1, 1, 10],
      [2, 1, 10],
      [3, 1, 20],
      [4, 1, 20],
      [5, 1, 20],
      [6, 1, 20],
      [3, 2, 121],
      [7, 1, 131],
      [8, 1, 133],
      [9, 1, 141],
      [10, 1, 143],
      [11, 1, 221],
      [12, 1, 221 + 10 / 11],
      [13, 1, 221 + 20 / 11],
    ];
    const actual = startTimes(r).slice(0, expected.length);
    expect(actual.map(([index, attempt]) => [index, attempt])).toEqual(expected.map(([index, attempt]) => [index, attempt]));
    // A timer starts task 8 while task 7 is still in flight.
    actual.forEach(([, , at], k) => expect(at).toBeCloseTo(expected[k][2], 9));
    expect(r.completedAt).toBeDefined();
    // Without it, the window alone starts tasks 7 and 8 together.
    const alone = run(long, { ...window, retry: { when: () => true, delay: 100 } });
    alone.scheduler.flush();
    expect(startTimes(alone).slice(8, 10)).toEqual([
      [7, 1, 131],
      [8, 1, 131],
    ]);
  });

  it('keeps 70 % of the allowance through a throttle with nothing served since', () => {
    // One task at a time: 10 successes by the drop at 101 allow 9 starts per pause. The retry at 201 is
    // throttled again at 202, with no success since: the next pause allows 6.3, so tasks 11 to 15 start
    // one after another and task 16 waits for the cycle's end at 402. Forgotten, the allowance would be
    // 1, and task 11 would wait for 402.
    const steps = [
      ...Array.from({ length: 10 }, () => [10]),
      ['throttle' as const, 'throttle' as const, 10],
      ...Array.from({ length: 6 }, () => [10]),
    ];
    const r = run(steps, { initialBatchSize: 1, maxBatchSize: 1, retry: { when: () => true, delay: 100, learnRate: true } });
    r.scheduler.flush();
    expect(r.tries.map(({ at }) => at).slice(10)).toEqual([100, 201, 302, 312, 322, 332, 342, 352, 402]);
  });

  it('never slows the run below one start per pause, whatever the throttles teach', () => {
    // Every first try is throttled, whatever the rate: each drop sees one success in a task's whole
    // round (two tries, a 10 ms pause, the wait before it), so each rate learned would be lower than
    // the one before, and the run would all but stop. No wait between starts exceeds the pause.
    const r = run(
      Array.from({ length: 12 }, () => ['throttle' as const, 10]),
      { ...window, concurrency: 1, retry: { when: () => true, delay: 10, learnRate: true } },
    );
    r.scheduler.flush();
    expect(r.completedAt).toBeDefined();
    // Each task: a throttle after 1 ms, the 10 ms pause, the retry's 10 ms, and at most 10 ms of wait.
    expect(r.completedAt).toBeLessThanOrEqual(12 * 31);
  });

  it('learns only when the pace drops: a throttle of a task started before the drop teaches nothing', () => {
    // Two at a time: tasks 2 to 5 start at 10, task 3 is throttled at 11 and drops the pace, and task 4,
    // started before the drop, is throttled at 120, after the pause. By 111 four successes: the cycle
    // from 111 allows 3.6 starts, 10 / 3 ms apart, and the retry starts in it. The next cycle begins
    // with task 4's retry at 220, after its pause, with the same allowance: task 6 follows 10 / 3 ms
    // later, then 7 as the retry's end frees the window at 230, and task 8 waits for the cycle's end at
    // 320. Had the throttle at 120 been a drop, the one success since 111 would leave 70 % of 3.6: 2
    // starts, 5 ms apart.
    const r = run(plan, { ...window, initialBatchSize: 2, retry: { when: () => true, delay: 100, learnRate: true } });
    const task4 = r.tasks[4];
    let tries = 0;
    const throttledLate = () =>
      timer(110, r.scheduler).pipe(
        map(() => {
          throw 'throttle';
        }),
      );
    r.tasks[4] = (context) => (++tries === 1 ? throttledLate() : task4(context));
    r.scheduler.flush();
    const expected = [
      [3, 2, 111],
      [4, 2, 220],
      [6, 1, 220 + 10 / 3],
      [7, 1, 230],
      [8, 1, 320],
    ];
    const actual = startTimes(r).filter(([, , at]) => at >= 111 && at <= 320);
    expect(actual.map(([index, attempt]) => [index, attempt])).toEqual(expected.map(([index, attempt]) => [index, attempt]));
    actual.forEach(([, , at], k) => expect(at).toBeCloseTo(expected[k][2], 9));
  });

  it('keeps the whole pause after a throttle that comes as a task starts', () => {
    // Three successes by 30 teach one start per 10 ms; task 3 is throttled as it starts at 30, and
    // the pause of 100 ms holds: the learned rate may only lengthen a wait, never cut a pause short.
    const now: (number | 'throttleNow')[][] = [[10], [10], [10], ['throttleNow', 10], [10]];
    const r = run(now, { ...window, concurrency: 1, retry: { when: () => true, delay: 100, learnRate: true } });
    r.scheduler.flush();
    expect(startTimes(r).slice(3, 5)).toEqual([
      [3, 1, 30],
      [3, 2, 130],
    ]);
    expect(r.completedAt).toBeDefined();
  });

  it('leaves nothing scheduled when the run ends while starts are spaced', () => {
    // After the drop, quick tasks: each has finished before the next may start. The last one ends the
    // run while the wait after its start still runs, and so does the one in flight when the source fails.
    const quick: (number | 'throttle')[][] = [[10], [10], [10], ['throttle', 2], [10], [10], [10], [2], [2], [2]];
    // A pause of 250 ms spaces the 5 starts it allows 5 ms apart, more than a quick task takes.
    const options: SlowStartOptions = { ...window, retry: { when: () => true, delay: 250, learnRate: true } };
    const completed = run(quick, options);
    completed.scheduler.flush();
    expect(completed.tries.at(-1)?.index).toBe(9);
    expect(completed.scheduler.frame).toBe(completed.completedAt);
    // Task 7 runs from 276 to 278, and task 8 may start at 281: the source fails at 277.
    const failed = run(quick, options, { sourceErrorAt: 277 });
    failed.scheduler.flush();
    expect(failed.error).toEqual(new Error('task -1 failed'));
    expect(failed.endedAt).toBe(278);
    expect(failed.scheduler.frame).toBe(failed.endedAt);
    // The same, when the subscriber leaves on the last result, emitted as the run ends.
    const left = run(quick, options, { leaveFrom: completed.completedAt });
    left.scheduler.flush();
    expect(left.emitted.at(-1)?.at).toBe(completed.completedAt);
    expect([left.completedAt, left.scheduler.frame]).toEqual([undefined, completed.completedAt]);
    const leftBeforeTheError = run(quick, options, { sourceErrorAt: 277, leaveFrom: 278 });
    leftBeforeTheError.scheduler.flush();
    expect(leftBeforeTheError.emitted.at(-1)?.at).toBe(278);
    expect([leftBeforeTheError.error, leftBeforeTheError.scheduler.frame]).toEqual([undefined, 278]);
  });

  it('leaves nothing scheduled when a factory unsubscribes while starts are spaced', () => {
    const r = run(plan, { ...window, retry: { when: () => true, delay: 100, learnRate: true } });
    const factory7 = r.tasks[7];
    r.tasks[7] = (context) => {
      r.subscription.unsubscribe();
      return factory7(context);
    };
    r.scheduler.flush();
    // Had the spacing's timer been scheduled after the run closed, the clock would have run on to it.
    expect(r.scheduler.frame).toBe(131);
    expect(r.tries.map(({ index }) => index).at(-1)).toBe(3);
  });
});

describe("a dead backend, with the default classification, backoff and tries (the README's Gotchas)", () => {
  /** When the run errors, in virtual ms, for a task whose every try fails at once, with `Math.random` fixed. */
  function failsAt(random: number, maxAttempts?: number): number {
    const spy = jest.spyOn(Math, 'random').mockReturnValue(random);
    try {
      const scheduler = new VirtualTimeScheduler();
      let at = -1;
      // As Angular's HttpErrorResponse for a request that got no answer: status 0, a transient failure.
      const noAnswer = () => throwError(() => Object.assign(new Error('no answer'), { status: 0 }));
      slowStart([noAnswer], { scheduler, retry: maxAttempts === undefined ? {} : { maxAttempts } }).subscribe({
        error: () => (at = scheduler.now()),
      });
      scheduler.flush();
      return at;
    } finally {
      spy.mockRestore();
    }
  }

  it('surfaces after 1.5 to 3 s: three tries, with pauses of 0.5 to 1 s and 1 to 2 s between them', () => {
    expect(failsAt(0)).toBe(500 + 1000);
    expect(failsAt(0.999)).toBeCloseTo(999.5 + 1999, 6);
  });

  it('with `maxAttempts: 5`, after 7.5 to 15 s: each try more doubles the pause', () => {
    expect(failsAt(0, 5)).toBe(500 + 1000 + 2000 + 4000);
    expect(failsAt(0.999, 5)).toBeCloseTo(999.5 + 1999 + 3998 + 7996, 6);
  });
});
