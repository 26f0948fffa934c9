// What the source has delivered and not started yet, and what it has been asked for: the run's side
// of a feed (§3, §6, §8).
import type { FactoryFeed, FactorySink } from '../host.js';
import { Queue } from '../queue.js';
import type { TaskKeys } from './task-keys.js';

/** What the intake tells the run of what the source does. */
export interface IntakeListener {
  /** A factory has arrived and waits. */
  arrived(): void;
  /** The source has completed. */
  ended(): void;
  /** A factory arrived that a resumed run leaves out: a lazy source is asked for another. */
  leftOut(): void;
  /** The source has errored, first and before its end: `error` holds it. */
  failed(): void;
  /** Takes an error that has nowhere to go, such as one thrown by an iterator's `return()`. */
  reportUnhandled(error: unknown): void;
}

/**
 * A factory the run must not take: the one at `index` in the source, refused with `reason()` (a task
 * whose key another task has already).
 */
export interface Refusal {
  readonly index: number;
  reason(): unknown;
}

/** The sink the feed delivers to; once the run has closed, what arrives is not kept. */
export class Intake implements FactorySink {
  /** Factories received and not invoked yet, oldest first. */
  private readonly waiting = new Queue<unknown>();
  /** How many factories the feed has been asked for and not yet delivered. */
  private requested = 0;
  private readonly feed: FactoryFeed;
  /** Set once the source has completed or errored: no more factories will come. */
  done = false;
  /** The source's error, boxed because any value, `undefined` included, can be an error. */
  error: { error: unknown } | undefined;
  /** Set once the run has closed: nothing that arrives may start. */
  private closed = false;
  /** The factories that waited when the run closed: none of them will start. */
  private closedWith: unknown[] | undefined;
  /** How many factories the feed has delivered: the index of the next. */
  private delivered = 0;
  /** Set once the refused factory has arrived: the source counts as failed there, and nothing after it is the run's. */
  private refused = false;

  /**
   * @param createFeed Makes the feed, with this intake as its sink.
   * @param refusal The factory to refuse, if any.
   * @param keys Which factories a resumed run leaves out.
   * @param listener Told of what the source does.
   */
  constructor(
    createFeed: (sink: FactorySink) => FactoryFeed,
    private readonly refusal: Refusal | undefined,
    private readonly keys: Pick<TaskKeys, 'leavesOut'>,
    private readonly listener: IntakeListener,
  ) {
    this.feed = createFeed(this);
  }

  /** How many factories wait. */
  get length(): number {
    return this.waiting.length;
  }

  /** Whether the feed delivers only what it is asked for (an array, an iterator), rather than pushing. */
  get pulls(): boolean {
    return this.feed.pushes !== true;
  }

  /** How many factories the source holds, when it says before it is read; `undefined` otherwise. */
  get total(): number | undefined {
    return this.feed.total;
  }

  /** How many factories the source has still to deliver: none once it is done, `Infinity` while it does not say. */
  get toCome(): number {
    if (this.done) return 0;
    return this.feed.total === undefined ? Infinity : this.feed.total - this.delivered;
  }

  start(): void {
    this.feed.start();
  }

  /** The feed delivers a factory. */
  push(factory: unknown): void {
    if (this.closed || this.refused) return;
    if (this.requested > 0) this.requested--;
    const position = this.delivered++;
    if (position === this.refusal?.index) {
      this.refuse(this.refusal.reason());
      return;
    }
    let leftOut;
    try {
      leftOut = this.keys.leavesOut(position);
    } catch (reason) {
      // A key from the `keys` function that is no key, or another task's.
      this.refuse(reason);
      return;
    }
    // A resumed run leaves out what its checkpoint has done: it is not the run's.
    if (leftOut) {
      this.listener.leftOut();
      return;
    }
    this.waiting.push(factory);
    this.listener.arrived();
  }

  /**
   * The refused factory has arrived: it is not kept, and the run goes on as if the source had failed
   * just before it, never with an exception thrown back at the source. The source is released at
   * once, before the run hears of the failure, so that nothing more arrives or is pulled. The run
   * fails with `reason`.
   */
  private refuse(reason: unknown): void {
    this.refused = true;
    this.release((error) => this.listener.reportUnhandled(error));
    this.fail(reason);
  }

  /** The oldest waiting factory, to start it. */
  take(): unknown {
    return this.waiting.shift();
  }

  /** Forgets the factories still waiting, and returns them: they will never start. */
  dropAll(): unknown[] {
    return this.waiting.takeAll();
  }

  /**
   * The run has closed: the factories waiting are forgotten, and returned, and so is any that arrives.
   * A later call returns the same ones: a run that failed and waits for a pull under way may still be
   * cancelled, and its end must account for them.
   */
  close(): unknown[] {
    this.closed = true;
    return (this.closedWith ??= this.dropAll());
  }

  /** Asks a lazy feed to have `count` factories on their way, unless that is what it was asked already. */
  request(count: number): void {
    if (count === this.requested) return;
    this.requested = count;
    this.feed.request(count);
  }

  /** The source completes. */
  end(): void {
    this.done = true;
    this.listener.ended();
  }

  /** The source errors; an error after its end or its first error, or once the run has closed, does not count. */
  fail(error: unknown): void {
    if (this.done || this.closed) return;
    this.done = true;
    this.error = { error };
    this.listener.failed();
  }

  reportUnhandled(error: unknown): void {
    this.listener.reportUnhandled(error);
  }

  /**
   * The factories the feed knows of and has not delivered (an array's tail), without pulling any; none
   * after a refusal, as the source failed there.
   */
  unread(): unknown[] {
    return this.refused ? [] : (this.feed.unread?.() ?? []);
  }

  /**
   * Waits for a factory on its way (an async iterator's pull), then releases the source: none is lost.
   * After a refusal the source is released already, and what it held is not the run's.
   */
  drain(done: (undelivered: unknown[], failure?: { error: unknown }) => void): void {
    if (this.refused) done([]);
    else this.feed.drain(done);
  }

  /** Releases the source; what its teardown throws has nowhere to go but `reportUnhandled`. */
  release(reportUnhandled: (error: unknown) => void): void {
    try {
      this.feed.stop();
    } catch (error) {
      reportUnhandled(error);
    }
  }
}
