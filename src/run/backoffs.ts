// The tasks that failed with a transient failure and wait out their own backoff, alone (§14): the
// pace and every other task go on. When its time comes, a task joins the retry queue, ahead of every
// new factory, as a throttled one does after its pause.
import type { Cancellable, RunnerHost } from '../host.js';
import type { Retry, RetryQueue } from './retry-queue.js';

/** The host's clock and timers: all the backoffs need of it. */
type Clock = Pick<RunnerHost<unknown>, 'now' | 'schedule'>;

/** A task waiting out its backoff, until `due` on the host's clock. */
interface Backoff<T> {
  readonly retry: Retry<T>;
  readonly due: number;
}

export class Backoffs<T> {
  /** The tasks waiting, by the time each is due, the earliest first (ties in the order they came). */
  private readonly waiting: Backoff<T>[] = [];
  /** The one timer, armed for the earliest task, while one waits. */
  private timer: Cancellable | undefined;
  /** Set once nothing may start any more: no timer is armed after it. */
  private stopped = false;

  /**
   * @param clock The host's clock and timers.
   * @param retries Where a task goes when it is due.
   * @param wake Called when tasks have become due: the runner looks again at what may start.
   */
  constructor(
    private readonly clock: Clock,
    private readonly retries: RetryQueue<T>,
    private readonly wake: () => void,
  ) {}

  /** How many tasks wait out their backoff. */
  get length(): number {
    return this.waiting.length;
  }

  /** A task waits until `due`, with the clock at `now`. */
  push(retry: Retry<T>, due: number, now: number): void {
    const { waiting } = this;
    let at = waiting.length;
    while (at > 0 && waiting[at - 1].due > due) at--;
    waiting.splice(at, 0, { retry, due });
    // A task due before the one the timer waits for needs the timer sooner.
    if (at === 0) this.cancel();
    this.arm(now);
  }

  /** Nothing may start any more: the timer is cancelled, and none is armed again. */
  stop(): void {
    this.stopped = true;
    this.cancel();
  }

  /** The run is ending: every task waiting to be tried again, here or in the retry queue, is abandoned. */
  abandon(): void {
    for (const { retry } of this.waiting.splice(0)) this.retries.push(retry);
    this.retries.abandon();
  }

  /** Arms the timer for the earliest task, unless one is armed. */
  private arm(now: number): void {
    if (this.timer !== undefined || this.stopped || this.waiting.length === 0) return;
    this.timer = this.clock.schedule(
      () => {
        this.timer = undefined;
        this.due();
      },
      Math.max(0, this.waiting[0].due - now),
    );
  }

  /** The timer fired: the tasks now due join the retry queue, and the runner looks again. */
  private due(): void {
    const now = this.clock.now();
    const { waiting } = this;
    let count = 0;
    while (count < waiting.length && waiting[count].due <= now) count++;
    for (const { retry } of waiting.splice(0, count)) this.retries.push(retry);
    this.arm(now);
    if (count > 0) this.wake();
  }

  private cancel(): void {
    this.timer?.unsubscribe();
    this.timer = undefined;
  }
}
