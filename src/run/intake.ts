// What the source has delivered and not started yet, and what it has been asked for: the run's side
// of a feed (§3, §6, §8).
import type { FactoryFeed, FactorySink } from '../host.js';
import { Queue } from '../queue.js';

export class Intake {
  /** Factories received and not invoked yet, oldest first. */
  private readonly waiting = new Queue<unknown>();
  /** How many factories the feed has been asked for and not yet delivered. */
  private requested = 0;
  private readonly feed: FactoryFeed;
  /** Set once the source has completed or errored: no more factories will come. */
  done = false;
  /** The source's error, boxed because any value, `undefined` included, can be an error. */
  error: { error: unknown } | undefined;

  constructor(createFeed: (sink: FactorySink) => FactoryFeed, sink: FactorySink) {
    this.feed = createFeed(sink);
  }

  /** How many factories wait. */
  get length(): number {
    return this.waiting.length;
  }

  /** Whether the feed delivers only what it is asked for (an array, an iterator), rather than pushing. */
  get pulls(): boolean {
    return this.feed.pushes !== true;
  }

  start(): void {
    this.feed.start();
  }

  /** The feed delivered a factory. */
  receive(factory: unknown): void {
    if (this.requested > 0) this.requested--;
    this.waiting.push(factory);
  }

  /** The oldest waiting factory, to start it. */
  take(): unknown {
    return this.waiting.shift();
  }

  /** Forgets the factories still waiting, and returns them: they will never start. */
  dropAll(): unknown[] {
    return this.waiting.takeAll();
  }

  /** Asks a lazy feed to have `count` factories on their way, unless that is what it was asked already. */
  request(count: number): void {
    if (count === this.requested) return;
    this.requested = count;
    this.feed.request(count);
  }

  /** The source completed. */
  end(): void {
    this.done = true;
  }

  /** The source errored; says whether that counts: an error after its end or its first error does not. */
  fail(error: unknown): boolean {
    if (this.done) return false;
    this.done = true;
    this.error = { error };
    return true;
  }

  /** Waits for a factory on its way (an async iterator's pull), then releases the source: none is lost. */
  drain(done: (undelivered: unknown[], failure?: { error: unknown }) => void): void {
    this.feed.drain(done);
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
