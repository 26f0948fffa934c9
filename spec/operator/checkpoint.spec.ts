/**
 * A job that survives its process (§15): the checkpoints a run's events fold into, and runs that resume
 * them, in virtual time.
 */
import { Subject, timer, map, mergeMap, throwError, VirtualTimeScheduler, type Observable } from 'rxjs';
import {
  slowStart,
  slowStartCheckpoint,
  slowStartState,
  type SlowStartCheckpoint,
  type SlowStartState,
  type SlowStartEvent,
  type SlowStartOptions,
  type TaskContext,
  type TaskFactory,
} from '../../src/index';

/** What each task is told and does: `ms` to run; `fail` makes it fail with that reason. */
interface Job {
  readonly invoked: TaskContext[];
  readonly checkpoints: SlowStartCheckpoint[];
  readonly order: string[];
  readonly scheduler: VirtualTimeScheduler;
  readonly error: unknown[];
  readonly subscription: { unsubscribe(): void };
}

function runJob(
  durations: readonly number[],
  options: SlowStartOptions = {},
  fails: (key: string | number, attempt: number) => unknown = () => undefined,
  scheduler = new VirtualTimeScheduler(),
): Job {
  const invoked: TaskContext[] = [];
  const checkpoints: SlowStartCheckpoint[] = [];
  const order: string[] = [];
  const error: unknown[] = [];
  const events = new Subject<SlowStartEvent>();
  events.pipe(slowStartCheckpoint()).subscribe((checkpoint) => {
    checkpoints.push(checkpoint);
    order.push(`checkpoint ${JSON.stringify(checkpoint.succeeded)}`);
  });
  const tasks = durations.map((ms): TaskFactory<unknown> => (context) => {
    invoked.push(context);
    const reason = fails(context.key, context.attempt);
    return timer(ms, scheduler).pipe(mergeMap(() => (reason === undefined ? [context.key] : throwError(() => reason))));
  });
  const subscription = slowStart(tasks, { scheduler, events, ...options }).subscribe({
    next: (result) => order.push(`result ${JSON.stringify(result.values)}`),
    error: (reason: unknown) => error.push(reason),
  });
  return { invoked, checkpoints, order, scheduler, error, subscription };
}

const last = (job: Job): SlowStartCheckpoint => job.checkpoints[job.checkpoints.length - 1];

describe('slowStartCheckpoint()', () => {
  it('folds a whole run into plain data: its keys as runs, its pace, how it ended, a sequence counting up', () => {
    const job = runJob([10, 10, 10, 10, 10, 10, 10], { keys: [10, 11, 12, 13, 14, 15, 16] });
    job.scheduler.flush();
    const end = last(job);
    expect(end).toEqual({
      version: 1,
      sequence: job.checkpoints.length,
      fingerprint: expect.stringMatching(/^keys:7:/),
      savedAt: 30,
      succeeded: [[10, 16]],
      failed: [],
      inDoubt: [],
      pace: { limit: 8, threshold: null, perSecond: null, pausedUntil: null },
      ended: 'completed',
    });
    expect(job.checkpoints.map((checkpoint) => checkpoint.sequence)).toEqual(job.checkpoints.map((_, at) => at + 1));
    expect(JSON.parse(JSON.stringify(end))).toEqual(end);
  });

  it('has a task in doubt from before its factory is called until its answer, and a success before its result', () => {
    const seen: unknown[] = [];
    const events = new Subject<SlowStartEvent>();
    let latest: SlowStartCheckpoint | undefined;
    events.pipe(slowStartCheckpoint()).subscribe((checkpoint) => (latest = checkpoint));
    const scheduler = new VirtualTimeScheduler();
    slowStart(
      [0, 1].map((index) => () => {
        seen.push(['invoked', index, latest?.inDoubt]);
        return timer(5, scheduler).pipe(map(() => index));
      }),
      { scheduler, events, initialBatchSize: 2 },
    ).subscribe((result) => seen.push(['result', result.values, latest?.succeeded, latest?.inDoubt]));
    scheduler.flush();
    expect(seen).toEqual([
      ['invoked', 0, [0]],
      ['invoked', 1, [[0, 1]]],
      ['result', [0, 1], [[0, 1]], []],
    ]);
  });

  it('lists items that failed for good apart, keeps a task in doubt through what does not say it took no effect', () => {
    const job = runJob(
      [10, 10, 10, 10],
      {
        initialBatchSize: 4,
        retry: { maxAttempts: 2, when: (error) => (error === 422 ? 'item' : error === 503 ? 'transient' : undefined), delay: 50 },
      },
      (key, attempt) => (key === 1 ? 422 : key === 2 && attempt === 1 ? 503 : key === 3 ? new Error('fatal') : undefined),
    );
    job.scheduler.flush();
    const after10 = job.checkpoints.filter((checkpoint) => checkpoint.savedAt === 10).at(-1)!;
    // Task 2 had no answer that says its try took no effect; task 3 failed fatally: both stay in doubt.
    expect([after10.succeeded, after10.failed, after10.inDoubt]).toEqual([[0], [1], [[2, 3]]]);
    expect(last(job).ended).toBe('failed');
  });

  it('takes a throttled task out of doubt: the server turned its try away', () => {
    const job = runJob([10, 10], { initialBatchSize: 2, retry: { maxAttempts: 3, delay: 100 } }, (key, attempt) =>
      key === 1 && attempt === 1 ? Object.assign(new Error('429'), { status: 429 }) : undefined,
    );
    job.scheduler.flush();
    const afterThrottle = job.checkpoints.find((checkpoint) => checkpoint.savedAt === 10 && checkpoint.pace.pausedUntil !== null)!;
    expect([afterThrottle.succeeded, afterThrottle.inDoubt, afterThrottle.pace.pausedUntil]).toEqual([[0], [], 110]);
  });
});

describe('the resume option', () => {
  /** A job of 10 tasks of 10 ms, cut off at `at` ms, as a killed process would leave it. */
  function cutOff(at: number, options: SlowStartOptions = {}): SlowStartCheckpoint {
    const job = runJob(Array<number>(10).fill(10), options);
    job.scheduler.flush = job.scheduler.flush.bind(job.scheduler);
    job.scheduler.maxFrames = at;
    job.scheduler.flush();
    return JSON.parse(JSON.stringify(last(job))) as SlowStartCheckpoint;
  }

  it('invokes no task that succeeded, every task in doubt again with its key and inDoubt, and carries the counts on', () => {
    const checkpoint = cutOff(25, { pacing: 'window', initialBatchSize: 2 });
    expect([checkpoint.succeeded, checkpoint.inDoubt]).toEqual([[[0, 5]], [[6, 9]]]);
    const job = runJob(Array<number>(10).fill(10), { pacing: 'window', initialBatchSize: 2, resume: checkpoint });
    job.scheduler.flush();
    expect(job.invoked.map(({ key, index, inDoubt, attempt }) => [key, index, inDoubt, attempt])).toEqual([
      [6, 0, true, 1],
      [7, 1, true, 1],
      [8, 2, true, 1],
      [9, 3, true, 1],
    ]);
    const end = last(job);
    expect([end.succeeded, end.inDoubt, end.ended, end.sequence > checkpoint.sequence]).toEqual([[[0, 9]], [], 'completed', true]);
    expect(job.checkpoints[0].sequence).toBe(checkpoint.sequence + 1);
  });

  it('completes at once when the checkpoint has every task done, with nothing invoked', () => {
    const done = runJob([1, 1, 1]);
    done.scheduler.flush();
    const job = runJob([1, 1, 1], { resume: last(done) });
    job.scheduler.flush();
    expect([job.invoked.length, job.error, job.order.filter((entry) => entry.startsWith('result'))]).toEqual([0, [], []]);
    expect(last(job).ended).toBe('completed');
  });

  it('leaves out the items that failed for good', () => {
    const first = runJob([1, 1, 1], { retry: { when: (error) => (error === 422 ? 'item' : undefined) } }, (key) =>
      key === 1 ? 422 : undefined,
    );
    first.scheduler.flush();
    expect(last(first).failed).toEqual([1]);
    const job = runJob([1, 1, 1], { resume: { ...last(first), succeeded: [0] } });
    job.scheduler.flush();
    expect(job.invoked.map((context) => context.key)).toEqual([2]);
  });

  it('refuses a source whose fingerprint differs, before any task starts, unless told to accept it', () => {
    const checkpoint = cutOff(15);
    const job = runJob(Array<number>(11).fill(10), { resume: checkpoint });
    job.scheduler.flush();
    expect(job.invoked).toEqual([]);
    expect(job.error).toEqual([
      new RangeError(
        'Expected `resume.checkpoint.fingerprint` to be the fingerprint of this source, "tasks:11" (the checkpoint was made from another list of tasks or keys; pass `resume: { checkpoint, changedSource: \'accept\' }` to resume it all the same), got "tasks:10" (string)',
      ),
    ]);
    const accepted = runJob(Array<number>(11).fill(10), { resume: { checkpoint, changedSource: 'accept' } });
    accepted.scheduler.flush();
    expect(accepted.invoked.map((context) => context.key)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    // Said outright, 'refuse' refuses as the checkpoint alone does.
    const refused = runJob(Array<number>(11).fill(10), { resume: { checkpoint, changedSource: 'refuse' } });
    refused.scheduler.flush();
    expect(refused.invoked).toEqual([]);
    expect(refused.error).toEqual(job.error);
  });

  it('refuses a changed source with no events to listen, and compares nothing for a source whose length it cannot tell', () => {
    const checkpoint = cutOff(15);
    const errors: unknown[] = [];
    const called: number[] = [];
    const factories = Array.from({ length: 11 }, (_, index) => () => {
      called.push(index);
      return [index];
    });
    slowStart(factories, { resume: checkpoint }).subscribe({ error: (error: unknown) => errors.push(error) });
    expect([called, errors.map((error) => (error as Error).name)]).toEqual([[], ['RangeError']]);
    // A generator says no length: nothing to compare the checkpoint's fingerprint with, so it resumes.
    function* unknownLength() {
      yield* factories;
    }
    const values: (number | undefined)[] = [];
    slowStart(unknownLength(), { resume: checkpoint }).subscribe({ next: (result) => values.push(...result.values) });
    expect(values).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
  });

  it('takes up a recent pace and a pause still to come, and starts from the beginning after a stale one', () => {
    const checkpoint: SlowStartCheckpoint = {
      ...cutOff(0),
      savedAt: 0,
      pace: { limit: 4, threshold: 2, perSecond: null, pausedUntil: 500 },
    };
    const starts = (job: Job) => job.invoked.length;
    const scheduler = new VirtualTimeScheduler();
    const fresh = runJob(Array<number>(10).fill(10), { resume: { checkpoint, freshFor: 60_000 } }, undefined, scheduler);
    scheduler.maxFrames = 499;
    scheduler.flush();
    expect(starts(fresh)).toBe(0);
    scheduler.maxFrames = 500;
    scheduler.flush();
    // The first batch holds the pace the checkpoint recorded.
    expect(starts(fresh)).toBe(4);
    // The pause is reported as it begins, with what caused it: a throttle's, or a spent budget's reset.
    const events: SlowStartEvent[] = [];
    slowStart([() => [1]], {
      scheduler: new VirtualTimeScheduler(),
      resume: { checkpoint, changedSource: 'accept' },
      events: (event) => events.push(event),
    }).subscribe();
    expect(events.find((event) => event.type === 'paused')).toEqual({ type: 'paused', until: 500, cause: 'throttle', time: 0 });
    const stale = runJob(Array<number>(10).fill(10), { resume: { checkpoint: { ...checkpoint, savedAt: -60_001 }, freshFor: 60_000 } });
    stale.scheduler.maxFrames = 500;
    stale.scheduler.flush();
    expect(stale.invoked.filter((context) => context.batch === 0)).toHaveLength(1);
  });

  it('under rateLimit, takes up a recent pace only once the first try has heard where the budget stands', () => {
    const checkpoint: SlowStartCheckpoint = {
      ...cutOff(0),
      fingerprint: '', // of a hundred tasks here, where cutOff runs ten
      savedAt: 0,
      pace: { limit: 64, threshold: null, perSecond: null, pausedUntil: null },
    };
    /** Tries started by `ms`, for a run of 100 tasks of 10 ms resumed at the checkpoint's pace. */
    const startsBy = (ms: number, options: Pick<SlowStartOptions, 'rateLimit'>) => {
      const job = runJob(Array<number>(100).fill(10), { pacing: 'window', resume: checkpoint, ...options });
      job.scheduler.maxFrames = ms;
      job.scheduler.flush();
      job.subscription.unsubscribe();
      return job.invoked.length;
    };
    const budget = () => ({ limit: 100, remaining: 90, resetIn: 1000, window: 1000 });
    // Without rateLimit the pace is the budget: 64 at once.
    expect(startsBy(0, {})).toBe(64);
    // With it, one try first; then what the budget it announced allows, which is less than the pace.
    expect(startsBy(9, { rateLimit: budget })).toBe(1);
    // The next, a share of what it announced spread until the reset, well before 64 could start.
    expect(startsBy(300, { rateLimit: budget })).toBeGreaterThan(1);
    expect(startsBy(300, { rateLimit: budget })).toBeLessThan(64);
    // An answer that announces nothing lets the rest go as the pace allows: 64 more once the first is done.
    expect(startsBy(10, { rateLimit: () => undefined })).toBe(65);
    // With no answer, the rest go a window (a second, and up to 25 ms) after the run began.
    const silent = runJob(Array<number>(100).fill(5_000), { pacing: 'window', resume: checkpoint, rateLimit: budget });
    silent.scheduler.maxFrames = 999;
    silent.scheduler.flush();
    expect(silent.invoked).toHaveLength(1);
    silent.scheduler.maxFrames = 1025;
    silent.scheduler.flush();
    expect(silent.invoked).toHaveLength(64);
    silent.subscription.unsubscribe();
  });

  it('resumes nothing for undefined and null, and names what is wrong with a bad option', () => {
    expect(runJob([1], { resume: null }).invoked).toHaveLength(1);
    expect(runJob([1], { resume: { checkpoint: undefined } }).invoked).toHaveLength(1);
    expect(runJob([1], { resume: { checkpoint: null as never } }).invoked).toHaveLength(1);
    // `freshFor` at its least is allowed; a value that only compares as a number is not one.
    expect(runJob([1], { resume: { checkpoint: undefined, freshFor: 0 } }).invoked).toHaveLength(1);
    for (const freshFor of ['5', null, true]) {
      expect(() => slowStart([], { resume: { checkpoint: undefined, freshFor: freshFor as never } })).toThrow(
        /^Expected `resume.freshFor` to be a number of milliseconds >= 0, got /,
      );
    }
    expect(() => slowStart([], { resume: 5 as never })).toThrow(
      new TypeError('Expected `resume` to be a checkpoint made by slowStartCheckpoint() (a plain object), got 5 (number)'),
    );
    expect(() => slowStart([], { resume: { checkpoint: {} as never } })).toThrow(/^Expected `resume.checkpoint.version` to be 1/);
    expect(() => slowStart([], { resume: { checkpoint: undefined, freshFor: -1 } })).toThrow(
      new TypeError('Expected `resume.freshFor` to be a number of milliseconds >= 0, got -1 (number)'),
    );
    expect(() => slowStart([], { resume: { checkpoint: undefined, changedSource: 'yes' as never } })).toThrow(
      new TypeError("Expected `resume.changedSource` to be 'refuse' or 'accept', got \"yes\" (string)"),
    );
  });
});

export type { Observable };

describe('slowStartState() of a run that resumes a checkpoint', () => {
  it("counts what the checkpoint has done, as a page reloaded mid-job would show it, and the source's length as the total", () => {
    const first = runJob([10, 10, 10, 10, 10, 10], { retry: { when: (error) => (error === 422 ? 'item' : undefined) } }, (key) =>
      key === 1 ? 422 : undefined,
    );
    first.scheduler.maxFrames = 25;
    first.scheduler.flush();
    const checkpoint = last(first);
    expect([checkpoint.succeeded, checkpoint.failed, checkpoint.inDoubt]).toEqual([[0, 2], [1], [[3, 5]]]);
    const events = new Subject<SlowStartEvent>();
    const states: SlowStartState[] = [];
    events.pipe(slowStartState()).subscribe((state) => states.push(state));
    const scheduler = new VirtualTimeScheduler();
    slowStart(
      Array.from({ length: 6 }, () => () => timer(10, scheduler)),
      { scheduler, events, resume: checkpoint },
    ).subscribe();
    const started = states[1];
    expect([started.total, started.succeeded, started.itemFailed, started.tasks.get(2), started.tasks.get(1)]).toEqual([
      6,
      2,
      1,
      'succeeded',
      'itemFailed',
    ]);
    scheduler.flush();
    expect([states.at(-1)!.succeeded, states.at(-1)!.itemFailed, states.at(-1)!.ended]).toEqual([5, 1, 'completed']);
  });
});

describe('checkpoints of a job resumed in its process with what the end left unfinished', () => {
  it('keep the fingerprint of the source the job began with, which a new process resumes whole', () => {
    const events = new Subject<SlowStartEvent>();
    const checkpoints: SlowStartCheckpoint[] = [];
    events.pipe(slowStartCheckpoint()).subscribe((checkpoint) => checkpoints.push(checkpoint));
    const ends: SlowStartEvent[] = [];
    events.subscribe((event) => event.type === 'end' && ends.push(event));
    const tasks = [() => [0], () => throwError(() => new Error('500')), () => [2]];
    slowStart(tasks, { events, initialBatchSize: 3 }).subscribe({ error: () => undefined });
    const end = ends[0] as Extract<SlowStartEvent, { type: 'end' }>;
    slowStart([() => [1]], { events, keys: end.unfinishedKeys }).subscribe();
    const last = checkpoints.at(-1)!;
    expect([last.fingerprint, last.succeeded, last.ended]).toEqual(['tasks:3', [[0, 2]], 'completed']);
  });
});

describe('keys from a function', () => {
  const records = [{ id: 'a' }, { id: 'b' }, { id: 'c' }, { id: 'd' }];

  it("asks it for each task's key as the task comes: the context and the events carry it, and a resumed run leaves out by it", () => {
    const keys = (index: number) => records[index].id;
    const first = runJob([10, 10, 10, 10], { keys });
    first.scheduler.maxFrames = 25;
    first.scheduler.flush();
    expect(first.invoked.map((context) => context.key)).toEqual(['a', 'b', 'c', 'd']);
    const checkpoint = last(first);
    expect([checkpoint.succeeded, checkpoint.fingerprint]).toEqual([['a', 'b', 'c'], 'tasks:4']);
    const resumed = runJob([10, 10, 10, 10], { keys, resume: checkpoint });
    resumed.scheduler.flush();
    expect(resumed.invoked.map(({ key, index, inDoubt }) => [key, index, inDoubt])).toEqual([['d', 0, true]]);
    expect(last(resumed).succeeded).toEqual(['a', 'b', 'c', 'd']);
  });

  it('fails the run as when the source errors, at a key given twice, one that is no key, or what the function throws', () => {
    const fails = (keys: (index: number) => unknown) => {
      const job = runJob([1, 1, 1], { keys: keys as (index: number) => string });
      job.scheduler.flush();
      return [job.invoked.map((context) => context.key), job.error];
    };
    expect(fails((index) => (index === 2 ? 'a' : ['a', 'b'][index]))).toEqual([
      ['a'],
      [new RangeError('Expected `keys(2)` to be a key of its own (`keys(0)` gave the same key), got "a" (string)')],
    ]);
    expect(fails((index) => (index === 1 ? NaN : index))).toEqual([
      [0],
      [new TypeError('Expected `keys(1)` to be a string or a finite number, got NaN (number)')],
    ]);
    const broken = new Error('no id');
    expect(
      fails(() => {
        throw broken;
      }),
    ).toEqual([[], [broken]]);
  });
});

describe('checkpoints that ended', () => {
  it('a cancelled run (Ctrl-C) is resumed with what is left, and its requests aborted in flight stay in doubt', () => {
    const first = runJob([10, 10, 10, 10, 10, 10], { initialBatchSize: 2 });
    first.scheduler.maxFrames = 15;
    first.scheduler.flush();
    first.subscription.unsubscribe();
    const cancelled = last(first);
    expect([cancelled.ended, cancelled.succeeded, cancelled.inDoubt]).toEqual(['cancelled', [[0, 1]], [[2, 5]]]);
    const resumed = runJob([10, 10, 10, 10, 10, 10], { initialBatchSize: 2, resume: cancelled });
    resumed.scheduler.flush();
    expect(resumed.invoked.map((context) => [context.key, context.inDoubt])).toEqual([
      [2, true],
      [3, true],
      [4, true],
      [5, true],
    ]);
    expect(last(resumed).ended).toBe('completed');
  });

  it('come about two a task: one as it starts, one as it settles, and one for each change of pace', () => {
    const job = runJob(Array<number>(100).fill(10));
    job.scheduler.flush();
    expect(job.checkpoints.length).toBeGreaterThanOrEqual(200);
    expect(job.checkpoints.length).toBeLessThanOrEqual(220);
  });
});
