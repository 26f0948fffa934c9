// Runs batches as the planner plans them, free of RxJS: the adapters in slow-start-batch.ts and
// slow-start.ts supply subscriptions, timers and the subscriber through a `RunnerHost`.
import { BatchPlanner, type RunningBatch } from './batch-planner.js';
import { expected, type ResolvedOptions } from './options.js';
import { SlowStartBatchError } from './slow-start-batch-error.js';
import type { BatchResult, TaskContext, TaskFactory } from './types.js';

/** Something that can be cancelled: a task's subscription, a timer. */
export interface Cancellable {
  unsubscribe(): void;
}

/** Receives the notifications of one task. */
export interface TaskObserver {
  next(value: unknown): void;
  error(reason: unknown): void;
  complete(): void;
}

/** What the runner needs from the reactive library it runs on. */
export interface RunnerHost<T> {
  /** Subscribes `observer` to what a factory returned; throws if that is not an `ObservableInput`. */
  subscribeTask(input: unknown, observer: TaskObserver): Cancellable;
  /** The clock `flushAfter` is measured on. */
  now(): number;
  /** Runs `action` after `delay` milliseconds, unless cancelled. */
  schedule(action: () => void, delay: number): Cancellable;
  emit(result: BatchResult<T>): void;
  error(error: unknown): void;
  complete(): void;
  /** Reports an error that has nowhere to go, such as one thrown by a teardown (RxJS's `config.onUnhandledError`). */
  reportUnhandled(error: unknown): void;
}

/** Where a feed delivers factories. */
export interface FactorySink {
  push(factory: unknown): void;
  end(): void;
  fail(error: unknown): void;
  /** Takes an error that has nowhere to go, such as one thrown by an iterator's `return()`. */
  reportUnhandled(error: unknown): void;
}

/** A source of factories, push-based (an observable) or pull-based (an array or iterator). */
export interface FactoryFeed {
  /** Starts delivering to the sink. */
  start(): void;
  /**
   * Asks a pull-based feed to have `count` more factories on their way (replacing any earlier
   * request); push-based feeds deliver what they have regardless.
   */
  request(count: number): void;
  /**
   * Stops delivering, waits for a delivery under way (an async iterator's pull), then releases the
   * source and calls `done` with the factories it held or was pulling, so that none is lost, and with
   * the source's error if that pull failed. A later `stop()` cancels the wait.
   */
  drain(done: (undelivered: unknown[], failure?: { error: unknown }) => void): void;
  /** Stops delivering and releases the source at once. Safe to call more than once. */
  stop(): void;
}

/**
 * The context handed to a factory. Its `AbortController` is made on first read of `signal`: most
 * tasks never read it, and making one per task would cost more than the rest of a task's bookkeeping.
 */
class LazyTaskContext {
  /** Made on first read of `signal`. */
  private controller: AbortController | undefined;
  /** Set once the task is torn down, so a signal read later is born aborted. */
  private tornDown = false;

  constructor(
    readonly index: number,
    readonly batch: number,
  ) {}

  get signal(): AbortSignal {
    if (this.controller === undefined) {
      this.controller = new AbortController();
      if (this.tornDown) this.controller.abort();
    }
    return this.controller.signal;
  }

  abort(): void {
    this.tornDown = true;
    this.controller?.abort();
  }
}

/** The properties a factory sees on its context. */
const contextKeys: ReadonlyArray<string | symbol> = ['index', 'batch', 'signal'];

/**
 * Shows a {@link LazyTaskContext} as a plain `{ index, batch, signal }`: `signal` lives in a getter on
 * the prototype, which `{ ...context }` and `Object.assign({}, context)` would not copy, and a copy
 * passed on to `fetch` could then not be cancelled. Reporting it as an own property makes every copy
 * read it; a getter defined on each context instead cost twice as much per task.
 */
const contextView: ProxyHandler<LazyTaskContext> = {
  // Read on the context itself, so that the `signal` getter keeps its state there.
  get: (context, key) => context[key as keyof TaskContext],
  ownKeys: () => contextKeys.slice(),
  getOwnPropertyDescriptor: (context, key) =>
    contextKeys.includes(key)
      ? { value: context[key as keyof TaskContext], enumerable: true, configurable: true, writable: false }
      : undefined,
  // The context is read-only, as its type says.
  set: () => false,
  defineProperty: () => false,
  deleteProperty: () => false,
};

/**
 * A task's subscription and the observer of its notifications. Declared once for the module, not
 * once per run: a class made inside `createBatchRunner` would give every subscription's tasks a shape
 * of their own, and the code they all pass through would slow down after a few subscriptions.
 */
class TaskRun implements TaskObserver {
  /** The last value the task emitted. */
  private last: unknown;
  /** Set once the task has completed or errored. */
  settled = false;
  /** The task's subscription; undefined until `subscribe` has returned. */
  subscription: Cancellable | undefined;

  /** What the factory is given: a read-only view of `lazyContext`. */
  readonly context: TaskContext;

  constructor(
    readonly position: number,
    readonly lazyContext: LazyTaskContext,
    /** The runner's `settle`. */
    private readonly onSettle: (run: TaskRun, fulfilled: boolean, outcome: unknown) => void,
  ) {
    this.context = new Proxy(lazyContext, contextView);
  }

  next(value: unknown): void {
    this.last = value;
  }

  error(reason: unknown): void {
    this.onSettle(this, false, reason);
  }

  complete(): void {
    this.onSettle(this, true, this.last);
  }

  /** Closes the task's subscription and aborts its signal; a teardown that throws still aborts it. */
  tearDown(reportUnhandled: (error: unknown) => void): void {
    try {
      this.subscription?.unsubscribe();
    } catch (error) {
      reportUnhandled(error);
    }
    this.lazyContext.abort();
  }
}

/** One subscriber's run, as `createBatchRunner` returns it. */
export interface BatchRunner {
  /** Starts the source; results may be emitted before it returns. */
  start(): void;
  /** Tears everything down: running tasks, the source, the flush timer. Safe to call at any time. */
  stop(): void;
}

/**
 * Prepares slow-start batching for one subscriber: factories arrive through `createFeed`'s feed,
 * results and the end go to `host`. The adapter registers `stop` with the subscriber before calling
 * `start`, so that an unsubscription during a synchronous start (`take(1)` after the first batch of
 * a synchronous source) stops the run at once.
 */
export function createBatchRunner<T>(
  host: RunnerHost<T>,
  createFeed: (sink: FactorySink) => FactoryFeed,
  options: ResolvedOptions,
): BatchRunner {
  const { concurrency, flushAfter } = options;
  /** Waiting factories, batch sizes and outcomes. */
  const planner = new BatchPlanner<unknown, T>(options, flushAfter !== undefined);
  /** The batch that is running, if any: only one runs at a time. */
  let batch: RunningBatch<unknown, T> | undefined;
  /**
   * The running batch's tasks that did not settle during their own `subscribe`, to tear them down;
   * some may have settled since. Synchronous tasks never get here, so a batch of them costs no list.
   */
  let running: TaskRun[] = [];
  /** How many of the running batch's tasks have been invoked. */
  let launched = 0;
  /** How many invoked tasks have not settled yet. */
  let active = 0;
  /** Set when the source has completed or errored. */
  let sourceDone = false;
  /** The source's error, boxed because any value, `undefined` included, can be an error. */
  let sourceError: { error: unknown } | undefined;
  /** The flush timer, while one is scheduled. */
  let flushTimer: Cancellable | undefined;
  /** Set when the flush timer has fired and the next batch may start short. */
  let flushDue = false;
  /** Set once the stream has completed, errored or been unsubscribed: from then on nothing runs. */
  let closed = false;
  /** Set once `stop` has run: the subscriber is gone, and the source released. */
  let stopped = false;
  /** Set while `pump` runs, so that re-entrant calls only ask it to go round again. */
  let pumping = false;
  /** Set by a re-entrant call of `pump`: state has changed since this round looked at it. */
  let pumpAgain = false;

  const reportUnhandled = (error: unknown) => host.reportUnhandled(error);
  const feed = createFeed({
    push(factory) {
      if (closed) return;
      planner.receive(factory, flushAfter === undefined ? 0 : host.now());
      pump();
    },
    end() {
      if (closed) return;
      sourceDone = true;
      pump();
    },
    fail(error) {
      if (closed || sourceDone) return;
      sourceDone = true;
      sourceError = { error };
      pump();
    },
    reportUnhandled,
  });

  /**
   * Does everything that can be done now: start a batch, invoke its tasks, finish it, end the stream.
   * Every event calls it. It loops instead of recursing, so that synchronous tasks and synchronous
   * sources cannot grow the call stack, however many there are.
   */
  function pump(): void {
    if (pumping) {
      pumpAgain = true;
      return;
    }
    pumping = true;
    try {
      do {
        pumpAgain = false;
        if (batch === undefined) {
          startBatchOrEnd();
        }
        if (batch !== undefined && !closed) {
          launchTasks(batch);
          // `closed` first: a task that made the consumer unsubscribe has left no batch behind.
          // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- launchTasks may have closed the run
          if (!closed && batch.settled === batch.size) {
            finishBatch(batch);
            // With the batch gone, the next one may start at once: no timer hop between batches,
            // also when the oldest waiting factory is already overdue (§3c).
            flushDue ||= oldestIsOverdue();
            pumpAgain = true;
          }
        }
      } while (pumpAgain && !closed);
    } finally {
      pumping = false;
    }
  }

  function startBatchOrEnd(): void {
    const waiting = planner.waitingCount;
    const wanted = planner.nextSize;
    if (sourceError !== undefined) {
      // §6: the source's error comes after the running batch; factories still waiting are skipped.
      close();
      release();
      host.error(sourceError.error);
    } else if (waiting >= wanted || (waiting > 0 && (sourceDone || flushDue))) {
      cancelFlushTimer();
      flushDue = false;
      batch = planner.startBatch();
      launched = 0;
      active = 0;
      running = [];
      // Pull no more while the batch runs: a failure would make whatever was pulled useless.
      feed.request(0);
    } else if (sourceDone) {
      close();
      release();
      host.complete();
    } else {
      feed.request(wanted - waiting);
      // Arms nothing if no factory waits or a timer is armed already.
      armFlushTimer();
    }
  }

  function launchTasks(current: RunningBatch<unknown, T>): void {
    while (launched < current.size && active < concurrency && !closed) {
      const position = launched++;
      active++;
      const index = current.startIndex + position;
      const run = new TaskRun(position, new LazyTaskContext(index, current.index), settle);
      const factory = current.factories[position];
      try {
        if (typeof factory !== 'function') {
          throw new TypeError(expected(`tasks[${index}]`, 'a function returning an ObservableInput', factory));
        }
        const input = (factory as TaskFactory<T>)(run.context);
        // The factory may have caused an unsubscription; then its task must not start.
        // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- set by a re-entrant stop()
        if (closed) {
          run.lazyContext.abort();
          return;
        }
        const subscription = host.subscribeTask(input, run);
        if (run.settled) continue;
        // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- set by a re-entrant stop()
        if (closed) {
          // Unsubscribed while the task was subscribing: `stop` could not see it yet.
          run.subscription = subscription;
          run.tearDown(reportUnhandled);
          return;
        }
        run.subscription = subscription;
        running.push(run);
      } catch (reason) {
        settle(run, false, reason);
      }
    }
  }

  function settle(run: TaskRun, fulfilled: boolean, outcome: unknown): void {
    // A task that notifies twice, or after the run closed (which clears `batch`), is not counted again.
    if (run.settled || batch === undefined) return;
    run.settled = true;
    run.subscription = undefined;
    active--;
    if (fulfilled) {
      planner.fulfil(batch, run.position, outcome as T | undefined);
    } else {
      planner.reject(batch, run.position, outcome);
    }
    pump();
  }

  function finishBatch(finished: RunningBatch<unknown, T>): void {
    batch = undefined;
    running = [];
    const outcome = planner.finish(finished);
    if (!outcome.failed) {
      host.emit(outcome.result);
      return;
    }
    // §5: what was never invoked is listed for resuming, then the source is released before the error.
    // A factory still on its way from the source (an async iterator's pull) is waited for (§11).
    const waiting = planner.drop();
    close();
    feed.drain((undelivered, pullFailure) => {
      const remaining = [...waiting, ...undelivered] as TaskFactory<T>[];
      const unfinished = [...outcome.rejected, ...remaining] as TaskFactory<T>[];
      host.error(new SlowStartBatchError<T>({ ...outcome, remaining, unfinished, sourceError: sourceError ?? pullFailure }));
    });
  }

  /** Whether the oldest waiting factory has waited `flushAfter` or longer (§3c). */
  function oldestIsOverdue(): boolean {
    const oldest = planner.oldestArrival;
    return oldest !== undefined && flushAfter !== undefined && host.now() - oldest >= flushAfter;
  }

  function armFlushTimer(): void {
    const oldest = planner.oldestArrival;
    if (flushTimer !== undefined || oldest === undefined || flushAfter === undefined) return;
    const delay = Math.max(0, oldest + flushAfter - host.now());
    flushTimer = host.schedule(() => {
      flushTimer = undefined;
      flushDue = true;
      pump();
    }, delay);
  }

  function cancelFlushTimer(): void {
    flushTimer?.unsubscribe();
    flushTimer = undefined;
  }

  /**
   * Ends the run: no factory is invoked after this, and only a failure's error, once the feed has
   * drained, is still sent.
   */
  function close(): void {
    closed = true;
    cancelFlushTimer();
    planner.drop();
  }

  /** Releases the source; what its teardown throws has nowhere to go but `reportUnhandled`. */
  function release(): void {
    try {
      feed.stop();
    } catch (error) {
      reportUnhandled(error);
    }
  }

  return {
    start() {
      // A subscriber that was closed before the run started has already called `stop`.
      if (closed) return;
      feed.start();
      pump();
    },
    stop() {
      if (stopped) return;
      stopped = true;
      const torn = running;
      running = [];
      batch = undefined;
      close();
      // Every task is torn down, and the source released, even if a teardown before it throws.
      for (const run of torn) {
        if (!run.settled) run.tearDown(reportUnhandled);
      }
      release();
    },
  };
}
