// Feeds that pull factories from an array, an iterable or an async iterable only when the next batch
// needs them (contract §8): nothing is pulled after a failure, and an iterator left early is closed.
import type { FactoryFeed, FactorySink } from './batch-runner.js';

/** An array is read by position, so that its unread tail can be handed back as `remaining`. */
export function arrayFeed(array: ArrayLike<unknown>): (sink: FactorySink) => FactoryFeed {
  return (sink) => {
    /** Position of the next factory to deliver. */
    let next = 0;
    /** Set once stopped: a stopped feed delivers nothing. */
    let stopped = false;
    return {
      start() {},
      request(count) {
        for (let delivered = 0; delivered < count && next < array.length && !stopped; delivered++) {
          sink.push(array[next++]);
        }
        if (next >= array.length && !stopped) {
          stopped = true;
          sink.end();
        }
      },
      undelivered: () => Array.prototype.slice.call(array, next) as unknown[],
      stop() {
        stopped = true;
      },
    };
  };
}

/** A synchronous iterable; `iterable[Symbol.iterator]()` is called once per subscription. */
export function iterableFeed(iterable: Iterable<unknown>): (sink: FactorySink) => FactoryFeed {
  return (sink) => {
    /** This subscription's iterator. */
    let iterator: Iterator<unknown> | undefined;
    /** Set once the iterator is exhausted, has thrown, or was closed. */
    let done = false;
    return {
      start() {
        iterator = iterable[Symbol.iterator]();
      },
      request(count) {
        for (let delivered = 0; delivered < count && !done && iterator; delivered++) {
          let step: IteratorResult<unknown>;
          try {
            step = iterator.next();
          } catch (error) {
            done = true;
            sink.fail(error);
            return;
          }
          if (step.done) {
            done = true;
            sink.end();
            return;
          }
          sink.push(step.value);
        }
      },
      undelivered: () => [],
      stop() {
        if (done) return;
        done = true;
        closeIterator(() => iterator?.return?.());
      },
    };
  };
}

/**
 * An async iterable, pulled one factory at a time while the runner asks for more. A pull already
 * under way when the runner stops asking is let finish; its factory then waits for the next batch.
 */
export function asyncIterableFeed(iterable: AsyncIterable<unknown>): (sink: FactorySink) => FactoryFeed {
  return (sink) => {
    /** This subscription's iterator. */
    let iterator: AsyncIterator<unknown> | undefined;
    /** How many more factories the runner wants. */
    let demand = 0;
    /** Set while `pull` awaits the iterator, so that only one loop pulls at a time. */
    let pulling = false;
    /** Set once the iterator is exhausted, has thrown, or was closed. */
    let done = false;

    async function pull(source: AsyncIterator<unknown>): Promise<void> {
      pulling = true;
      while (demand > 0 && !done) {
        let step: IteratorResult<unknown>;
        try {
          step = await source.next();
        } catch (error) {
          // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- stop() may have run while next() was awaited
          if (!done) {
            done = true;
            sink.fail(error);
          }
          break;
        }
        // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- stop() may have run while next() was awaited
        if (done) break;
        if (step.done) {
          done = true;
          sink.end();
          break;
        }
        demand--;
        sink.push(step.value);
      }
      pulling = false;
    }

    return {
      start() {
        iterator = iterable[Symbol.asyncIterator]();
      },
      request(count) {
        demand = count;
        // With no demand, `pull` returns at once.
        if (!pulling && !done && iterator) {
          void pull(iterator);
        }
      },
      undelivered: () => [],
      stop() {
        if (done) return;
        done = true;
        closeIterator(() => iterator?.return?.());
      },
    };
  };
}

/**
 * Calls an iterator's `return()`. It runs while the stream is being torn down, where an exception
 * has no one to go to, so a failure is reported as an uncaught error instead of being swallowed.
 */
function closeIterator(close: () => unknown): void {
  try {
    const closing = close();
    if (closing instanceof Promise) {
      closing.catch(reportLater);
    }
  } catch (error) {
    reportLater(error);
  }
}

function reportLater(error: unknown): void {
  setTimeout(() => {
    throw error;
  });
}
