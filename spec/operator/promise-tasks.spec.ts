// Tasks that return native promises are followed without `from()` (see followPromise in
// src/rxjs-adapter.ts); these pin down that they still behave exactly as `from(promise)` would.
import { config, firstValueFrom, lastValueFrom, Subject, toArray, type SchedulerLike } from 'rxjs';
import { slowStart, slowStartBatch, type TaskFactory } from '../../src/index';
import { batch, errorsReportedLater } from '../support/helpers';

/** A promise with its resolve and reject, to settle tasks from the test. */
function deferred<T>() {
  let resolve!: (value: T) => void;
  let reject!: (reason: unknown) => void;
  const promise = new Promise<T>((onResolve, onReject) => {
    resolve = onResolve;
    reject = onReject;
  });
  return { promise, resolve, reject };
}

/** Lets every pending promise reaction run. */
const flushPromises = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('promise tasks', () => {
  it('take the value each promise resolves with, in source order, whatever order they settle in', async () => {
    const settleLater = [deferred<string>(), deferred<string>()];
    const tasks: TaskFactory<string>[] = [async () => 'a', () => settleLater[0].promise, () => settleLater[1].promise];
    const results = lastValueFrom(slowStart(tasks).pipe(toArray()));
    await flushPromises();
    settleLater[1].resolve('c');
    await flushPromises();
    settleLater[0].resolve('b');
    expect(await results).toEqual([batch(0, 0, ['a'], 1), batch(1, 1, ['b', 'c'], 3)]);
  });

  it('are ignored once the consumer has unsubscribed: a late settlement invokes and emits nothing', async () => {
    const pending = deferred<number>();
    const invoked: number[] = [];
    const emitted: unknown[] = [];
    const source = new Subject<TaskFactory<number>>();
    const subscription = source
      .pipe(slowStartBatch())
      .subscribe({ next: (result) => emitted.push(result), error: (error: unknown) => emitted.push(error) });
    source.next(() => {
      invoked.push(0);
      return pending.promise;
    });
    source.next(() => {
      invoked.push(1);
      return Promise.resolve(1);
    });
    subscription.unsubscribe();
    pending.resolve(0);
    await flushPromises();
    expect(invoked).toEqual([0]);
    expect(emitted).toEqual([]);
  });

  it('complete the stream after the last batch settles', async () => {
    const tasks: TaskFactory<number>[] = Array.from({ length: 7 }, (_, i) => async () => i);
    const first = await firstValueFrom(slowStart(tasks));
    expect(first).toEqual(batch(0, 0, [0], 1));
    const all = await lastValueFrom(slowStart(tasks).pipe(toArray()));
    expect(all.map((result) => result.size)).toEqual([1, 2, 4]);
  });

  // The settlement of the first task makes the run arm a flush timer for the second, and the scheduler
  // throws: `from(promise)` would report that as an unhandled error, and so must we.
  const broken = new Error('scheduler broke');
  async function settleWithABrokenScheduler(): Promise<unknown[]> {
    const scheduler = {
      now: () => 0,
      schedule: () => {
        throw broken;
      },
    };
    const source = new Subject<TaskFactory<number>>();
    const results: unknown[] = [];
    source
      .pipe(slowStartBatch({ flushAfter: 10, scheduler: scheduler as unknown as SchedulerLike }))
      .subscribe((result) => results.push(result));
    const first = deferred<number>();
    source.next(() => first.promise);
    source.next(() => Promise.resolve(2));
    first.resolve(1);
    await flushPromises();
    // RxJS reports from a timeout, like this one but scheduled earlier.
    await new Promise((resolve) => setTimeout(resolve, 0));
    return results;
  }

  it("hand a failure of the run's reaction to a settlement to config.onUnhandledError", async () => {
    const unhandled: unknown[] = [];
    config.onUnhandledError = (error) => unhandled.push(error);
    try {
      expect(await settleWithABrokenScheduler()).toEqual([batch(0, 0, [1], 1)]);
      expect(unhandled).toEqual([broken]);
    } finally {
      config.onUnhandledError = null;
    }
  });

  it("throw a failure of the run's reaction to a settlement from a timeout when no handler is configured", async () => {
    const reported = await errorsReportedLater(async () => {
      expect(await settleWithABrokenScheduler()).toEqual([batch(0, 0, [1], 1)]);
    });
    expect(reported).toEqual([broken]);
  });
});
