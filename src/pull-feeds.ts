// Feeds that pull factories from an array, an iterable or an async iterable only when the next batch
// needs them (contract §8): nothing is pulled after a failure, and an iterator left early is closed.
// An iterator that breaks the protocol fails the feed with a TypeError, as RxJS's `from()` does (§11).
import type { FactoryFeed, FactorySink } from './host.js';
import { expected } from './expected.js';

/** What `drain` is given: told of the factories the feed held or was pulling, and of that pull's error. */
type DrainCallback = (undelivered: unknown[], failure?: { error: unknown }) => void;

/** An array is read by position, so that its unread tail can be handed back as `remaining`. */
export function arrayFeed(array: ArrayLike<unknown>): (sink: FactorySink) => FactoryFeed {
  return (sink) => new ArrayFeed(array, sink);
}

/** `arrayFeed`'s feed, one per subscription. */
class ArrayFeed implements FactoryFeed {
  /** Position of the next factory to deliver. */
  private next = 0;
  /** Set once stopped: a stopped feed delivers nothing. */
  private stopped = false;

  constructor(
    private readonly array: ArrayLike<unknown>,
    private readonly sink: FactorySink,
  ) {}

  get total(): number {
    return this.array.length;
  }

  start(): void {}

  request(count: number): void {
    for (let delivered = 0; delivered < count && this.next < this.array.length && !this.stopped; delivered++) {
      this.sink.push(this.array[this.next++]);
    }
    if (this.next >= this.array.length && !this.stopped) {
      this.stopped = true;
      this.sink.end();
    }
  }

  drain(done: DrainCallback): void {
    this.stopped = true;
    done(this.unread());
  }

  stop(): void {
    this.stopped = true;
  }

  unread(): unknown[] {
    return Array.prototype.slice.call(this.array, this.next);
  }
}

/** A synchronous iterable; `iterable[Symbol.iterator]()` is called once per subscription. */
export function iterableFeed(iterable: Iterable<unknown>): (sink: FactorySink) => FactoryFeed {
  return (sink) => new IterableFeed(iterable, sink);
}

/** `iterableFeed`'s feed, one per subscription. */
class IterableFeed implements FactoryFeed {
  /** This subscription's iterator; without one (`start` found none), nothing is pulled or closed. */
  private iterator: Iterator<unknown> | undefined;
  /** Set once the iterator is exhausted, has thrown, or was closed. */
  private done = false;

  constructor(
    private readonly iterable: Iterable<unknown>,
    private readonly sink: FactorySink,
  ) {}

  start(): void {
    const opened: unknown = this.iterable[Symbol.iterator]();
    if (isObject(opened)) {
      this.iterator = opened as Iterator<unknown>;
    } else {
      this.sink.fail(new TypeError(expected('tasks[Symbol.iterator]()', 'an iterator object', opened)));
    }
  }

  request(count: number): void {
    for (let delivered = 0; delivered < count && !this.done && this.iterator; delivered++) {
      let step: IteratorResult<unknown>;
      try {
        step = checkedStep(this.iterator.next());
      } catch (error) {
        this.done = true;
        this.sink.fail(error);
        return;
      }
      if (step.done) {
        this.done = true;
        this.sink.end();
        return;
      }
      this.sink.push(step.value);
    }
  }

  // Nothing is ever on its way: a synchronous pull has finished when `request` returns.
  drain(finish: DrainCallback): void {
    this.stop();
    finish([]);
  }

  stop(): void {
    if (this.done) return;
    this.done = true;
    closeIterator(this.sink, () => this.iterator?.return?.());
  }
}

/**
 * An async iterable, pulled one factory at a time while the runner asks for more. A pull already
 * under way when the runner stops asking is let finish; its factory then waits for the next batch, or,
 * when the run has failed, is handed back by `drain`: a factory once pulled is never lost.
 */
export function asyncIterableFeed(iterable: AsyncIterable<unknown>): (sink: FactorySink) => FactoryFeed {
  return (sink) => new AsyncIterableFeed(iterable, sink);
}

/** `asyncIterableFeed`'s feed, one per subscription. */
class AsyncIterableFeed implements FactoryFeed {
  /** This subscription's iterator; without one (`start` found none), nothing is pulled or closed. */
  private iterator: AsyncIterator<unknown> | undefined;
  /** How many more factories the runner wants. */
  private demand = 0;
  /** Set while `pull` runs, so that only one loop pulls at a time. */
  private pulling = false;
  /** Set while `pull` awaits `next()`: a factory is on its way. */
  private awaiting = false;
  /** Set once the iterator is exhausted, has thrown, or was closed. */
  private done = false;
  /** Set by `drain` while a pull is under way: where that pull's factory goes instead of the sink. */
  private drained: DrainCallback | undefined;

  constructor(
    private readonly iterable: AsyncIterable<unknown>,
    private readonly sink: FactorySink,
  ) {}

  start(): void {
    const opened: unknown = this.iterable[Symbol.asyncIterator]();
    if (isObject(opened)) {
      this.iterator = opened as AsyncIterator<unknown>;
    } else {
      this.sink.fail(new TypeError(expected('tasks[Symbol.asyncIterator]()', 'an async iterator object', opened)));
    }
  }

  request(count: number): void {
    this.demand = count;
    // With no demand, `pull` returns at once.
    if (!this.pulling && !this.done && this.iterator) {
      void this.pull(this.iterator);
    }
  }

  drain(finish: DrainCallback): void {
    this.demand = 0;
    if (this.awaiting && !this.done) {
      this.drained = finish;
    } else {
      this.stop();
      finish([]);
    }
  }

  stop(): void {
    if (this.done) return;
    this.done = true;
    this.drained = undefined;
    closeIterator(this.sink, () => this.iterator?.return?.());
  }

  private async pull(source: AsyncIterator<unknown>): Promise<void> {
    this.pulling = true;
    while (this.demand > 0 && !this.done) {
      let step: IteratorResult<unknown>;
      this.awaiting = true;
      try {
        step = checkedStep(await source.next());
      } catch (error) {
        if (this.drained) {
          this.finishDrain([], { error });
          // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- stop() may have run while next() was awaited
        } else if (!this.done) {
          this.done = true;
          this.sink.fail(error);
        }
        break;
      } finally {
        this.awaiting = false;
      }
      // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- stop() may have run while next() was awaited
      if (this.done) break;
      // drain() may have run while next() was awaited.
      if (this.drained) {
        this.finishDrain(step.done ? [] : [step.value]);
        break;
      }
      if (step.done) {
        this.done = true;
        this.sink.end();
        break;
      }
      this.demand--;
      this.sink.push(step.value);
    }
    this.pulling = false;
  }

  /** Hands what the last pull brought to `drain`'s callback, then closes the iterator. */
  private finishDrain(undelivered: unknown[], failure?: { error: unknown }): void {
    const finish = this.drained as DrainCallback;
    this.stop();
    finish(undelivered, failure);
  }
}

function isObject(value: unknown): value is object {
  return (typeof value === 'object' && value !== null) || typeof value === 'function';
}

/** An iterator result must be an object (ECMAScript's IteratorNext throws a TypeError otherwise). */
function checkedStep(step: unknown): IteratorResult<unknown> {
  if (!isObject(step)) {
    throw new TypeError(expected('iterator.next()', 'an iterator result object', step));
  }
  return step as IteratorResult<unknown>;
}

/**
 * Calls an iterator's `return()`. It runs while the stream is being torn down, where an exception
 * has no one to go to, so a failure is reported as unhandled instead of being swallowed.
 */
function closeIterator(sink: FactorySink, close: () => unknown): void {
  try {
    const closing = close();
    if (closing instanceof Promise) {
      closing.catch((error: unknown) => sink.reportUnhandled(error));
    }
  } catch (error) {
    sink.reportUnhandled(error);
  }
}
