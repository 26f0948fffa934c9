// The runner on a host made of plain callbacks, without RxJS: the shape an adapter for RxJS's next
// major (or any other reactive library) would have. Such a host gives none of RxJS's guarantees (a task
// may notify twice, a feed may push after it was stopped), so the runner must hold on its own.
import type { Cancellable, FactoryFeed, FactorySink, TaskObserver } from '../../src/host';
import { createRunner } from '../../src/runner';
import { resolveOptions } from '../../src/resolve-options';
import type { BatchResult } from '../../src/types';

/** A task the test settles by hand: what the factories in this spec return. */
class ManualTask {
  observer: TaskObserver | undefined;
  cancelled = false;
}

/**
 * A feed the test drives: it records what the runner requests and pushes whatever the test says.
 * `pushes` makes it a push-based feed; `stopError` is thrown by its `stop()`.
 */
function manualFeed({ pushes, stopError }: { pushes?: true; stopError?: Error } = {}) {
  const requests: number[] = [];
  let sink: FactorySink | undefined;
  let stops = 0;
  const create = (given: FactorySink): FactoryFeed => {
    sink = given;
    return {
      pushes,
      start() {},
      request: (count) => requests.push(count),
      drain: (done) => {
        stops++;
        done([]);
      },
      stop: () => {
        stops++;
        if (stopError !== undefined) throw stopError;
      },
    };
  };
  return {
    create,
    requests,
    get stops() {
      return stops;
    },
    get sink(): FactorySink {
      if (sink === undefined) throw new Error('the runner has not made its feed yet');
      return sink;
    },
  };
}

/**
 * A host whose notifications land in `events` and whose timers run only when the test says. It counts
 * its clock's reads, and calls `onEmit` after recording each result (to unsubscribe there, say).
 */
function plainHost() {
  const events: (['emit', BatchResult<unknown>] | ['error', unknown] | ['complete'])[] = [];
  const unhandled: unknown[] = [];
  let now = 0;
  const clock = { reads: 0 };
  const timers: { at: number; action: () => void; cancelled: boolean }[] = [];
  const hooks: { onEmit?: () => void } = {};
  return {
    events,
    timers,
    unhandled,
    hooks,
    clock,
    advanceTo: (time: number) => {
      now = time;
      for (const timer of timers.filter((entry) => !entry.cancelled && entry.at <= time)) {
        timer.cancelled = true;
        timer.action();
      }
    },
    host: {
      subscribeTask(input: unknown, observer: TaskObserver): Cancellable {
        if (!(input instanceof ManualTask)) throw new TypeError('not a ManualTask');
        input.observer = observer;
        return {
          unsubscribe: () => {
            input.cancelled = true;
          },
        };
      },
      now: () => {
        clock.reads++;
        return now;
      },
      schedule(action: () => void, delay: number): Cancellable {
        const timer = { at: now + delay, action, cancelled: false };
        timers.push(timer);
        return {
          unsubscribe: () => {
            timer.cancelled = true;
          },
        };
      },
      emit: (result: BatchResult<unknown>) => {
        events.push(['emit', result]);
        hooks.onEmit?.();
      },
      error: (error: unknown) => events.push(['error', error]),
      complete: () => events.push(['complete']),
      reportUnhandled: (error: unknown) => unhandled.push(error),
    },
  };
}

/** A factory for `task`, counting its calls in `invoked`. */
function factoryOf(task: ManualTask, invoked: ManualTask[]) {
  return () => {
    invoked.push(task);
    return task;
  };
}

function setUp(options?: object, feedOptions?: Parameters<typeof manualFeed>[0]) {
  const feed = manualFeed(feedOptions);
  const plain = plainHost();
  const runner = createRunner(plain.host, feed.create, resolveOptions(options));
  runner.start();
  return { feed, runner, ...plain };
}

/** Timers scheduled and not cancelled or run. */
const pendingTimers = (timers: ReturnType<typeof plainHost>['timers']) => timers.filter(({ cancelled }) => !cancelled);

describe('createRunner() on a host without RxJS', () => {
  it('asks the feed for exactly what the next batch still lacks, and for nothing more while a batch runs', () => {
    const { feed, events } = setUp();
    const invoked: ManualTask[] = [];
    const tasks = Array.from({ length: 3 }, () => new ManualTask());
    expect(feed.requests).toEqual([1]);
    // What was asked for has come: the feed owes nothing, and is asked for nothing while the batch runs.
    feed.sink.push(factoryOf(tasks[0], invoked));
    expect(feed.requests).toEqual([1]);
    tasks[0].observer!.complete();
    // Batch 1 wants 2 and nothing waits.
    expect(feed.requests).toEqual([1, 2]);
    // One waits: the feed still owes one, which is all batch 1 lacks.
    feed.sink.push(factoryOf(tasks[1], invoked));
    expect(feed.requests).toEqual([1, 2]);
    feed.sink.push(factoryOf(tasks[2], invoked));
    expect(feed.requests).toEqual([1, 2]);
    expect(invoked).toEqual(tasks);
    expect(events).toEqual([['emit', { batch: 0, startIndex: 0, size: 1, values: [undefined], successes: 1, itemFailures: [] }]]);
  });

  it('counts a task that notifies twice once', () => {
    const { feed, events } = setUp({ initialBatchSize: 2 });
    const [first, second] = [new ManualTask(), new ManualTask()];
    feed.sink.push(factoryOf(first, []));
    feed.sink.push(factoryOf(second, []));
    first.observer!.next('a');
    first.observer!.complete();
    first.observer!.complete();
    first.observer!.error(new Error('late'));
    expect(events).toEqual([]);
    second.observer!.next('b');
    second.observer!.complete();
    expect(events).toEqual([['emit', { batch: 0, startIndex: 0, size: 2, values: ['a', 'b'], successes: 2, itemFailures: [] }]]);
  });

  it('ignores what the feed delivers after the run has ended', () => {
    const failure = new Error('quota');
    const { feed, events } = setUp();
    const invoked: ManualTask[] = [];
    const task = new ManualTask();
    feed.sink.push(factoryOf(task, invoked));
    task.observer!.error(failure);
    expect(feed.stops).toBe(1);
    expect(events).toHaveLength(1);
    const requestsAtTheEnd = [...feed.requests];
    const late = new ManualTask();
    feed.sink.push(factoryOf(late, invoked));
    feed.sink.end();
    feed.sink.fail(new Error('late source error'));
    expect(invoked).toEqual([task]);
    expect(feed.requests).toEqual(requestsAtTheEnd);
    expect(events).toHaveLength(1);
    expect(events[0]?.[0]).toBe('error');
  });

  it('ignores an end or an error of the feed after its first one', () => {
    const { feed, events } = setUp({ initialBatchSize: 2 });
    const task = new ManualTask();
    feed.sink.push(factoryOf(task, []));
    feed.sink.end();
    feed.sink.fail(new Error('after the end'));
    task.observer!.complete();
    expect(events).toEqual([
      ['emit', { batch: 0, startIndex: 0, size: 1, values: [undefined], successes: 1, itemFailures: [] }],
      ['complete'],
    ]);

    const failing = setUp();
    const sourceError = new Error('source failed');
    const other = new ManualTask();
    failing.feed.sink.push(factoryOf(other, []));
    failing.feed.sink.fail(sourceError);
    failing.feed.sink.fail(new Error('second error'));
    failing.feed.sink.end();
    other.observer!.complete();
    expect(failing.events.map(([kind]) => kind)).toEqual(['emit', 'error']);
    expect(failing.events[1]).toEqual(['error', sourceError]);
  });

  it('ignores a task that settles after the run was stopped, and tears down each running task once', () => {
    const { feed, runner, events } = setUp({ initialBatchSize: 2 });
    const [first, second] = [new ManualTask(), new ManualTask()];
    feed.sink.push(factoryOf(first, []));
    feed.sink.push(factoryOf(second, []));
    runner.stop();
    expect([first.cancelled, second.cancelled]).toEqual([true, true]);
    first.observer!.complete();
    second.observer!.error(new Error('after the stop'));
    runner.stop();
    expect(feed.stops).toBe(1);
    expect(events).toEqual([]);
  });

  it('arms one flush timer for the oldest waiting factory and none once the batch has started', () => {
    const { feed, timers, advanceTo, events } = setUp({ initialBatchSize: 3, flushAfter: 10 });
    const tasks = [new ManualTask(), new ManualTask()];
    feed.sink.push(factoryOf(tasks[0], []));
    advanceTo(4);
    feed.sink.push(factoryOf(tasks[1], []));
    expect(timers.map(({ at }) => at)).toEqual([10]);
    advanceTo(10);
    expect(tasks.map((task) => task.observer !== undefined)).toEqual([true, true]);
    tasks[0].observer!.complete();
    tasks[1].observer!.complete();
    expect(events).toHaveLength(1);
    // Nothing waits now: no timer is armed until a factory arrives.
    expect(timers.filter(({ cancelled }) => !cancelled)).toEqual([]);
  });

  // What follows pins work the runner must not do: each case was found by mutation testing, as a
  // change to the runner that no behaviour seen through RxJS revealed.

  it('never reads the clock nor schedules a timer without flushAfter or a throttle', () => {
    const { feed, timers, events, clock } = setUp();
    const tasks = [new ManualTask(), new ManualTask()];
    feed.sink.push(factoryOf(tasks[0], []));
    tasks[0].observer!.complete();
    // One factory waits for a batch of two, with nothing in flight: without flushAfter it just waits.
    feed.sink.push(factoryOf(tasks[1], []));
    expect(tasks[1].observer).toBeUndefined();
    feed.sink.end();
    tasks[1].observer!.complete();
    expect(events.map(([kind]) => kind)).toEqual(['emit', 'emit', 'complete']);
    expect(timers).toEqual([]);
    expect(clock.reads).toBe(0);
  });

  it('asks nothing of a feed that pushes', () => {
    const { feed, events } = setUp({ initialBatchSize: 2 }, { pushes: true });
    const tasks = [new ManualTask(), new ManualTask(), new ManualTask()];
    tasks.forEach((task) => feed.sink.push(factoryOf(task, [])));
    tasks[0].observer!.complete();
    tasks[1].observer!.complete();
    // The third waits for a batch of four until the feed ends.
    feed.sink.end();
    tasks[2].observer!.complete();
    expect(events.map(([kind]) => kind)).toEqual(['emit', 'emit', 'complete']);
    expect(feed.requests).toEqual([]);
  });

  it('keeps its request when a lazy feed delivers more than it was asked for', () => {
    const { feed } = setUp();
    const tasks = [new ManualTask(), new ManualTask()];
    feed.sink.push(factoryOf(tasks[0], []));
    // Not asked for: the batch of one runs, and the feed owes nothing either way.
    feed.sink.push(factoryOf(tasks[1], []));
    expect(feed.requests).toEqual([1]);
  });

  it('asks a feed that has ended for nothing more', () => {
    const { feed, events } = setUp();
    const tasks = [new ManualTask(), new ManualTask()];
    feed.sink.push(factoryOf(tasks[0], []));
    // The feed sends one more than it was asked for, then ends, while the first batch runs.
    feed.sink.push(factoryOf(tasks[1], []));
    feed.sink.end();
    tasks[0].observer!.complete();
    // The last batch holds the one left; the feed, which has ended, is not asked to fill it.
    expect(tasks[1].observer).toBeDefined();
    tasks[1].observer!.complete();
    expect(events.map(([kind]) => kind)).toEqual(['emit', 'emit', 'complete']);
    expect(feed.requests).toEqual([1]);
  });

  it('arms nothing and asks for nothing when a factory comes after the subscriber left', () => {
    const { feed, runner, timers } = setUp({ flushAfter: 10 });
    const tasks = [new ManualTask(), new ManualTask()];
    feed.sink.push(factoryOf(tasks[0], []));
    tasks[0].observer!.complete();
    expect(feed.requests).toEqual([1, 2]);
    runner.stop();
    feed.sink.push(factoryOf(tasks[1], []));
    expect(tasks[1].observer).toBeUndefined();
    expect(pendingTimers(timers)).toEqual([]);
    expect(feed.requests).toEqual([1, 2]);
  });

  // In window pacing a result of two that got one task is emitted only once the end is known: while
  // the stream is being ended, by the same call that would then complete it or send the source's error.
  it('sends no completion to a subscriber that left on the last result', () => {
    const { feed, runner, events, hooks } = setUp({ pacing: 'window', initialBatchSize: 2 });
    hooks.onEmit = () => runner.stop();
    const task = new ManualTask();
    feed.sink.push(factoryOf(task, []));
    feed.sink.end();
    task.observer!.complete();
    expect(events.map(([kind]) => kind)).toEqual(['emit']);
    expect(feed.stops).toBe(1);
  });

  it('sends no source error to a subscriber that left on the result before it', () => {
    const { feed, runner, events, hooks } = setUp({ pacing: 'window', initialBatchSize: 2 });
    hooks.onEmit = () => runner.stop();
    const task = new ManualTask();
    feed.sink.push(factoryOf(task, []));
    feed.sink.fail(new Error('source failed'));
    task.observer!.complete();
    expect(events.map(([kind]) => kind)).toEqual(['emit']);
    expect(feed.stops).toBe(1);
  });

  it('cancels the flush timer when the batch fills before flushAfter', () => {
    const { feed, timers, advanceTo } = setUp({ initialBatchSize: 2, flushAfter: 10 });
    const tasks = [new ManualTask(), new ManualTask(), new ManualTask(), new ManualTask()];
    feed.sink.push(factoryOf(tasks[0], []));
    expect(pendingTimers(timers).map(({ at }) => at)).toEqual([10]);
    advanceTo(4);
    feed.sink.push(factoryOf(tasks[1], []));
    expect(pendingTimers(timers)).toEqual([]);
    // Had it stayed armed, it would flush the next batch at 10 with one factory of the four it wants.
    tasks[0].observer!.complete();
    tasks[1].observer!.complete();
    feed.sink.push(factoryOf(tasks[2], []));
    advanceTo(10);
    expect(tasks[2].observer).toBeUndefined();
  });

  it('arms no flush timer while a batch runs, and starts the next batch when the last task settles at flushAfter', () => {
    const { feed, timers, advanceTo } = setUp({ flushAfter: 10 });
    const tasks = [new ManualTask(), new ManualTask()];
    feed.sink.push(factoryOf(tasks[0], []));
    feed.sink.push(factoryOf(tasks[1], []));
    expect(timers).toEqual([]);
    // The second factory has waited exactly flushAfter when the first task settles: it is due now.
    advanceTo(10);
    tasks[0].observer!.complete();
    expect(tasks[1].observer).toBeDefined();
    expect(timers).toEqual([]);
  });

  it('still tears down a long task after trimming the settled ones from its list', () => {
    const { feed, runner } = setUp({ pacing: 'window', initialBatchSize: 2, maxBatchSize: 2 });
    const long = new ManualTask();
    const quick = Array.from({ length: 40 }, () => new ManualTask());
    feed.sink.push(factoryOf(long, []));
    for (const task of quick) {
      feed.sink.push(factoryOf(task, []));
      task.observer!.complete();
    }
    runner.stop();
    expect(long.cancelled).toBe(true);
  });

  it("reports what the feed's teardown throws, and still ends the stream", () => {
    const teardownError = new Error('teardown failed');
    const { feed, events, unhandled } = setUp({}, { stopError: teardownError });
    const task = new ManualTask();
    feed.sink.push(factoryOf(task, []));
    feed.sink.end();
    task.observer!.complete();
    expect(events.map(([kind]) => kind)).toEqual(['emit', 'complete']);
    expect(unhandled).toEqual([teardownError]);
  });

  // What follows was found by mutation testing of the runner in its pieces (src/run/).

  it('reads no clock and asks for nothing when a factory comes after the subscriber left', () => {
    const { feed, runner, clock } = setUp({ flushAfter: 10 });
    const task = new ManualTask();
    feed.sink.push(factoryOf(task, []));
    task.observer!.complete();
    runner.stop();
    const reads = clock.reads;
    feed.sink.push(factoryOf(new ManualTask(), []));
    expect(clock.reads).toBe(reads);
    expect(feed.requests).toEqual([1, 2]);
  });

  it('does nothing with a factory that comes after the stream completed, before any unsubscription', () => {
    const { feed, events, clock } = setUp({ flushAfter: 10 });
    const task = new ManualTask();
    feed.sink.push(factoryOf(task, []));
    feed.sink.end();
    task.observer!.complete();
    expect(events.map(([kind]) => kind)).toEqual(['emit', 'complete']);
    const [reads, requests] = [clock.reads, [...feed.requests]];
    const late = new ManualTask();
    feed.sink.push(factoryOf(late, []));
    expect([clock.reads, feed.requests, late.observer]).toEqual([reads, requests, undefined]);
  });

  it('reads the clock for flushAfter only when the last task in flight settles', () => {
    const { feed, clock } = setUp({ initialBatchSize: 3, flushAfter: 10 });
    const tasks = [new ManualTask(), new ManualTask(), new ManualTask(), new ManualTask()];
    tasks.forEach((task) => feed.sink.push(factoryOf(task, [])));
    // Three run, the fourth waits: only the last of the three to settle asks whether it is overdue.
    const reads = clock.reads;
    tasks[0].observer!.complete();
    tasks[1].observer!.complete();
    expect(clock.reads).toBe(reads);
    tasks[2].observer!.complete();
    expect(clock.reads).toBeGreaterThan(reads);
  });

  it('does not count a factory as overdue when none waits as the last task settles, nor reads the clock to ask', () => {
    const { feed, advanceTo, clock } = setUp({ initialBatchSize: 1, flushAfter: 10 });
    const first = new ManualTask();
    feed.sink.push(factoryOf(first, []));
    advanceTo(20);
    const reads = clock.reads;
    first.observer!.complete();
    expect(clock.reads).toBe(reads);
    // The next batch holds 2: one factory alone waits for the second or for flushAfter.
    const second = new ManualTask();
    feed.sink.push(factoryOf(second, []));
    expect(second.observer).toBeUndefined();
    advanceTo(30);
    expect(second.observer).toBeDefined();
  });

  it('arms no flush timer for a waiting factory while a task is in flight', () => {
    const { feed, timers } = setUp({ initialBatchSize: 1, flushAfter: 10 });
    feed.sink.push(factoryOf(new ManualTask(), []));
    feed.sink.push(factoryOf(new ManualTask(), []));
    expect(pendingTimers(timers)).toEqual([]);
  });

  it('reads no clock once the subscriber leaves as a task starts, though that start would space the next (learnRate)', () => {
    const sent: string[] = [];
    const { feed, runner, clock, advanceTo, timers } = setUp({
      initialBatchSize: 1,
      events: ({ type }: { type: string }) => sent.push(type),
      retry: { when: () => true, delay: 100, learnRate: true },
    });
    const throttled = new ManualTask();
    let tries = 0;
    let readsAtLeaving = NaN;
    feed.sink.push(() => {
      if (++tries === 1) return throttled;
      // The retry, the first start after the throttle's pause, allows no other start in its cycle: it
      // would move the pause's end, and a run still going would report that, reading the clock.
      runner.stop();
      readsAtLeaving = clock.reads;
      return new ManualTask();
    });
    throttled.observer!.error({ status: 429 });
    // The pause is up to 5 % longer than asked, at random.
    advanceTo(105);
    expect([tries, clock.reads, sent.at(-1), pendingTimers(timers)]).toEqual([2, readsAtLeaving, 'end', []]);
  });

  it('does not ask retry.when about a failure once the run is stopping', () => {
    const asked: number[] = [];
    const { feed, events } = setUp({
      initialBatchSize: 2,
      retry: { when: (_error: unknown, { index }: { index: number }) => (asked.push(index), index !== 0), delay: 0 },
    });
    const tasks = [new ManualTask(), new ManualTask()];
    tasks.forEach((task) => feed.sink.push(factoryOf(task, [])));
    tasks[0].observer!.error(new Error('fatal'));
    tasks[1].observer!.error(new Error('would be transient'));
    expect(asked).toEqual([0]);
    expect(events.map(([kind]) => kind)).toEqual(['error']);
  });
});
