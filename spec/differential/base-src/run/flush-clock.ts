// `flushAfter` (§3c): a batch starts short once its oldest factory has waited that long. Made only
// when `flushAfter` is set, so a run without it never reads the clock for it.
import type { Cancellable, RunnerHost } from '../host.js';
import { Queue } from '../queue.js';

export class FlushClock {
  /** When each waiting factory arrived, oldest first: the same factories as the run's waiting queue. */
  private readonly arrivals = new Queue<number>();
  /** The flush timer, while one is scheduled. */
  private timer: Cancellable | undefined;
  /** Set when the oldest waiting factory has waited `flushAfter`: the next batch may start short. */
  due = false;

  /**
   * @param flushAfter The longest a factory waits for its batch to fill, in ms.
   * @param clock The host's clock and timers.
   * @param wake Called when the timer fires: the runner looks again at what may start.
   */
  constructor(
    private readonly flushAfter: number,
    private readonly clock: Pick<RunnerHost<unknown>, 'now' | 'schedule'>,
    private readonly wake: () => void,
  ) {}

  /** A factory has arrived. */
  arrived(): void {
    this.arrivals.push(this.clock.now());
  }

  /** The oldest waiting factory starts: a flush is spent by the batch it starts, and so is its timer. */
  started(): void {
    this.due = false;
    this.cancel();
    this.arrivals.shift();
  }

  /** When the last task in flight settles, an overdue flush starts the next batch now, not one timer later. */
  idle(): void {
    this.due ||= this.overdue();
  }

  /** Arms the timer for the oldest waiting factory, unless one is armed or nothing waits. */
  arm(): void {
    const oldest = this.arrivals.peek();
    if (this.timer !== undefined || oldest === undefined) return;
    const delay = Math.max(0, oldest + this.flushAfter - this.clock.now());
    this.timer = this.clock.schedule(() => {
      this.timer = undefined;
      this.due = true;
      this.wake();
    }, delay);
  }

  /** Nothing waits any more: the timer is cancelled and the arrivals forgotten. */
  close(): void {
    this.cancel();
    this.arrivals.takeAll();
  }

  /** Whether the oldest waiting factory has waited `flushAfter` or longer. */
  private overdue(): boolean {
    const oldest = this.arrivals.peek();
    return oldest !== undefined && this.clock.now() - oldest >= this.flushAfter;
  }

  private cancel(): void {
    this.timer?.unsubscribe();
    this.timer = undefined;
  }
}
