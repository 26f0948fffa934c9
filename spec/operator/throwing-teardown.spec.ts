/**
 * Teardown that goes wrong (§7, §11): a task whose teardown throws never stops its siblings from being
 * torn down, and a subscriber that is closed before the run starts leaves nothing subscribed.
 */
import { config, mergeMap, NEVER, Observable, of, Subject, takeUntil } from 'rxjs';
import { slowStart, slowStartBatch, type TaskContext, type TaskFactory } from '../../src/index';

async function withUnhandledErrors(body: (reported: unknown[]) => void | Promise<void>): Promise<void> {
  const reported: unknown[] = [];
  const previous = config.onUnhandledError;
  config.onUnhandledError = (error) => reported.push(error);
  try {
    await body(reported);
  } finally {
    config.onUnhandledError = previous;
  }
}

describe('a task teardown that throws (§11)', () => {
  it('does not stop the other tasks from being torn down or their signals from aborting', async () => {
    const failure = new Error('teardown failed');
    const signals: AbortSignal[] = [];
    const tornDown: number[] = [];
    const task =
      (throws: boolean): TaskFactory<never> =>
      ({ index, signal }: TaskContext) => {
        signals.push(signal);
        return new Observable<never>(() => () => {
          tornDown.push(index);
          if (throws) throw failure;
        });
      };
    await withUnhandledErrors(async (reported) => {
      const subscription = slowStart([task(true), task(false), task(true), task(false)], { initialBatchSize: 4 }).subscribe();
      expect(() => subscription.unsubscribe()).not.toThrow();
      expect(tornDown).toEqual([0, 1, 2, 3]);
      expect(signals.map((signal) => signal.aborted)).toEqual([true, true, true, true]);
      await new Promise((resolve) => setTimeout(resolve, 5));
      // Each failure is reported on its own, as RxJS reports what has nowhere to go.
      expect(reported).toHaveLength(2);
      for (const error of reported) expect(String(error)).toContain('teardown failed');
    });
  });

  it('does not stop the source from being released', async () => {
    let sourceSubscribed = false;
    const source = new Observable<TaskFactory<never>>((subscriber) => {
      sourceSubscribed = true;
      subscriber.next(
        () =>
          new Observable<never>(() => () => {
            throw new Error('teardown failed');
          }),
      );
      return () => (sourceSubscribed = false);
    });
    await withUnhandledErrors(async (reported) => {
      const subscription = source.pipe(slowStartBatch()).subscribe();
      subscription.unsubscribe();
      expect(sourceSubscribed).toBe(false);
      await new Promise((resolve) => setTimeout(resolve, 5));
      expect(reported).toHaveLength(1);
    });
  });
});

describe('a subscriber that is already closed (§7)', () => {
  it('leaves the source unsubscribed: a mergeMap whose project fires a takeUntil', () => {
    let subscribed = 0;
    let invoked = 0;
    const source = new Observable<TaskFactory<number>>((subscriber) => {
      subscribed++;
      subscriber.next(() => {
        invoked++;
        return of(1);
      });
      return () => subscribed--;
    });
    const stop = new Subject<void>();
    of(1)
      .pipe(
        mergeMap(() => {
          stop.next();
          return source.pipe(slowStartBatch());
        }),
        takeUntil(stop),
      )
      .subscribe();
    expect(subscribed).toBe(0);
    expect(invoked).toBe(0);
  });

  it('leaves an iterator unopened', () => {
    let opened = 0;
    const iterable = {
      [Symbol.iterator]: () => {
        opened++;
        return [() => NEVER][Symbol.iterator]();
      },
    };
    const stop = new Subject<void>();
    of(1)
      .pipe(
        mergeMap(() => {
          stop.next();
          return slowStart(iterable);
        }),
        takeUntil(stop),
      )
      .subscribe();
    expect(opened).toBe(0);
  });
});
