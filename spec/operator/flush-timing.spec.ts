/** When `flushAfter` starts a short batch (§3c, §11). */
import { Subject, VirtualTimeScheduler, map, of, timer, type SchedulerLike } from 'rxjs';
import { slowStartBatch, type TaskFactory } from '../../src/index';

describe('flushAfter', () => {
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
