// Runs tasks as a pacing allows, free of RxJS: the adapter in rxjs-adapter.ts supplies subscriptions,
// timers and the subscriber through a `RunnerHost`, and a feed supplies the factories. The runner
// knows nothing of batches: it admits `min(room, concurrency - inFlight, waiting)` tasks, where the
// pacing says how much room there is.
import type { Cancellable, FactoryFeed, FactorySink, RunnerHost } from './host.js';
import { expected } from './expected.js';
import type { ResolvedOptions } from './options.js';
import { BatchPacing } from './pacing/batch-pacing.js';
import type { Pacing, RunState } from './pacing/pacing.js';
import { WindowPacing } from './pacing/window-pacing.js';
import { Queue } from './queue.js';
import { ResultBook, type ResultGroup } from './result-book.js';
import { LearnedRate } from './retry/learned-rate.js';
import type { ResolvedRetry } from './retry/retry-options.js';
import { decideRetry } from './retry/retry-policy.js';
import { SlowStartBatchError } from './slow-start-batch-error.js';
import { TaskRun } from './task-run.js';
import type { TaskFactory } from './types.js';

/** A task that failed with a throttle and waits to be tried again. */
interface Retry<T> {
  readonly group: ResultGroup<T>;
  readonly position: number;
  readonly factory: unknown;
  /** The try that failed, and why: the task's reason if it is never tried again. */
  readonly attempt: number;
  readonly reason: unknown;
}

/** One subscriber's run, as `createRunner` returns it. */
export interface Runner {
  /** Starts the source; results may be emitted before it returns. */
  start(): void;
  /** Tears everything down: running tasks, the source, the flush timer. Safe to call at any time. */
  stop(): void;
}

/** The pacing the options ask for. */
export function createPacing(options: ResolvedOptions): Pacing {
  return options.pacing === 'window' ? new WindowPacing(options, options.concurrency) : new BatchPacing(options);
}

/**
 * Prepares a run for one subscriber: factories arrive through `createFeed`'s feed, results and the end
 * go to `host`. The adapter registers `stop` with the subscriber before calling `start`, so that an
 * unsubscription during a synchronous start (`take(1)` after the first result of a synchronous source)
 * stops the run at once.
 */
export function createRunner<T>(host: RunnerHost<T>, createFeed: (sink: FactorySink) => FactoryFeed, options: ResolvedOptions): Runner {
  const { concurrency, flushAfter } = options;
  /** How many tasks may be in flight, and which result reports each task. */
  const pacing = createPacing(options);
  /** The results in the making, oldest first. */
  const book = new ResultBook<T>();
  /** Factories received and not invoked yet, oldest first. */
  const waiting = new Queue<unknown>();
  /** When each waiting factory arrived, kept only when `flushAfter` needs it. */
  const arrivals = flushAfter === undefined ? undefined : new Queue<number>();
  /** What the pacing is told; updated in place before each question. */
  // Stryker disable next-line ObjectLiteral: the counts are written before every read, and the flags are only tested for truth
  const state: RunState = { inFlight: 0, waiting: 0, retrying: 0, sourceDone: false, flushDue: false, stopping: false };
  /** Tasks that failed with a throttle and wait to be tried again, ahead of every new factory (§10). */
  const retries = new Queue<Retry<T>>();
  /**
   * Tasks that did not settle during their own `subscribe`, to tear them down; some may have settled
   * since, and are dropped once they outnumber the running ones. Synchronous tasks never get here.
   */
  let running: TaskRun<T>[] = [];
  /** Tasks invoked and not settled. */
  let active = 0;
  /** The source's error, boxed because any value, `undefined` included, can be an error. */
  let sourceError: { error: unknown } | undefined;
  /** How many factories the feed has been asked for and not yet delivered. */
  let requested = 0;
  /** The flush timer, while one is scheduled. */
  let flushTimer: Cancellable | undefined;
  /** When the pause after a throttle ends, on the scheduler's clock: no task starts before (§10). */
  let pausedUntil = -Infinity;
  /** The timer that ends the pause, while one is scheduled. */
  let pauseTimer: Cancellable | undefined;
  /**
   * How many tries have failed with a throttle: one during `launch` drops the pace, even when the pause
   * it asks for is already under way, so `launch` stops and asks the pacing again.
   */
  let throttles = 0;
  /** Under `retry.learnRate`, the start rate learned from throttles: it spaces starts with short pauses. */
  const learnedRate = options.retry?.learnRate === true ? new LearnedRate() : undefined;
  /** Set once the stream has completed, errored or been unsubscribed: from then on nothing starts. */
  let closed = false;
  /** Set once `stop` has run: the subscriber is gone, and the source released. */
  let stopped = false;
  /** Set when a task completes its result: it is emitted before another task starts. */
  // Stryker disable next-line BooleanLiteral: set true, it would only cost the first round of `pump` a look at an empty book
  let resultDue = false;
  /** Set while `pump` runs, so that re-entrant calls only ask it to go round again. */
  let pumping = false;
  /** Set by a re-entrant call of `pump`: state has changed since this round looked at it. */
  // Stryker disable next-line BooleanLiteral: every round of `pump` clears it before reading it
  let pumpAgain = false;

  const reportUnhandled = (error: unknown) => host.reportUnhandled(error);
  const feed = createFeed({
    push(factory) {
      if (closed) return;
      if (requested > 0) requested--;
      waiting.push(factory);
      arrivals?.push(host.now());
      // A new factory can only let a task start: when none may, asking the source again is all there is
      // to do (a synchronous source pushes every factory of a batch this way before the batch starts).
      // During a pause nothing may start, and the pacing is not asked: a batch opens when the pause ends.
      // (No result is due here: `settle` sets that flag only to call `pump`, which clears it.)
      // Stryker disable next-line ConditionalExpression,BooleanLiteral: a shortcut; `pump` would do the same in a round more
      if (!pumping && (isPaused() || pacing.room(observe()) === 0)) askForFactories();
      else pump();
    },
    end() {
      // Once the run has closed, `pump` does nothing.
      state.sourceDone = true;
      pump();
    },
    fail(error) {
      if (closed || state.sourceDone) return;
      state.sourceDone = state.stopping = true;
      sourceError = { error };
      pump();
    },
    reportUnhandled,
  });

  /**
   * Does everything that can be done now: emit what is ready, start what the pacing allows, end the
   * stream. Every event calls it. It loops instead of recursing, so that synchronous tasks and
   * synchronous sources cannot grow the call stack, however many there are.
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
        emitReady();
        if (closed || endIfDone()) break;
        // A batch that a retried task could start alone is filled from a lazy source first (§3).
        if (retries.length > 0 && !state.stopping) requestFactories();
        launch();
        // Ask the source only when nothing has changed since this round looked: the answer is final.
        // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- launch() may have closed the run or made pump re-enter
        if (!closed && !pumpAgain) askForFactories();
        // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- set by re-entrant calls
      } while (pumpAgain && !closed);
    } finally {
      pumping = false;
    }
  }

  function emitReady(): void {
    resultDue = false;
    let result;
    while (!closed && (result = book.takeReady()) !== undefined) host.emit(result);
  }

  /** Updates what the pacing is told: what is in flight, and what could start now. */
  function observe(): RunState {
    state.inFlight = active;
    state.retrying = retries.length;
    state.waiting = state.retrying + waiting.length;
    return state;
  }

  /** Ends the stream when nothing is in flight and nothing more may start; says whether it did. */
  function endIfDone(): boolean {
    if (active > 0) return false;
    observe();
    if (state.stopping) {
      // A batch runs to its end (§4), its retried tasks included; nothing else starts.
      if (Math.min(pacing.room(state), state.waiting) > 0) return false;
      // Tasks still waiting for a retry are not tried again: they failed, with the reason of their last try.
      for (const retry of retries.takeAll()) book.reject(retry.group, retry.position, retry.reason, retry.factory);
      if (book.failed) {
        fail();
        return true;
      }
      // §6: the source's error comes after what was running; factories still waiting are skipped.
      const { error } = sourceError as { error: unknown };
      book.closeLast();
      emitReady();
      if (closed) return true;
      close();
      release();
      host.error(error);
      return true;
    }
    if (state.sourceDone && state.waiting === 0) {
      book.closeLast();
      emitReady();
      if (closed) return true;
      close();
      release();
      host.complete();
      return true;
    }
    return false;
  }

  /** Starts as many tasks as the pacing, `concurrency` and the waiting tasks allow, unless paused. */
  function launch(): void {
    if (isPaused()) return;
    observe();
    const wasStopping = state.stopping;
    const pauseAtStart = pausedUntil;
    const throttlesAtStart = throttles;
    let count = Math.min(pacing.room(state), concurrency - active, state.waiting);
    // A task that settled while starting may have completed a result, which is emitted before
    // anything else starts; a failure changes what the pacing allows; a throttle drops the pace, and
    // may pause everything or space the starts (so may `learnRate`).
    // The next round of `pump` asks again.
    while (
      count-- > 0 &&
      !closed &&
      !resultDue &&
      state.stopping === wasStopping &&
      pausedUntil === pauseAtStart &&
      throttles === throttlesAtStart
    ) {
      const retry = pacing.takesRetry() ? retries.shift() : undefined;
      if (retry === undefined) startNew();
      else startRetry(retry);
      if (learnedRate !== undefined) spaceNextStart(learnedRate);
    }
  }

  /** Under `retry.learnRate`, pauses until the learned rate lets the next task start. */
  function spaceNextStart(rate: LearnedRate): void {
    // A task that failed or unsubscribed as it started has closed the run: nothing may be scheduled.
    if (closed) return;
    const now = host.now();
    const next = rate.started(now);
    // Stryker disable next-line EqualityOperator: at `next === pausedUntil` the pause is set to what it is
    if (next <= now || next <= pausedUntil) return;
    pausedUntil = next;
    // The pause's timer starts the next task; nothing else may be on its way to call `pump`.
    isPaused();
  }

  /** Starts the oldest waiting factory as a new task. */
  function startNew(): void {
    // A flush is spent by the batch it starts, and so is its timer, armed for the oldest factory.
    state.flushDue = false;
    cancelFlushTimer();
    const factory = waiting.shift();
    arrivals?.shift();
    const group = book.join(pacing.start(false), pacing.resultSize);
    if (pacing.resultFull) book.closeLast();
    invoke(new TaskRun<T>(group, group.joined - 1, factory, 1, pacing.drops, settle));
  }

  /** Starts a task again: the same result and index, the next attempt, a fresh context (§10). */
  function startRetry({ group, position, factory, attempt }: Retry<T>): void {
    // A retried task never fills a result: the new tasks of its batch start after it, and close theirs.
    pacing.start(true);
    invoke(new TaskRun<T>(group, position, factory, attempt + 1, pacing.drops, settle));
  }

  /** Calls a task's factory and subscribes to what it returns. */
  function invoke(run: TaskRun<T>): void {
    const { factory, index } = run;
    active++;
    try {
      if (typeof factory !== 'function') {
        throw new TypeError(expected(`tasks[${index}]`, 'a function returning an ObservableInput', factory));
      }
      const input = (factory as TaskFactory<T>)(run.context);
      // The factory may have caused an unsubscription; then its task must not start.
      if (stopped) {
        run.abort();
        return;
      }
      const subscription = host.subscribeTask(input, run);
      // Stryker disable next-line ConditionalExpression: a settled run kept would be skipped at teardown, and trimmed
      if (run.settled) return;
      run.subscription = subscription;
      // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- set by a re-entrant stop()
      if (stopped) {
        // Unsubscribed while the task was subscribing: `stop` could not see it yet.
        run.tearDown(reportUnhandled);
        return;
      }
      keepRunning(run);
    } catch (reason) {
      settle(run, false, reason);
    }
  }

  function keepRunning(run: TaskRun<T>): void {
    // Stryker disable next-line ConditionalExpression,EqualityOperator,ArithmeticOperator: how often it is trimmed changes only the work; spec/perf/retention.spec.ts checks that it is
    if (running.length >= 2 * active + 16) running = running.filter((other) => !other.settled);
    running.push(run);
  }

  function settle(run: TaskRun<T>, fulfilled: boolean, outcome: unknown): void {
    // A task that notifies twice, or after the subscriber left, is not counted again.
    if (run.settled || stopped) return;
    run.settled = true;
    run.subscription = undefined;
    active--;
    if (fulfilled) {
      book.fulfil(run.group, run.position, outcome as T | undefined);
      // Stryker disable next-line ConditionalExpression: a result due after every success would only cost rounds of `pump`
      resultDue ||= run.group.settled === run.group.size;
      pacing.settled(true, run.dropsAtStart);
      learnedRate?.succeeded();
    } else {
      const failure = options.retry === undefined || state.stopping ? { reason: outcome } : retryLater(run, outcome);
      if (failure !== undefined) {
        book.reject(run.group, run.position, failure.reason, run.factory);
        state.stopping = true;
        // Stryker disable next-line BooleanLiteral: after a failure nothing new starts, so what the pacing learns is never used
        pacing.settled(false, run.dropsAtStart);
      }
    }
    // When the last task in flight settles, an overdue flush starts the next batch now, not one timer later.
    // Stryker disable next-line ConditionalExpression: asked earlier, the answer holds: an overdue factory stays overdue until it starts
    if (active === 0) state.flushDue ||= oldestIsOverdue();
    // A task that settles while `launch` starts others needs another round of `pump` only if there is
    // something to emit, to end, to start, or to ask a lazy source for.
    // Stryker disable next-line ConditionalExpression,LogicalOperator,BooleanLiteral,EqualityOperator: a shortcut; a round more of `pump` would do the same
    if (!pumping || resultDue || state.stopping || state.sourceDone || waiting.length > 0 || retries.length > 0 || feed.pushes !== true) {
      pump();
    }
  }

  /**
   * Under `retry`, queues a task whose try failed with a throttle to be tried again after a pause, and
   * drops the pace (§10). Returns nothing if it did, or the reason the task has failed for good.
   */
  function retryLater(run: TaskRun<T>, error: unknown): { reason: unknown } | undefined {
    const decision = decideRetry(options.retry as ResolvedRetry, error, run.context);
    if (!decision.retry) return { reason: decision.reason };
    throttles++;
    const now = host.now();
    pausedUntil = Math.max(pausedUntil, now + decision.pause);
    const drops = pacing.drops;
    pacing.throttled(run.dropsAtStart, active + 1);
    if (pacing.drops !== drops) learnedRate?.dropped(now, pausedUntil);
    retries.push({ group: run.group, position: run.position, factory: run.factory, attempt: run.attempt, reason: error });
    return undefined;
  }

  /** Whether a pause is under way; if so, a timer ends it. */
  function isPaused(): boolean {
    // No clock read on the way of a run that has never been throttled.
    if (pausedUntil === -Infinity) return false;
    const left = pausedUntil - host.now();
    if (left <= 0) return false;
    // No longer than setTimeout allows: a throttle's pause is capped at that limit, and
    // `learnRate` waits no longer between two starts than the pause after the last drop.
    pauseTimer ??= host.schedule(() => {
      pauseTimer = undefined;
      pump();
    }, left);
    return true;
  }

  /** §5: the error, once what was in flight has settled; what never started is listed for resuming. */
  function fail(): void {
    const failure = book.failure();
    const unstarted = waiting.takeAll();
    close();
    // A factory still on its way from the source (an async iterator's pull) is waited for (§11).
    feed.drain((undelivered, pullFailure) => {
      const remaining = [...unstarted, ...undelivered] as TaskFactory<T>[];
      const unfinished = [...failure.rejected, ...remaining] as TaskFactory<T>[];
      host.error(new SlowStartBatchError<T>({ ...failure, remaining, unfinished, sourceError: sourceError ?? pullFailure }));
    });
  }

  /** Asks a lazy source for what the pacing would start now, and arms the flush timer if one may fire. */
  function askForFactories(): void {
    requestFactories();
    // During a pause nothing may start: the pause's own timer looks again when it ends.
    if (active === 0 && !state.stopping && !isPaused()) armFlushTimer();
  }

  /** Asks a lazy source for the factories the pacing would start now and that are not waiting yet. */
  function requestFactories(): void {
    if (feed.pushes === true) return;
    observe();
    const wanted = Math.max(0, pacing.wants(state) - state.waiting);
    if (wanted !== requested) {
      requested = wanted;
      feed.request(wanted);
    }
  }

  /** Whether the oldest waiting factory has waited `flushAfter` or longer (§3c). */
  function oldestIsOverdue(): boolean {
    const oldest = arrivals?.peek();
    return oldest !== undefined && host.now() - oldest >= (flushAfter as number);
  }

  function armFlushTimer(): void {
    const oldest = arrivals?.peek();
    if (flushTimer !== undefined || oldest === undefined) return;
    const delay = Math.max(0, oldest + (flushAfter as number) - host.now());
    flushTimer = host.schedule(() => {
      flushTimer = undefined;
      state.flushDue = true;
      pump();
    }, delay);
  }

  function cancelFlushTimer(): void {
    flushTimer?.unsubscribe();
    flushTimer = undefined;
  }

  /** Ends the run: nothing starts after this, and only a failure's error, once drained, is still sent. */
  function close(): void {
    closed = true;
    cancelFlushTimer();
    pauseTimer?.unsubscribe();
    pauseTimer = undefined;
    waiting.takeAll();
    arrivals?.takeAll();
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
      if (stopped) return;
      feed.start();
      pump();
    },
    stop() {
      if (stopped) return;
      stopped = true;
      close();
      // Every task is torn down, and the source released, even if a teardown before it throws.
      for (const run of running) {
        if (!run.settled) run.tearDown(reportUnhandled);
      }
      release();
    },
  };
}
