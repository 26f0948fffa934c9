// Contract §3c: `flushAfter` starts a short batch once the oldest waiting factory has waited that long;
// its timer is the only thing the operator schedules, and nothing stays scheduled at the end (§7).
import { lastValueFrom, map, of, Subject, timer, toArray, VirtualTimeScheduler, type SchedulerLike } from 'rxjs';
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

describe('flushAfter at the edges (§3c, §11)', () => {
  it('fires when the oldest waiting factory sits at a chunk boundary of the arrival queue', () => {
    // Batches of 64 over 1,094 factories: the first batch empties the queue (which then starts again at
    // the front of its chunk), the next 16 consume 1,024 more arrivals, and the oldest waiting one is
    // the first of a new chunk.
    const scheduler = new VirtualTimeScheduler();
    const source = new Subject<TaskFactory<number>>();
    const invoked: number[] = [];
    let completed = false;
    source.pipe(slowStartBatch({ initialBatchSize: 64, growthFactor: 1, flushAfter: 10, scheduler })).subscribe({
      complete: () => (completed = true),
    });
    for (let i = 0; i < 1094; i++) {
      source.next(({ index }) => {
        invoked.push(index);
        return timer(1, scheduler).pipe(map(() => index));
      });
    }
    scheduler.flush();
    expect(invoked).toHaveLength(1094);
    source.complete();
    scheduler.flush();
    expect(completed).toBe(true);
  });

  it('starts the next batch at the settlement that finds the oldest waiting factory overdue, not one timer later', () => {
    let now = 0;
    const scheduled: number[] = [];
    const scheduler = {
      now: () => now,
      schedule: (_work: unknown, delay = 0) => {
        scheduled.push(delay);
        return { unsubscribe() {}, closed: false };
      },
    } as unknown as SchedulerLike;
    const source = new Subject<TaskFactory<number>>();
    const first = new Subject<number>();
    const invoked: number[] = [];
    source.pipe(slowStartBatch({ flushAfter: 5, scheduler })).subscribe();
    source.next(() => {
      invoked.push(0);
      return first;
    });
    // Batch 1 wants two factories; one arrives while batch 0 runs, and waits past flushAfter.
    now = 1;
    source.next(() => {
      invoked.push(1);
      return of(1);
    });
    now = 100;
    first.complete();
    expect(invoked).toEqual([0, 1]);
    expect(scheduled).toEqual([]);
  });

  it('is refused at call time when the platform cannot honour it (a timer of 2^31 ms or more)', () => {
    expect(() => slowStartBatch({ flushAfter: 2 ** 31 })).toThrow(
      new RangeError('Expected `flushAfter` to be a finite number of milliseconds from 0 to 2147483647, got 2147483648 (number)'),
    );
    expect(() => slowStartBatch({ flushAfter: 2 ** 31 - 1 })).not.toThrow();
  });
});
