// The runner on a host made of plain callbacks, without RxJS: the shape an adapter for RxJS's next
// major (or any other reactive library) would have. Such a host gives none of RxJS's guarantees (a task
// may notify twice, a feed may push after it was stopped), so the runner must hold on its own.
import type { Cancellable, FactoryFeed, FactorySink, TaskObserver } from '../../src/host';
import { createRunner } from '../../src/runner';
import { resolveOptions } from '../../src/options';
import type { BatchResult } from '../../src/types';

/** A task the test settles by hand: what the factories in this spec return. */
class ManualTask {
  observer: TaskObserver | undefined;
  cancelled = false;
}

/** A feed the test drives: it records what the runner requests and pushes whatever the test says. */
function manualFeed() {
  const requests: number[] = [];
  let sink: FactorySink | undefined;
  let stops = 0;
  const create = (given: FactorySink): FactoryFeed => {
    sink = given;
    return {
      start() {},
      request: (count) => requests.push(count),
      drain: (done) => {
        stops++;
        done([]);
      },
      stop: () => {
        stops++;
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

/** A host whose notifications land in `events` and whose timers run only when the test says. */
function plainHost() {
  const events: (['emit', BatchResult<unknown>] | ['error', unknown] | ['complete'])[] = [];
  let now = 0;
  const timers: { at: number; action: () => void; cancelled: boolean }[] = [];
  return {
    events,
    timers,
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
      now: () => now,
      schedule(action: () => void, delay: number): Cancellable {
        const timer = { at: now + delay, action, cancelled: false };
        timers.push(timer);
        return {
          unsubscribe: () => {
            timer.cancelled = true;
          },
        };
      },
      emit: (result: BatchResult<unknown>) => events.push(['emit', result]),
      error: (error: unknown) => events.push(['error', error]),
      complete: () => events.push(['complete']),
      reportUnhandled: (error: unknown) => {
        throw error;
      },
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

function setUp(options?: object) {
  const feed = manualFeed();
  const plain = plainHost();
  const runner = createRunner(plain.host, feed.create, resolveOptions(options));
  runner.start();
  return { feed, runner, ...plain };
}

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
    expect(events).toEqual([['emit', { batch: 0, startIndex: 0, size: 1, values: [undefined], successes: 1 }]]);
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
    expect(events).toEqual([['emit', { batch: 0, startIndex: 0, size: 2, values: ['a', 'b'], successes: 2 }]]);
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
    expect(events).toEqual([['emit', { batch: 0, startIndex: 0, size: 1, values: [undefined], successes: 1 }], ['complete']]);

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
});
