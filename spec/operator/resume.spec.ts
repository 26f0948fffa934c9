/**
 * Resuming after a failure (§5): the error holds every factory a new run needs, for both functions, and
 * the recipe of docs/pacing.md finishes the work.
 */
import { concat, defer, from, lastValueFrom, of, skip, tap, throwError, toArray, type Observable } from 'rxjs';
import { isSlowStartBatchError, slowStart, slowStartBatch, type BatchResult, type TaskFactory } from '../../src/index';

/** Tasks 0..count-1; each of `failOnce` fails on its first call only, like a request refused for a while. */
function flakyTasks(count: number, failOnce: number[]) {
  const calls = new Map<number, number>();
  const tasks = Array.from(
    { length: count },
    (_, id): TaskFactory<number> =>
      () =>
        defer(() => {
          const call = (calls.get(id) ?? 0) + 1;
          calls.set(id, call);
          return failOnce.includes(id) && call === 1 ? throwError(() => new Error(`task ${id} refused`)) : of(id);
        }),
  );
  return { tasks, calls };
}

/**
 * The recipe of docs/pacing.md: run over `source`; on a SlowStartBatchError, run again over what is unfinished
 * followed by the part of the source the run never received, until the work is done.
 */
async function runToTheEnd(
  tasks: TaskFactory<number>[],
  run: (source: Observable<TaskFactory<number>>) => Observable<BatchResult<number>>,
): Promise<{ values: number[]; runs: number }> {
  const values: number[] = [];
  let source: Observable<TaskFactory<number>> = from(tasks);
  for (let runs = 1; ; runs++) {
    try {
      await lastValueFrom(
        run(source).pipe(
          tap((result) => values.push(...(result.values as number[]))),
          toArray(),
        ),
      );
      return { values, runs };
    } catch (error) {
      if (!isSlowStartBatchError<number>(error)) throw error;
      values.push(...error.results.flatMap((result) => (result.status === 'fulfilled' ? [result.value as number] : [])));
      source = concat(from(error.unfinished), source.pipe(skip(error.resumeFrom)));
    }
  }
}

describe('resuming from a SlowStartBatchError', () => {
  it.each([
    ['slowStart()', (source: Observable<TaskFactory<number>>) => slowStart(source)],
    ['slowStartBatch()', (source: Observable<TaskFactory<number>>) => source.pipe(slowStartBatch())],
  ])('%s: every task ends up done exactly once', async (_, run) => {
    const { tasks, calls } = flakyTasks(40, [5, 6, 20]);
    const { values, runs } = await runToTheEnd(tasks, run);
    expect(values.sort((a, b) => a - b)).toEqual(Array.from({ length: 40 }, (_, id) => id));
    expect(runs).toBe(3);
    // Only the refused tasks were called twice.
    expect([...calls].filter(([, count]) => count > 1).map(([id]) => id)).toEqual([5, 6, 20]);
  });

  it('unfinished holds the rejected tasks in source order, then remaining', () => {
    // The operator knows only what the source emitted before the failure: a synchronous source and
    // synchronous tasks fail at the fourth emission. slowStart() over the array knows the rest.
    const factories: TaskFactory<number>[] = [
      () => of(0),
      () => throwError(() => 'b'),
      () => of(2),
      () => throwError(() => 'd'),
      () => of(4),
      () => of(5),
    ];
    let error: unknown;
    from(factories)
      .pipe(slowStartBatch({ initialBatchSize: 4 }))
      .subscribe({ error: (e: unknown) => (error = e) });
    if (!isSlowStartBatchError<number>(error)) throw new Error('expected a SlowStartBatchError');
    expect(error.unfinished).toEqual([factories[1], factories[3]]);
    expect(error.resumeFrom).toBe(4);
    slowStart(factories, { initialBatchSize: 4 }).subscribe({ error: (e: unknown) => (error = e) });
    if (!isSlowStartBatchError<number>(error)) throw new Error('expected a SlowStartBatchError');
    expect(error.unfinished).toEqual([factories[1], factories[3], factories[4], factories[5]]);
    expect(error.resumeFrom).toBe(6);
  });
});
