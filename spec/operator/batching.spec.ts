// Contract §2 to §4: batch sizes, when a batch starts, concurrency within a batch, what a batch's
// result holds, the context each factory gets, and state per subscription (§8).
import { defer, from, lastValueFrom, map, of, retry, throwError, toArray } from 'rxjs';
import { slowStartBatch, type BatchResult, type TaskFactory } from '../../src/index';
import { batch } from '../support/helpers';
import { createScheduler, factoriesFor } from '../support/marbles';

describe('slowStartBatch() batches', () => {
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

  describe('the operator checklist', () => {
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

    it('keeps running while tasks never end, and stays subscribed to the source', () => {
      createScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
        const tasks = { a: cold('-') };
        const source = cold('a--|', factoriesFor(tasks));
        expectObservable(source.pipe(slowStartBatch())).toBe('-');
        expectSubscriptions(tasks.a.subscriptions).toBe('^');
      });
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

  describe('state per subscription (§8)', () => {
    it('restarts from batch 0 and initialBatchSize under retry()', async () => {
      let failNext = true;
      const tasks = Array.from(
        { length: 10 },
        (_, index): TaskFactory<number> =>
          () =>
            defer(() => {
              if (index === 4 && failNext) {
                failNext = false;
                return throwError(() => new Error('transient'));
              }
              return of(index);
            }),
      );
      const results = await lastValueFrom(from(tasks).pipe(slowStartBatch({ initialBatchSize: 2 }), retry(1), toArray()));
      // First run: [0, 1] succeeds, [2, 3, 4, 5] fails. The retry starts again with a batch of 2.
      expect(results.map((result) => [result.batch, result.startIndex, result.size])).toEqual([
        [0, 0, 2],
        [0, 0, 2],
        [1, 2, 4],
        [2, 6, 4],
      ]);
      expect(results.at(-1)?.successes).toBe(10);
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
});
