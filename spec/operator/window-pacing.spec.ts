/**
 * Window pacing (§9): the exposure of batch pacing without its barrier. A task starts as soon as the
 * bound has room; results still cover the source in order, grouped by the batch sizes.
 */
import { config, lastValueFrom, map, of, Subject, timer, toArray, VirtualTimeScheduler } from 'rxjs';
import {
  isSlowStartBatchError,
  slowStart,
  slowStartBatch,
  type BatchResult,
  type SlowStartOptions,
  type TaskFactory,
} from '../../src/index';

/** Runs tasks of the given durations (in virtual ms; a negative one fails) and records what happened when. */
function run(durations: number[], options: SlowStartOptions) {
  const scheduler = new VirtualTimeScheduler();
  const starts: { index: number; batch: number; at: number }[] = [];
  const emitted: { result: BatchResult<number>; at: number }[] = [];
  let error: unknown;
  let completedAt: number | undefined;
  const tasks = durations.map((duration, index): TaskFactory<number> => ({ batch }) => {
    starts.push({ index, batch, at: scheduler.now() });
    return timer(Math.abs(duration), scheduler).pipe(
      map(() => {
        if (duration < 0) throw new Error(`task ${index} failed`);
        return index;
      }),
    );
  });
  slowStart(tasks, { ...options, scheduler }).subscribe({
    next: (result) => emitted.push({ result, at: scheduler.now() }),
    error: (e: unknown) => (error = e),
    complete: () => (completedAt = scheduler.now()),
  });
  scheduler.flush();
  return { starts, emitted, error, completedAt, tasks };
}

describe("pacing: 'window'", () => {
  // a takes 1 ms, b 4 ms (the straggler), the rest 1 ms.
  const durations = [1, 4, 1, 1, 1, 1, 1];

  it('does not wait for the slowest task of a batch', () => {
    const window = run(durations, { pacing: 'window' });
    const batch = run(durations, { pacing: 'batch' });
    // Window: d starts when c has succeeded (2 successes, 1 in flight, limit 2); e, f and g when d has
    // (3 successes: the limit is 4, and b is still in flight). Batch: d to g wait for b.
    expect(window.starts.map(({ at }) => at)).toEqual([0, 1, 1, 2, 3, 3, 3]);
    expect(batch.starts.map(({ at }) => at)).toEqual([0, 1, 1, 5, 5, 5, 5]);
    expect(window.completedAt).toBe(5);
    expect(batch.completedAt).toBe(6);
  });

  it('emits results in source order, of the batch sizes, each once all its tasks and all earlier ones are done', () => {
    const { emitted, starts } = run(durations, { pacing: 'window' });
    expect(emitted.map(({ result, at }) => [result.batch, result.startIndex, result.size, result.values, result.successes, at])).toEqual([
      [0, 0, 1, [0], 1, 1],
      [1, 1, 2, [1, 2], 3, 5],
      [2, 3, 4, [3, 4, 5, 6], 7, 5],
    ]);
    // A task's context.batch names the result that reports it.
    expect(starts.map(({ batch }) => batch)).toEqual([0, 1, 1, 2, 2, 2, 2]);
  });

  it('cuts the last result short when the source ends', async () => {
    const results = await lastValueFrom(
      slowStart(
        [0, 1, 2, 3, 4].map((i) => () => of(i)),
        { pacing: 'window' },
      ).pipe(toArray()),
    );
    expect(results.map(({ size }) => size)).toEqual([1, 2, 2]);
  });

  it('keeps the bound within concurrency', () => {
    const { starts } = run([5, 5, 5, 5, 5, 5, 5], { pacing: 'window', initialBatchSize: 4, concurrency: 2 });
    expect(starts.map(({ at }) => at)).toEqual([0, 0, 5, 5, 10, 10, 15]);
  });

  it('stops admitting at a failure, lets what is in flight finish, and loses no outcome', () => {
    // a 1 ms; b fails at 2 ms; c 1 ms; d 5 ms; e and f are never invoked.
    const { starts, emitted, error, tasks } = run([1, -2, 1, 5, 1, 1], { pacing: 'window' });
    expect(starts.map(({ index, at }) => [index, at])).toEqual([
      [0, 0],
      [1, 1],
      [2, 1],
      [3, 2],
    ]);
    expect(emitted.map(({ result }) => result.batch)).toEqual([0]);
    if (!isSlowStartBatchError<number>(error)) throw new Error('expected a SlowStartBatchError');
    expect(error.batch).toBe(1);
    expect(error.startIndex).toBe(1);
    expect(error.size).toBe(3);
    expect(error.successes).toBe(3);
    expect(error.results).toEqual([
      { index: 1, status: 'rejected', reason: new Error('task 1 failed') },
      { index: 2, status: 'fulfilled', value: 2 },
      { index: 3, status: 'fulfilled', value: 3 },
    ]);
    expect(error.cause).toEqual(new Error('task 1 failed'));
    expect(error.remaining).toEqual(tasks.slice(4));
    expect(error.unfinished).toEqual([tasks[1], ...tasks.slice(4)]);
  });

  it('refuses flushAfter, which has no meaning without batches', () => {
    expect(() => slowStart([], { pacing: 'window', flushAfter: 10 } as never)).toThrow(
      new TypeError("Expected `flushAfter` to be undefined with `pacing: 'window'` (there are no batches to flush), got 10 (number)"),
    );
    expect(() => slowStart([], { pacing: 'steady' } as never)).toThrow(
      new TypeError("Expected `pacing` to be 'batch' or 'window', got \"steady\" (string)"),
    );
  });
});

describe('window pacing with sizes far beyond what waits', () => {
  // A user's way to say "no ramp, just `concurrency`": nothing may be sized by a nominal result size.
  const large: [string, SlowStartOptions][] = [
    ['initialBatchSize: 2 ** 32', { pacing: 'window', initialBatchSize: 2 ** 32 }],
    ['initialBatchSize: Number.MAX_SAFE_INTEGER', { pacing: 'window', initialBatchSize: Number.MAX_SAFE_INTEGER, concurrency: 4 }],
    ['growthFactor: 1e10', { pacing: 'window', growthFactor: 1e10 }],
  ];

  it.each(large)('slowStart() runs every task once and reports each value in its result (%s)', async (_, options) => {
    const calls: number[] = [];
    const tasks = Array.from({ length: 10 }, (_, index) => () => {
      calls.push(index);
      return Promise.resolve(index * 10);
    });
    const results = await lastValueFrom(slowStart(tasks, options).pipe(toArray()));
    expect(calls).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(results.flatMap((result) => result.values)).toEqual([0, 10, 20, 30, 40, 50, 60, 70, 80, 90]);
    expect(results.map((result) => result.startIndex)).toEqual(
      results.map((_, k) => results.slice(0, k).reduce((sum, result) => sum + result.size, 0)),
    );
    expect(results.at(-1)?.successes).toBe(10);
  });

  it.each(large)('the operator completes with every value and reports nothing unhandled (%s)', async (_, options) => {
    const unhandled: unknown[] = [];
    const previous = config.onUnhandledError;
    config.onUnhandledError = (error) => unhandled.push(error);
    try {
      const source = new Subject<TaskFactory<number>>();
      const done = lastValueFrom(source.pipe(slowStartBatch(options), toArray()));
      for (let index = 0; index < 10; index++) source.next(() => of(index));
      source.complete();
      const results = await done;
      await new Promise((resolve) => setTimeout(resolve, 0));
      expect(results.flatMap((result) => result.values)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
      expect(unhandled).toEqual([]);
    } finally {
      config.onUnhandledError = previous;
    }
  });
});
