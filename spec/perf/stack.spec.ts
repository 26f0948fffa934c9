// Contract §8: the call stack does not grow with the number of tasks.
import { from, lastValueFrom, of, timer, map, toArray, type Observable } from 'rxjs';
import { slowStart, slowStartBatch, type BatchResult, type TaskFactory } from '../../src/index';

function lastResult<T>(source: Observable<BatchResult<T>>): BatchResult<T> | undefined {
  let last: BatchResult<T> | undefined;
  let error: unknown;
  source.subscribe({ next: (result) => (last = result), error: (e: unknown) => (error = e) });
  if (error !== undefined) throw error;
  return last;
}

describe('a call stack that does not grow with the number of tasks', () => {
  const million = Array.from(
    { length: 1_000_000 },
    (_, index): TaskFactory<number> =>
      () =>
        of(index),
  );

  it.each([1, Infinity])('runs a batch of 1,000,000 synchronous tasks with concurrency %p', (concurrency) => {
    const result = lastResult(slowStart(million, { initialBatchSize: million.length, concurrency }));
    expect(result?.size).toBe(1_000_000);
    expect(result?.successes).toBe(1_000_000);
    expect(result?.values[999_999]).toBe(999_999);
  });

  it('runs 1,000,000 synchronous tasks from a synchronous source through the operator', () => {
    const result = lastResult(from(million).pipe(slowStartBatch({ concurrency: 1 })));
    expect(result?.successes).toBe(1_000_000);
  });

  it.each([1, Infinity])(
    'runs a batch whose first task is asynchronous and whose other 100,000 are synchronous, with concurrency %p',
    async (concurrency) => {
      const tasks: TaskFactory<number>[] = [() => timer(1).pipe(map(() => -1)), ...million.slice(0, 100_000)];
      const results = await lastValueFrom(slowStart(tasks, { initialBatchSize: tasks.length, concurrency }).pipe(toArray()));
      expect(results).toHaveLength(1);
      expect(results[0].successes).toBe(100_001);
      expect(results[0].values[0]).toBe(-1);
      expect(results[0].values[100_000]).toBe(99_999);
    },
  );

  it('runs 100,000 synchronous tasks queued behind an asynchronous one through the operator, in batches', async () => {
    const tasks: TaskFactory<number>[] = [() => timer(1).pipe(map(() => -1)), ...million.slice(0, 100_000)];
    const results = await lastValueFrom(from(tasks).pipe(slowStartBatch({ concurrency: 1 }), toArray()));
    expect(results.at(-1)?.successes).toBe(100_001);
    expect(results.map((result) => result.size).slice(0, 4)).toEqual([1, 2, 4, 8]);
  });
});
