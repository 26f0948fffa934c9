// The tries of a run waiting for the `limiter` option's bucket: they ask it one at a time, in the order
// they started, so that a retry still goes ahead of new tasks and new tasks go in source order; the
// waits it answers are on the run's scheduler.
import type { Cancellable, RunnerHost } from '../host.js';
import { expected } from '../expected.js';
import type { StartLimiter } from '../start-limiter.js';
import { MAX_TIMER_DELAY } from '../timer-limit.js';

/** The reason of a try that waited for its start when the run stopped: it fails without being called. */
export const WITHDRAWN = 'The run stopped before the limiter granted this try its start';

/** A try waiting for its start: what to do once granted, or once the limiter fails it. */
interface Waiting {
  readonly go: () => void;
  readonly fail: (reason: unknown) => void;
}

export class LimiterQueue {
  /** The tries waiting, the one asking first. */
  private readonly waiting: Waiting[] = [];
  /** The wait before the first asks again, if one is under way. */
  private timer: Cancellable | undefined;
  /** Counts the questions asked: an answer to an earlier one, for a try gone since, is not used. */
  private asked = 0;

  constructor(
    private readonly limiter: StartLimiter,
    private readonly host: Pick<RunnerHost<unknown>, 'schedule'>,
  ) {}

  /**
   * Queues a try: `go` is called once the limiter grants it a start, after every try queued before it,
   * or `fail` with what the limiter threw or rejected with, or with a `TypeError` for an answer that is
   * no wait. Cancelling it takes it out of the queue: a start granted to it after that is not used.
   */
  wait(go: () => void, fail: (reason: unknown) => void): Cancellable {
    const entry: Waiting = { go, fail };
    this.waiting.push(entry);
    if (this.waiting.length === 1) this.ask();
    return {
      unsubscribe: () => {
        const at = this.waiting.indexOf(entry);
        if (at === -1) return;
        this.waiting.splice(at, 1);
        if (at > 0) return;
        // The first left while it asked: the next asks now.
        this.timer?.unsubscribe();
        this.timer = undefined;
        this.asked++;
        if (this.waiting.length > 0) this.ask();
      },
    };
  }

  /**
   * The run starts nothing more: every try still waiting fails with `reason`, in the order they
   * started, and the limiter is asked nothing more for them.
   */
  withdraw(reason: () => unknown): void {
    this.timer?.unsubscribe();
    this.timer = undefined;
    this.asked++;
    for (const entry of this.waiting.splice(0)) entry.fail(reason());
  }

  /** The first waiting try asks for its start. */
  private ask(): void {
    this.timer = undefined;
    const question = ++this.asked;
    let answer: unknown;
    try {
      answer = this.limiter.take();
    } catch (reason) {
      this.settle(question, undefined, reason);
      return;
    }
    // Read as unknown: a user's JavaScript may answer anything.
    const then = typeof answer === 'object' && answer !== null ? (answer as { then?: unknown }).then : undefined;
    if (typeof then !== 'function') this.answered(question, answer);
    else {
      (then as PromiseLike<unknown>['then']).call(
        answer,
        (wait) => this.answered(question, wait),
        (reason: unknown) => this.settle(question, undefined, reason),
      );
    }
  }

  /** The limiter answered `wait` to `question`: the first goes, or asks again after the wait. */
  private answered(question: number, wait: unknown): void {
    if (question !== this.asked) return;
    if (typeof wait !== 'number' || !(wait >= 0)) {
      this.settle(
        question,
        undefined,
        new TypeError(expected('limiter.take()', 'answering 0 or the milliseconds to wait, or a promise of them', wait)),
      );
    } else if (wait === 0) {
      this.settle(question, this.waiting[0].go);
    } else {
      this.timer = this.host.schedule(() => this.ask(), Math.min(wait, MAX_TIMER_DELAY));
    }
  }

  /** The first is done waiting, gone or failed: it leaves the queue, and the next asks. */
  private settle(question: number, go: (() => void) | undefined, reason?: unknown): void {
    if (question !== this.asked) return;
    const first = this.waiting.shift();
    this.asked++;
    if (go !== undefined) go();
    else first?.fail(reason);
    if (this.waiting.length > 0 && this.timer === undefined && this.asked === question + 1) this.ask();
  }
}
