// Contract §7: unsubscribing tears down every running task (its subscription closes, its signal
// aborts), drops waiting factories and invokes nothing more, also from inside the consumer's `next`.
import { config, from, mergeMap, NEVER, Observable, of, Subject, take, takeUntil } from 'rxjs';
import { slowStart, slowStartBatch, type TaskContext, type TaskFactory } from '../../src/index';
import { batch } from '../support/helpers';
import { createScheduler, factoriesFor } from '../support/marbles';

/** Factories 0 to 3 that record their invocation. */
const recordingFactories = (invoked: number[]): TaskFactory<number>[] =>
  [0, 1, 2, 3].map((i) => () => {
    invoked.push(i);
    return of(i);
  });

describe('unsubscribing (§7)', () => {
  it('tears down running tasks and the source on early unsubscribe', () => {
    createScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const tasks = { a: cold('-A|'), b: cold('-----B|'), c: cold('------C|'), d: cold('-D|') };
      const source = cold('-a-bcd|', factoriesFor(tasks));
      expectObservable(source.pipe(slowStartBatch()), '-------!').toBe('---x', { x: batch(0, 0, ['A'], 1) });
      expectSubscriptions(tasks.b.subscriptions).toBe('----^--!');
      expectSubscriptions(tasks.c.subscriptions).toBe('----^--!');
      expectSubscriptions(tasks.d.subscriptions).toBe([]);
      // The source completed at frame 6; d was waiting for batch 2 and is dropped.
      expectSubscriptions(source.subscriptions).toBe('^-----!');
    });
  });

  it('does not break unsubscription chains', () => {
    createScheduler().run(({ cold, hot, expectObservable, expectSubscriptions }) => {
      const tasks = { a: cold('-A|'), b: cold('-----B|'), c: cold('------C|') };
      const source = hot('-a-bc--|', factoriesFor(tasks));
      const result = source.pipe(
        mergeMap((factory) => of(factory)),
        slowStartBatch(),
        mergeMap((value) => of(value)),
      );
      expectObservable(result, '------!').toBe('---x', { x: batch(0, 0, ['A'], 1) });
      expectSubscriptions(source.subscriptions).toBe('^-----!');
      expectSubscriptions(tasks.b.subscriptions).toBe('----^-!');
    });
  });

  it('aborts the signal of every running task and of no settled one', async () => {
    const signals: AbortSignal[] = [];
    const source = new Subject<TaskFactory<number>>();
    const subscription = source.pipe(slowStartBatch({ initialBatchSize: 4 })).subscribe();
    source.next(({ signal }) => {
      signals.push(signal);
      return of(1);
    });
    // Settles after its subscribe has returned, while the batch still runs.
    const settlesLater = new Subject<number>();
    source.next(({ signal }) => {
      signals.push(signal);
      return settlesLater;
    });
    source.next(({ signal }) => {
      signals.push(signal);
      return NEVER;
    });
    source.next(({ signal }) => {
      signals.push(signal);
      return new Promise<number>(() => undefined);
    });
    settlesLater.complete();
    expect(signals.map((signal) => signal.aborted)).toEqual([false, false, false, false]);
    subscription.unsubscribe();
    expect(signals.map((signal) => signal.aborted)).toEqual([false, false, true, true]);
  });

  it('hands a torn-down task that reads its signal late an aborted signal', () => {
    let context: TaskContext | undefined;
    const subscription = of<TaskFactory<never>>((taskContext) => {
      context = taskContext;
      return NEVER;
    })
      .pipe(slowStartBatch())
      .subscribe();
    subscription.unsubscribe();
    expect(context?.signal.aborted).toBe(true);
  });
});

describe('a consumer that unsubscribes inside next (§7)', () => {
  it('invokes no factory and pulls no source value after the consumer unsubscribes inside next', () => {
    let emitted = 0;
    let invoked = 0;
    const synchronousSource = new Observable<TaskFactory<number>>((subscriber) => {
      for (let index = 0; index < 1000 && !subscriber.closed; index++) {
        emitted++;
        subscriber.next(() => {
          invoked++;
          return of(index);
        });
      }
      subscriber.complete();
    });
    const sizes: number[] = [];
    // take(3) unsubscribes synchronously inside the third `next`, while the source is still emitting.
    synchronousSource.pipe(slowStartBatch(), take(3)).subscribe((result) => sizes.push(result.size));
    expect(sizes).toEqual([1, 2, 4]);
    expect(invoked).toBe(7);
    expect(emitted).toBe(7);

    // The same through from(array) and take(1). Found by the property tests: the teardown was only
    // registered once `subscribe` returned, so a synchronous source kept feeding batches after it.
    const invokedFromArray: number[] = [];
    const batchesFromArray: number[] = [];
    from(recordingFactories(invokedFromArray))
      .pipe(slowStartBatch(), take(1))
      .subscribe((result) => batchesFromArray.push(result.batch));
    expect(batchesFromArray).toEqual([0]);
    expect(invokedFromArray).toEqual([0]);
  });

  it('invokes no factory after the consumer unsubscribes inside next, also with a subject source', () => {
    const source = new Subject<TaskFactory<number>>();
    const invoked: number[] = [];
    const factory = (value: number) => () => {
      invoked.push(value);
      return of(value);
    };
    const subscription = source.pipe(slowStartBatch({ initialBatchSize: 1, growthFactor: 1 })).subscribe(() => {
      source.next(factory(2)); // arrives while the consumer is still inside next
      subscription.unsubscribe();
    });
    source.next(factory(1));
    source.next(factory(3));
    expect(invoked).toEqual([1]);
    expect(source.observed).toBe(false);
  });

  it('slowStart invokes nothing more when the consumer unsubscribes inside next over an array', () => {
    // Found by the property tests, like the case above.
    const invoked: number[] = [];
    slowStart(recordingFactories(invoked)).pipe(take(1)).subscribe();
    expect(invoked).toEqual([0]);
  });
});

describe('a consumer that unsubscribes while a task is subscribing', () => {
  it('tears that task down: its subscription is closed and its signal aborts (§7)', () => {
    let tornDown = false;
    let signal: AbortSignal | undefined;
    const task = new Observable<number>(() => {
      consumer.unsubscribe();
      return () => {
        tornDown = true;
      };
    });
    const source = new Subject<TaskFactory<number>>();
    const consumer = source.pipe(slowStartBatch()).subscribe();
    source.next((context) => {
      signal = context.signal;
      return task;
    });
    expect(tornDown).toBe(true);
    expect(signal?.aborted).toBe(true);
  });
});

describe('a consumer that unsubscribes while a factory runs', () => {
  afterEach(() => {
    config.onUnhandledError = null;
  });

  it('invokes nothing more and raises no error, not even an unhandled one', async () => {
    const unhandled: unknown[] = [];
    config.onUnhandledError = (error) => unhandled.push(error);
    const invoked: number[] = [];
    const errors: unknown[] = [];
    let subscribedTasks = 0;
    let signal: AbortSignal | undefined;
    const source = new Subject<TaskFactory<number>>();
    const consumer = source.pipe(slowStartBatch({ initialBatchSize: 2 })).subscribe({ error: (error: unknown) => errors.push(error) });
    source.next((context) => {
      invoked.push(0);
      signal = context.signal;
      consumer.unsubscribe();
      // What the factory returns after the unsubscription is never subscribed to.
      return new Observable<number>((subscriber) => {
        subscribedTasks++;
        subscriber.next(0);
        subscriber.complete();
      });
    });
    source.next(() => {
      invoked.push(1);
      return NEVER;
    });
    // RxJS reports an error thrown inside a subscriber from a timeout: wait for it.
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(invoked).toEqual([0]);
    expect(subscribedTasks).toBe(0);
    expect(signal?.aborted).toBe(true);
    expect(errors).toEqual([]);
    expect(unhandled).toEqual([]);
  });
});

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
