import { EMPTY, from, map, mergeMap, NEVER, Observable, of, Subject, take, VirtualTimeScheduler } from 'rxjs';
import { TestScheduler, type RunHelpers } from 'rxjs/testing';

type ColdObservable<T> = ReturnType<RunHelpers['cold']> & Observable<T>;
import { slowStartBatch, type BatchResult, type TaskContext, type TaskFactory } from '../../src/index';
import { batch, summarizeError } from '../support/helpers';

function createScheduler() {
  return new TestScheduler((actual, expected) => expect(actual).toEqual(expected));
}

/** One factory per cold task, keyed like the tasks, so that marbles can name them. */
function factoriesFor<T>(tasks: Record<string, ColdObservable<T>>): Record<string, TaskFactory<T>> {
  return Object.fromEntries(Object.entries(tasks).map(([key, task]) => [key, () => task]));
}

describe('slowStartBatch()', () => {
  it('runs batches of 1, 2, 4 as factories arrive, one result per batch, in source order', () => {
    createScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const tasks = { a: cold('-A|'), b: cold('--B|'), c: cold('-C|'), d: cold('-D|') };
      const source = cold('-a--b-c--d|', factoriesFor(tasks));
      const expected = '---x-----y--(z|)';
      expectObservable(source.pipe(slowStartBatch())).toBe(expected, {
        x: batch(0, 0, ['A'], 1),
        y: batch(1, 1, ['B', 'C'], 3),
        z: batch(2, 3, ['D'], 4),
      });
      expectSubscriptions(tasks.a.subscriptions).toBe('-^-!');
      expectSubscriptions(tasks.b.subscriptions).toBe('------^--!');
      expectSubscriptions(tasks.c.subscriptions).toBe('------^-!');
      // d waits for the source to complete: only then may a batch run short.
      expectSubscriptions(tasks.d.subscriptions).toBe('----------^-!');
      expectSubscriptions(source.subscriptions).toBe('^---------!');
    });
  });

  it('starts the next batch in the same frame as the last settlement of the previous one', () => {
    createScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const tasks = { a: cold('--A|'), b: cold('-B|'), c: cold('---C|') };
      const source = cold('(abc|)', factoriesFor(tasks));
      expectObservable(source.pipe(slowStartBatch())).toBe('---x---(y|)', { x: batch(0, 0, ['A'], 1), y: batch(1, 1, ['B', 'C'], 3) });
      expectSubscriptions(tasks.b.subscriptions).toBe('---^-!');
      expectSubscriptions(tasks.c.subscriptions).toBe('---^---!');
    });
  });

  it('takes the last value of each task, or undefined when a task emits none', () => {
    createScheduler().run(({ cold, expectObservable }) => {
      const tasks = { a: cold('-1-2-3|'), b: cold('--|'), c: cold('(45|)') };
      const source = cold('(abc|)', factoriesFor(tasks));
      expectObservable(source.pipe(slowStartBatch({ initialBatchSize: 3 }))).toBe('------(x|)', {
        x: batch(0, 0, ['3', undefined, '5'], 3),
      });
    });
  });

  it('waits for the whole failing batch, then errors with every outcome, without invoking more', () => {
    createScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const quota = new Error('quota exceeded');
      const tasks = { a: cold('-A|'), b: cold('----B|'), c: cold('-#', undefined, quota), d: cold('-D|'), e: cold('-E|') };
      const factories = factoriesFor(tasks);
      const source = cold('a--b-c-de|', factories);
      expectObservable(source.pipe(slowStartBatch(), summarizeError())).toBe('--x-------(y|)', {
        x: batch(0, 0, ['A'], 1),
        y: {
          name: 'SlowStartBatchError',
          message: 'slowStartBatch: 1 of 2 tasks failed in batch 1; 2 tasks succeeded in all; 2 tasks skipped',
          batch: 1,
          startIndex: 1,
          size: 2,
          successes: 2,
          results: [
            { index: 1, status: 'fulfilled', value: 'B' },
            { index: 2, status: 'rejected', reason: quota },
          ],
          cause: quota,
          skipped: 2,
          remaining: [factories.d, factories.e],
        },
      });
      // c failed at frame 6, but b runs to its end: a failure never cancels a sibling.
      expectSubscriptions(tasks.b.subscriptions).toBe('-----^----!');
      expectSubscriptions(tasks.c.subscriptions).toBe('-----^!');
      expectSubscriptions(tasks.d.subscriptions).toBe([]);
      expectSubscriptions(tasks.e.subscriptions).toBe([]);
      expectSubscriptions(source.subscriptions).toBe('^--------!');
    });
  });

  it('reports as cause the failure that happened first in time, not first in order', () => {
    createScheduler().run(({ cold, expectObservable }) => {
      const late = new Error('late');
      const early = new Error('early');
      const source = cold('(ab|)', factoriesFor({ a: cold('---#', undefined, late), b: cold('-#', undefined, early) }));
      const causes = source.pipe(slowStartBatch({ initialBatchSize: 2 }), summarizeError());
      expectObservable(causes).toBe('---(y|)', {
        y: expect.objectContaining({
          cause: early,
          successes: 0,
          results: [expect.objectContaining({ reason: late }), expect.objectContaining({ reason: early })],
        }),
      });
    });
  });

  it('subscribes at most `concurrency` tasks of a batch at once', () => {
    createScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const tasks = { a: cold('--A|'), b: cold('-B|'), c: cold('-C|'), d: cold('-D|') };
      const source = cold('(abcd|)', factoriesFor(tasks));
      expectObservable(source.pipe(slowStartBatch({ initialBatchSize: 4, concurrency: 2 }))).toBe('-----(x|)', {
        x: batch(0, 0, ['A', 'B', 'C', 'D'], 4),
      });
      expectSubscriptions(tasks.a.subscriptions).toBe('^--!');
      expectSubscriptions(tasks.b.subscriptions).toBe('^-!');
      expectSubscriptions(tasks.c.subscriptions).toBe('--^-!');
      expectSubscriptions(tasks.d.subscriptions).toBe('---^-!');
    });
  });

  it('grows by growthFactor up to maxBatchSize', () => {
    createScheduler().run(({ expectObservable }) => {
      const factories = Array.from({ length: 12 }, (_, index) => () => of(index));
      const sizes = from(factories).pipe(
        slowStartBatch({ initialBatchSize: 2, growthFactor: 1.5, maxBatchSize: 4 }),
        map((result) => result.size),
      );
      expectObservable(sizes).toBe('(abcd|)', { a: 2, b: 3, c: 4, d: 3 });
    });
  });

  describe('flushAfter', () => {
    it('starts a short batch when the first waiting factory has waited that long, and grows from what ran', () => {
      createScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
        const tasks = { a: cold('-A|'), b: cold('-B|'), c: cold('-C|'), d: cold('-D|') };
        const source = cold('-a--b-----cd---|', factoriesFor(tasks));
        expectObservable(source.pipe(slowStartBatch({ flushAfter: 3 }))).toBe('---x-----y---z-|', {
          x: batch(0, 0, ['A'], 1),
          y: batch(1, 1, ['B'], 2),
          z: batch(2, 2, ['C', 'D'], 4),
        });
        // b arrived at 4 and flushed at 7; c and d filled the batch of 2 at once.
        expectSubscriptions(tasks.b.subscriptions).toBe('-------^-!');
        expectSubscriptions(tasks.c.subscriptions).toBe('-----------^-!');
      });
    });

    it('measures from the oldest waiting factory, also when it arrived while a batch ran', () => {
      createScheduler().run(({ cold, expectObservable }) => {
        const source = cold('ab--------|', factoriesFor({ a: cold('-----A|'), b: cold('-B|') }));
        // b arrived at 1 and had waited 5 frames when a settled at 6: it runs at once.
        expectObservable(source.pipe(slowStartBatch({ flushAfter: 2 }))).toBe('------x-y-|', {
          x: batch(0, 0, ['A'], 1),
          y: batch(1, 1, ['B'], 2),
        });
      });
    });

    it('keeps one timer for the oldest waiting factory however many more arrive', () => {
      const scheduler = new VirtualTimeScheduler();
      const source = new Subject<TaskFactory<number>>();
      source.pipe(slowStartBatch({ flushAfter: 100, initialBatchSize: 4, scheduler })).subscribe();
      source.next(() => of(1));
      source.next(() => of(2));
      source.next(() => of(3));
      expect(scheduler.actions).toHaveLength(1);
      expect(scheduler.actions[0]?.delay).toBe(100);
    });

    it('does not let a flush that is spent start the batch after it early', () => {
      createScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
        const tasks = { a: cold('-----A|'), b: cold('-----B|'), c: cold('-C|') };
        // a and b flush together at 10 and settle at 16; c, arrived at 11, has waited its 10 frames at 21.
        const source = cold('ab---------c-------------------|', factoriesFor(tasks));
        expectObservable(source.pipe(slowStartBatch({ flushAfter: 10, initialBatchSize: 3 }))).toBe('----------------x------y-------|', {
          x: batch(0, 0, ['A', 'B'], 2),
          y: batch(1, 2, ['C'], 3),
        });
        expectSubscriptions(tasks.c.subscriptions).toBe('---------------------^-!');
      });
    });

    it('leaves no timer scheduled after completion, error or unsubscription', () => {
      const scheduler = new VirtualTimeScheduler();
      const source = new Subject<TaskFactory<number>>();
      const subscription = source.pipe(slowStartBatch({ flushAfter: 100, initialBatchSize: 2, scheduler })).subscribe();
      source.next(() => of(1));
      expect(scheduler.actions).toHaveLength(1);
      subscription.unsubscribe();
      expect(scheduler.actions).toHaveLength(0);

      const completing = new Subject<TaskFactory<number>>();
      completing.pipe(slowStartBatch({ flushAfter: 100, initialBatchSize: 2, scheduler })).subscribe();
      completing.next(() => of(1));
      completing.complete();
      expect(scheduler.actions).toHaveLength(0);

      const erroring = new Subject<TaskFactory<number>>();
      erroring.pipe(slowStartBatch({ flushAfter: 100, initialBatchSize: 2, scheduler })).subscribe({ error: () => undefined });
      erroring.next(() => of(1));
      erroring.error(new Error('source failed'));
      expect(scheduler.actions).toHaveLength(0);
    });
  });

  describe('source errors (§6)', () => {
    it('lets the running batch settle and emit, then delivers the source error', () => {
      createScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
        const tasks = { a: cold('---A|'), b: cold('-B|') };
        const source = cold('ab#', factoriesFor(tasks), 'source failed');
        expectObservable(source.pipe(slowStartBatch())).toBe('----(x#)', { x: batch(0, 0, ['A'], 1) }, 'source failed');
        expectSubscriptions(tasks.a.subscriptions).toBe('^---!');
        // b was waiting for batch 1 when the source failed: it is skipped.
        expectSubscriptions(tasks.b.subscriptions).toBe([]);
      });
    });

    it('skips factories still waiting for a batch', () => {
      createScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
        const tasks = { a: cold('-A|'), b: cold('-B|') };
        const source = cold('---a-#', factoriesFor(tasks), 'source failed');
        expectObservable(source.pipe(slowStartBatch({ initialBatchSize: 2 }))).toBe('-----#', undefined, 'source failed');
        expectSubscriptions(tasks.a.subscriptions).toBe([]);
      });
    });

    it('carries the source error on the SlowStartBatchError when the running batch failed', () => {
      createScheduler().run(({ cold, expectObservable }) => {
        const source = cold('ab#', factoriesFor({ a: cold('---#', undefined, 'task failed'), b: cold('-B|') }), 'source failed');
        expectObservable(source.pipe(slowStartBatch(), summarizeError())).toBe('---(y|)', {
          y: expect.objectContaining({ cause: 'task failed', sourceError: 'source failed', skipped: 1 }),
        });
      });
    });
  });

  describe('the operator checklist', () => {
    it('never emits for a source that never emits', () => {
      createScheduler().run(({ expectObservable }) => {
        expectObservable(NEVER.pipe(slowStartBatch())).toBe('-');
      });
    });

    it('completes without invoking anything for an empty source', () => {
      createScheduler().run(({ cold, expectObservable }) => {
        expectObservable(cold<TaskFactory<unknown>>('|').pipe(slowStartBatch())).toBe('|');
        expectObservable(EMPTY.pipe(slowStartBatch())).toBe('|');
      });
    });

    it('handles a single factory', () => {
      createScheduler().run(({ cold, expectObservable }) => {
        expectObservable(cold('a|', factoriesFor({ a: cold('--A|') })).pipe(slowStartBatch())).toBe('---(x|)', {
          x: batch(0, 0, ['A'], 1),
        });
      });
    });

    it('handles many factories arriving at once', () => {
      const factories = Array.from({ length: 100 }, (_, index) => () => of(index));
      const results: BatchResult<number>[] = [];
      from(factories)
        .pipe(slowStartBatch())
        .subscribe((result) => results.push(result));
      expect(results.map((result) => result.size)).toEqual([1, 2, 4, 8, 16, 32, 37]);
      expect(results.flatMap((result) => result.values)).toEqual(factories.map((_, index) => index));
    });

    it('propagates an immediate source error', () => {
      createScheduler().run(({ cold, expectObservable }) => {
        expectObservable(cold<TaskFactory<unknown>>('#', undefined, 'boom').pipe(slowStartBatch())).toBe('#', undefined, 'boom');
      });
    });

    it('keeps running while tasks never end, and stays subscribed to the source', () => {
      createScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
        const tasks = { a: cold('-') };
        const source = cold('a--|', factoriesFor(tasks));
        expectObservable(source.pipe(slowStartBatch())).toBe('-');
        expectSubscriptions(tasks.a.subscriptions).toBe('^');
      });
    });

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
    });
  });

  describe('teardown (§7)', () => {
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
  });

  describe('task context', () => {
    it('tells each factory its source index and batch', () => {
      const contexts: [number, number][] = [];
      const factory: TaskFactory<number> = ({ index, batch: batchIndex }) => {
        contexts.push([index, batchIndex]);
        return of(index);
      };
      from(Array.from({ length: 7 }, () => factory))
        .pipe(slowStartBatch())
        .subscribe();
      expect(contexts).toEqual([
        [0, 0],
        [1, 1],
        [2, 1],
        [3, 2],
        [4, 2],
        [5, 2],
        [6, 2],
      ]);
    });
  });

  it('starts again from batch 0 for every subscription', () => {
    const factories = Array.from({ length: 5 }, (_, index) => () => of(index));
    const operator = slowStartBatch<number>({ initialBatchSize: 2 });
    const runs = [1, 2].map(() => {
      const sizes: number[] = [];
      from(factories)
        .pipe(operator)
        .subscribe((result) => sizes.push(result.size));
      return sizes;
    });
    expect(runs).toEqual([
      [2, 3],
      [2, 3],
    ]);
  });
});
