// The tasks that failed with a throttle and wait to be tried again, ahead of every new factory (§10).
import { Queue } from '../queue.js';
import type { ResultBook, ResultGroup } from '../result-book.js';
import type { Reporter } from './reporter.js';

/** A task that failed with a throttle and waits to be tried again. */
export interface Retry<T> {
  readonly group: ResultGroup<T>;
  readonly position: number;
  readonly factory: unknown;
  /** The try that failed, and why: the task's reason if it is never tried again. */
  readonly attempt: number;
  readonly reason: unknown;
}

/**
 * The queue of throttled tasks. It holds a `Queue` rather than extending it: the intake's queue of
 * factories is one too, and a second class of queue would make every queue operation on the way of
 * every start see two shapes.
 */
export class RetryQueue<T> {
  private readonly queue = new Queue<Retry<T>>();

  /**
   * @param book Where an abandoned task's result says why.
   * @param reporter Told of each task abandoned, when someone listens.
   */
  constructor(
    private readonly book: ResultBook<T>,
    private readonly reporter: Reporter<T> | undefined,
  ) {}

  /** How many tasks wait to be tried again. */
  get length(): number {
    return this.queue.length;
  }

  /** A throttled task waits to be tried again, after those waiting already. */
  push(retry: Retry<T>): void {
    this.queue.push(retry);
  }

  /** The task that has waited longest, to try it again; `undefined` when none waits. */
  shift(): Retry<T> | undefined {
    return this.queue.shift();
  }

  /** The run is ending: the tasks still waiting are not tried again; they are abandoned, with the reason of their last try. */
  abandon(): void {
    for (const { group, position, attempt, reason, factory } of this.queue.takeAll()) {
      this.book.reject(group, position, reason, factory, true);
      this.reporter?.abandoned(group, position, attempt, reason);
    }
  }
}
