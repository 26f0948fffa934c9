// Contract §3c: `flushAfter` starts a short batch once the oldest waiting factory has waited that long;
// its timer is the only thing the operator schedules, and nothing stays scheduled at the end (§7).
import { lastValueFrom, of, Subject, toArray, VirtualTimeScheduler } from 'rxjs';
import { slowStart, slowStartBatch, type TaskFactory } from '../../src/index';
import { batch } from '../support/helpers';
import { createScheduler, factoriesFor } from '../support/marbles';

const succeed =
  (value: number): TaskFactory<number> =>
  () =>
    of(value);

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

  it('flushes a short batch from slowStart() when an async iterable is slow', async () => {
    async function* factories() {
      yield succeed(0);
      yield succeed(1);
      await new Promise((resolve) => setTimeout(resolve, 200));
      yield succeed(2);
    }
    const results = await lastValueFrom(slowStart(factories(), { flushAfter: 20 }).pipe(toArray()));
    expect(results.map((result) => result.size)).toEqual([1, 1, 1]);
  });
});
