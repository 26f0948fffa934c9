// The pull-based feeds on their own, driven the way the runner drives them: `request(count)` asks for
// `count` more factories (replacing any earlier request), `stop()` releases the source.
import type { FactoryFeed, FactorySink } from '../../src/host';
import { arrayFeed, asyncIterableFeed, iterableFeed } from '../../src/pull-feeds';

/** What a feed hands back when drained, for feeds that have nothing on its way. */
function drained(feed: FactoryFeed): unknown[] {
  let undelivered: unknown[] | undefined;
  feed.drain((handedBack) => (undelivered = handedBack));
  if (undelivered === undefined) throw new Error('the feed did not drain at once');
  return undelivered;
}

/** A sink that records what a feed delivered, in order. */
function recordingSink() {
  const events: unknown[] = [];
  const sink: FactorySink = {
    push: (factory) => events.push(factory),
    end: () => events.push('end'),
    fail: (error) => events.push({ failed: error }),
    reportUnhandled: (error) => events.push({ unhandled: error }),
  };
  return { sink, events };
}

/** Lets every pending promise callback run. */
async function settle(): Promise<void> {
  for (let turn = 0; turn < 10; turn++) await Promise.resolve();
}

/**
 * An async iterator over `values` whose `next()` calls resolve only when the test says, so that it can
 * see how many pulls are under way at once and stop the feed in the middle of one.
 */
function manualAsyncIterable(values: unknown[]) {
  const pending: { resolve: (step: IteratorResult<unknown>) => void; reject: (error: unknown) => void }[] = [];
  let position = 0;
  let returned = 0;
  const iterable: AsyncIterable<unknown> = {
    [Symbol.asyncIterator]: () => ({
      next: () =>
        new Promise<IteratorResult<unknown>>((resolve, reject) => {
          pending.push({ resolve, reject });
        }),
      return: () => {
        returned++;
        return Promise.resolve({ done: true, value: undefined });
      },
    }),
  };
  return {
    iterable,
    /** `next()` calls not answered yet. */
    get pending() {
      return pending.length;
    },
    get returned() {
      return returned;
    },
    /** Answers the oldest `next()` with the next value, or with `done` past the end. */
    async answer() {
      const call = pending.shift();
      if (call === undefined) throw new Error('no next() call is waiting');
      call.resolve(position < values.length ? { done: false, value: values[position++] } : { done: true, value: undefined });
      await settle();
    },
    async fail(error: unknown) {
      const call = pending.shift();
      if (call === undefined) throw new Error('no next() call is waiting');
      call.reject(error);
      await settle();
    },
  };
}

describe('arrayFeed()', () => {
  it('delivers what is requested, ends with the last element, and hands back the unread tail', () => {
    const { sink, events } = recordingSink();
    const feed = arrayFeed(['a', 'b', 'c'])(sink);
    feed.start();
    feed.request(2);
    expect(events).toEqual(['a', 'b']);
    feed.request(1);
    expect(events).toEqual(['a', 'b', 'c', 'end']);
    feed.request(5);
    expect(events).toEqual(['a', 'b', 'c', 'end']);
    expect(drained(feed)).toEqual([]);
  });

  it('hands back the unread tail when drained, and delivers nothing after', () => {
    const { sink, events } = recordingSink();
    const feed = arrayFeed(['a', 'b', 'c'])(sink);
    feed.start();
    feed.request(2);
    expect(drained(feed)).toEqual(['c']);
    feed.request(1);
    expect(events).toEqual(['a', 'b']);
  });

  it('ends an empty array at the first request, once', () => {
    const { sink, events } = recordingSink();
    const feed = arrayFeed([])(sink);
    feed.start();
    feed.request(0);
    feed.request(1);
    expect(events).toEqual(['end']);
  });

  it('delivers nothing once stopped, and still hands back the tail', () => {
    const { sink, events } = recordingSink();
    const feed = arrayFeed(['a', 'b'])(sink);
    feed.start();
    feed.stop();
    feed.request(2);
    expect(events).toEqual([]);
    expect(drained(feed)).toEqual(['a', 'b']);
  });
});

describe('iterableFeed()', () => {
  it('pulls exactly what is requested and ends when the iterator is done', () => {
    let pulls = 0;
    function* letters() {
      for (const letter of ['a', 'b']) {
        pulls++;
        yield letter;
      }
    }
    const { sink, events } = recordingSink();
    const feed = iterableFeed(letters())(sink);
    feed.request(1);
    expect(events).toEqual([]);
    feed.start();
    feed.request(1);
    expect([events, pulls]).toEqual([['a'], 1]);
    feed.request(5);
    expect([events, pulls]).toEqual([['a', 'b', 'end'], 2]);
    feed.request(1);
    expect(events).toEqual(['a', 'b', 'end']);
  });

  it('reports an iterator that throws, and pulls no more after it', () => {
    const failure = new Error('broken iterator');
    let pulls = 0;
    const iterable: Iterable<unknown> = {
      [Symbol.iterator]: () => ({
        next: () => {
          pulls++;
          throw failure;
        },
      }),
    };
    const { sink, events } = recordingSink();
    const feed = iterableFeed(iterable)(sink);
    feed.start();
    feed.request(3);
    feed.request(3);
    expect(events).toEqual([{ failed: failure }]);
    expect(pulls).toBe(1);
  });

  it('closes the iterator once when stopped early, and not after it is done', () => {
    let returned = 0;
    const iterable = (length: number): Iterable<unknown> => ({
      [Symbol.iterator]: () => {
        let position = 0;
        return {
          next: () => (position < length ? { done: false, value: position++ } : { done: true, value: undefined }),
          return: () => {
            returned++;
            return { done: true, value: undefined };
          },
        };
      },
    });
    const early = iterableFeed(iterable(3))(recordingSink().sink);
    early.start();
    early.request(1);
    early.stop();
    early.stop();
    expect(returned).toBe(1);

    const exhausted = iterableFeed(iterable(1))(recordingSink().sink);
    exhausted.start();
    exhausted.request(2);
    exhausted.stop();
    expect(returned).toBe(1);
  });
  // Found by mutation testing: what a broken iterator is told, and that any object, a function
  // included, is an iterator or an iterator result, as in the language.
  it('fails with a TypeError when [Symbol.iterator]() returns no object, and pulls nothing', () => {
    const { sink, events } = recordingSink();
    const feed = iterableFeed({ [Symbol.iterator]: () => 42 } as never)(sink);
    feed.start();
    feed.request(1);
    feed.stop();
    expect(events).toEqual([{ failed: new TypeError('Expected `tasks[Symbol.iterator]()` to be an iterator object, got 42 (number)') }]);
  });

  it('fails with a TypeError when next() returns no object', () => {
    const { sink, events } = recordingSink();
    const feed = iterableFeed({ [Symbol.iterator]: () => ({ next: () => 'a' }) } as never)(sink);
    feed.start();
    feed.request(1);
    expect(events).toEqual([{ failed: new TypeError('Expected `iterator.next()` to be an iterator result object, got "a" (string)') }]);
  });

  it('takes a function for an iterator and for an iterator result', () => {
    const step = Object.assign(() => undefined, { done: false, value: 'a' });
    const iterator = Object.assign(() => undefined, { next: () => step });
    const { sink, events } = recordingSink();
    const feed = iterableFeed({ [Symbol.iterator]: () => iterator })(sink);
    feed.start();
    feed.request(2);
    expect(events).toEqual(['a', 'a']);
  });
});

describe('asyncIterableFeed()', () => {
  it('keeps one pull under way at a time and stops pulling once the request is met', async () => {
    const source = manualAsyncIterable(['a', 'b', 'c', 'd']);
    const { sink, events } = recordingSink();
    const feed = asyncIterableFeed(source.iterable)(sink);
    feed.request(2);
    expect(source.pending).toBe(0);
    feed.start();
    feed.request(2);
    feed.request(2);
    expect(source.pending).toBe(1);
    await source.answer();
    expect([events, source.pending]).toEqual([['a'], 1]);
    await source.answer();
    expect([events, source.pending]).toEqual([['a', 'b'], 0]);
  });

  it('lets a pull under way finish when the request drops to 0, then pulls no more', async () => {
    const source = manualAsyncIterable(['a', 'b', 'c']);
    const { sink, events } = recordingSink();
    const feed = asyncIterableFeed(source.iterable)(sink);
    feed.start();
    feed.request(3);
    feed.request(0);
    await source.answer();
    expect([events, source.pending]).toEqual([['a'], 0]);
    feed.request(1);
    await source.answer();
    expect([events, source.pending]).toEqual([['a', 'b'], 0]);
  });

  it('ends once when the iterator is done, and pulls no more', async () => {
    const source = manualAsyncIterable(['a']);
    const { sink, events } = recordingSink();
    const feed = asyncIterableFeed(source.iterable)(sink);
    feed.start();
    feed.request(5);
    await source.answer();
    await source.answer();
    expect([events, source.pending]).toEqual([['a', 'end'], 0]);
    feed.request(5);
    feed.stop();
    expect([source.pending, source.returned]).toEqual([0, 0]);
  });

  it('reports a rejected next(), and pulls no more', async () => {
    const failure = new Error('stream broke');
    const source = manualAsyncIterable(['a', 'b']);
    const { sink, events } = recordingSink();
    const feed = asyncIterableFeed(source.iterable)(sink);
    feed.start();
    feed.request(2);
    await source.fail(failure);
    feed.request(2);
    expect([events, source.pending]).toEqual([[{ failed: failure }], 0]);
  });

  it('delivers nothing from a pull that was under way when it was stopped, and closes the iterator once', async () => {
    const source = manualAsyncIterable(['a', 'b']);
    const { sink, events } = recordingSink();
    const feed = asyncIterableFeed(source.iterable)(sink);
    feed.start();
    feed.request(2);
    feed.stop();
    feed.stop();
    await source.answer();
    expect([events, source.pending, source.returned]).toEqual([[], 0, 1]);

    const failing = manualAsyncIterable(['a']);
    const recorded = recordingSink();
    const stopped = asyncIterableFeed(failing.iterable)(recorded.sink);
    stopped.start();
    stopped.request(1);
    stopped.stop();
    await failing.fail(new Error('after the stop'));
    expect(recorded.events).toEqual([]);
  });

  it('fails with a TypeError when [Symbol.asyncIterator]() returns no object, and pulls nothing', () => {
    const { sink, events } = recordingSink();
    const feed = asyncIterableFeed({ [Symbol.asyncIterator]: () => null } as never)(sink);
    feed.start();
    feed.request(1);
    expect(events).toEqual([
      { failed: new TypeError('Expected `tasks[Symbol.asyncIterator]()` to be an async iterator object, got null (null)') },
    ]);
    expect(drained(feed)).toEqual([]);
  });

  it('drains at once, and closes the iterator, when no pull is under way', async () => {
    const idle = manualAsyncIterable(['a']);
    const before = asyncIterableFeed(idle.iterable)(recordingSink().sink);
    before.start();
    expect(drained(before)).toEqual([]);
    expect(idle.returned).toBe(1);

    const source = manualAsyncIterable(['a', 'b']);
    const { sink, events } = recordingSink();
    const after = asyncIterableFeed(source.iterable)(sink);
    after.start();
    after.request(1);
    await source.answer();
    expect(events).toEqual(['a']);
    expect(drained(after)).toEqual([]);
    expect([source.pending, source.returned]).toEqual([0, 1]);

    const failing = manualAsyncIterable(['a']);
    const failed = asyncIterableFeed(failing.iterable)(recordingSink().sink);
    failed.start();
    failed.request(1);
    await failing.fail(new Error('stream broke'));
    expect(drained(failed)).toEqual([]);
  });

  it('waits for a pull under way when drained, and hands back what it brings, or its failure', async () => {
    const source = manualAsyncIterable(['a', 'b']);
    const { sink, events } = recordingSink();
    const feed = asyncIterableFeed(source.iterable)(sink);
    feed.start();
    feed.request(2);
    const handedBack: unknown[] = [];
    feed.drain((undelivered, failure) => handedBack.push(undelivered, failure));
    expect(handedBack).toEqual([]);
    await source.answer();
    expect([handedBack, events, source.pending, source.returned]).toEqual([[['a'], undefined], [], 0, 1]);

    const error = new Error('stream broke');
    const failing = manualAsyncIterable(['a']);
    const drainedFailure = asyncIterableFeed(failing.iterable)(recordingSink().sink);
    drainedFailure.start();
    drainedFailure.request(1);
    const outcome: unknown[] = [];
    drainedFailure.drain((undelivered, failure) => outcome.push(undelivered, failure));
    await failing.fail(error);
    expect(outcome).toEqual([[], { error }]);
  });

  it('takes a function for an async iterator', async () => {
    const iterator = Object.assign(() => undefined, { next: () => Promise.resolve({ done: false, value: 'a' }) });
    const { sink, events } = recordingSink();
    const feed = asyncIterableFeed({ [Symbol.asyncIterator]: () => iterator })(sink);
    feed.start();
    feed.request(1);
    await settle();
    expect(events).toEqual(['a']);
  });
});
