// The push-based feed alone: an observable delivers factories whenever it likes, and says so.
import { of, Subject } from 'rxjs';
import type { FactorySink } from '../../src/host';
import { observableFeed } from '../../src/rxjs-adapter';

function recordingSink() {
  const events: unknown[] = [];
  const sink: FactorySink = {
    push: (factory) => events.push(['push', factory]),
    end: () => events.push(['end']),
    fail: (error) => events.push(['fail', error]),
    reportUnhandled: (error) => events.push(['unhandled', error]),
  };
  return { sink, events };
}

describe('observableFeed', () => {
  it('says that it pushes, so the runner need not work out what to ask it for', () => {
    const { sink } = recordingSink();
    expect(observableFeed(of())(sink).pushes).toBe(true);
  });

  it('delivers what the source emits, whatever it was asked for, then its end', () => {
    const { sink, events } = recordingSink();
    const feed = observableFeed(of('a', 'b'))(sink);
    feed.request(0);
    feed.start();
    expect(events).toEqual([['push', 'a'], ['push', 'b'], ['end']]);
  });

  it('drains with nothing undelivered and unsubscribes from the source', () => {
    const { sink, events } = recordingSink();
    const source = new Subject<string>();
    const feed = observableFeed(source)(sink);
    feed.start();
    const undelivered: unknown[][] = [];
    feed.drain((rest) => undelivered.push(rest));
    source.next('late');
    expect([undelivered, events, source.observed]).toEqual([[[]], [], false]);
  });
});
