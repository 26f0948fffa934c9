// Runs tasks as a pacing allows, free of RxJS: the adapter in rxjs-adapter.ts supplies subscriptions,
// timers and the subscriber through a `RunnerHost`, and a feed supplies the factories. The runner keeps
// the pump loop, the run's phase and the wiring; each other piece of state has one owner in run/:
// what waits (`Intake`), who may start and when (`Admission`), `flushAfter` (`FlushClock`) and the
// tasks in flight (`TaskSet`). The results in the making are the `ResultBook`'s.
import type { FactoryFeed, FactorySink, RunnerHost } from './host.js';
import type { ResolvedOptions } from './options.js';
import { BatchPacing } from './pacing/batch-pacing.js';
import type { Pacing } from './pacing/pacing.js';
import { WindowPacing } from './pacing/window-pacing.js';
import { ResultBook } from './result-book.js';
import { Admission, type Retry } from './run/admission.js';
import { FlushClock } from './run/flush-clock.js';
import { Intake } from './run/intake.js';
import { TaskSet } from './run/task-set.js';
import { SlowStartBatchError } from './slow-start-batch-error.js';
import { TaskRun } from './task-run.js';
import type { TaskFactory } from './types.js';

/** One subscriber's run, as `createRunner` returns it. */
export interface Runner {
  /** Starts the source; results may be emitted before it returns. */
  start(): void;
  /** Tears everything down: running tasks, the source, the timers. Safe to call at any time. */
  stop(): void;
}

/**
 * Where a run is. It only moves forward: `Stopping` once a task has failed for good or the source has
 * errored (what runs finishes, nothing new starts), `Closed` once the stream has ended or the
 * subscriber left (nothing starts, only a drained failure is still sent), `Stopped` once `stop` ran.
 */
const Phase = { Running: 0, Stopping: 1, Closed: 2, Stopped: 3 } as const;
type Phase = (typeof Phase)[keyof typeof Phase];

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
  /** Where the run is; see `Phase`. */
  let phase: Phase = Phase.Running;
  /** Set when a task completes its result: it is emitted before another task starts. */
  let resultDue = false;
  /** Set while `pump` runs, so that re-entrant calls only ask it to go round again. */
  let pumping = false;
  /** Set by a re-entrant call of `pump`: state has changed since this round looked at it. */
  let pumpAgain = false;

  const book = new ResultBook<T>();
  const admission = new Admission<T>(createPacing(options), options.retry, host, pump);
  const flush = flushAfter === undefined ? undefined : new FlushClock(flushAfter, host, pump);
  const tasks = new TaskSet<T>(host);
  const intake = new Intake(createFeed, {
    push(factory) {
      if (phase >= Phase.Closed) return;
      intake.receive(factory);
      flush?.arrived();
      if (!pumping && nothingCanStart()) askForFactories();
      else pump();
    },
    end() {
      // Once the run has closed, `pump` does nothing.
      intake.end();
      pump();
    },
    fail(error) {
      if (phase >= Phase.Closed || !intake.fail(error)) return;
      enterStopping();
      pump();
    },
    reportUnhandled: host.reportUnhandled,
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
        if (phase >= Phase.Closed || endIfDone()) break;
        // A batch that a retried task could start alone is filled from a lazy source first (§3).
        if (admission.retrying > 0 && phase === Phase.Running) requestFactories();
        launch();
        // Ask the source only when nothing has changed since this round looked: the answer is final.
        if (isOpen() && !pumpAgain) askForFactories();
      } while (pumpAgain && isOpen());
    } finally {
      pumping = false;
    }
  }

  function emitReady(): void {
    resultDue = false;
    let result;
    while (phase < Phase.Closed && (result = book.takeReady()) !== undefined) host.emit(result);
  }

  /** Whether the run may still start tasks; `launch` and `emitReady` can close it, re-entrantly. */
  function isOpen(): boolean {
    return phase < Phase.Closed;
  }

  /** How many the pacing lets start now. */
  function room(): number {
    return admission.room(tasks.active, intake.length, intake.done || flush?.due === true);
  }

  /** Ends the stream when nothing is in flight and nothing more may start; says whether it did. */
  function endIfDone(): boolean {
    if (tasks.active > 0) return false;
    const waiting = admission.retrying + intake.length;
    if (phase === Phase.Stopping) {
      // A batch runs to its end (§4), its retried tasks included; nothing else starts.
      if (Math.min(room(), waiting) > 0) return false;
      // Tasks still waiting for a retry are not tried again: they failed, with the reason of their last try.
      for (const retry of admission.abandon()) rejectRetry(retry);
      if (book.failed) {
        fail();
        return true;
      }
      // §6: the source's error comes after what was running; factories still waiting are skipped.
      const { error } = intake.error as { error: unknown };
      return finish(() => host.error(error));
    }
    if (intake.done && waiting === 0) return finish(() => host.complete());
    return false;
  }

  /** Emits the last result, then ends the stream with `end`, unless the subscriber left on that result. */
  function finish(end: () => void): true {
    book.closeLast();
    emitReady();
    if (isOpen()) {
      close();
      intake.release(host.reportUnhandled);
      end();
    }
    return true;
  }

  function rejectRetry({ group, position, reason, factory }: Retry<T>): void {
    book.reject(group, position, reason, factory);
  }

  /** Starts as many tasks as the pacing, `concurrency` and the waiting tasks allow, unless paused. */
  function launch(): void {
    if (admission.paused()) return;
    let count = Math.min(room(), concurrency - tasks.active, admission.retrying + intake.length);
    const phaseAtStart = phase;
    const changesAtStart = admission.changes;
    // A task that settled while starting may have completed a result, which is emitted before
    // anything else starts; a failure changes what the pacing allows; a throttle drops the pace, and
    // may pause everything or space the starts (so may `learnRate`). The next round of `pump` asks again.
    while (count-- > 0 && phase === phaseAtStart && !resultDue && admission.changes === changesAtStart) {
      const retry = admission.nextRetry();
      if (retry === undefined) startNew();
      else startRetry(retry);
      // A task that failed or unsubscribed as it started has closed the run: nothing may be scheduled.
      if (isOpen()) admission.spaceNextStart();
    }
  }

  /** Starts the oldest waiting factory as a new task. */
  function startNew(): void {
    flush?.started();
    const factory = intake.take();
    const start = admission.start(false);
    // A result holds no more tasks than wait now and may join it: its nominal size can be far larger.
    const group = book.join(start.beginsResult, Math.min(start.resultSize, intake.length + 1));
    if (start.closesResult) book.closeLast();
    tasks.invoke(new TaskRun<T>(group, group.joined - 1, factory, 1, start.round, settle));
  }

  /** Starts a task again: the same result and index, the next attempt, a fresh context. */
  function startRetry({ group, position, factory, attempt }: Retry<T>): void {
    const { round } = admission.start(true);
    tasks.invoke(new TaskRun<T>(group, position, factory, attempt + 1, round, settle));
  }

  function settle(run: TaskRun<T>, fulfilled: boolean, outcome: unknown): void {
    if (!tasks.settle(run)) return;
    if (fulfilled) {
      const { group } = run;
      book.fulfil(group, run.position, outcome as T | undefined);
      resultDue ||= group.settled === group.size;
      admission.succeeded(run);
    } else {
      const failure = phase === Phase.Running ? admission.retryLater(run, outcome, tasks.active + 1) : { reason: outcome };
      if (failure !== undefined) {
        book.reject(run.group, run.position, failure.reason, run.factory);
        enterStopping();
        admission.failed(run);
      }
    }
    run.factory = undefined;
    if (tasks.active === 0) flush?.idle();
    if (needsAnotherRound()) pump();
  }

  /**
   * Whether a task that settled needs `pump` to go round again. Only a shortcut: a task that settles
   * while `launch` starts others needs another round only if there is something to emit, to end, to
   * start, or to ask a lazy source for; outside `pump`, it always does.
   */
  function needsAnotherRound(): boolean {
    return !pumping || resultDue || phase !== Phase.Running || intake.done || intake.length > 0 || admission.retrying > 0 || intake.pulls;
  }

  function enterStopping(): void {
    if (phase !== Phase.Running) return;
    phase = Phase.Stopping;
    admission.stop();
  }

  /** Errors with a `SlowStartBatchError` once what was in flight has settled; what never started is listed for resuming. */
  function fail(): void {
    const failure = book.failure();
    const unstarted = intake.dropAll();
    close();
    // A factory still on its way from the source (an async iterator's pull) is waited for (§11).
    intake.drain((undelivered, pullFailure) => {
      const remaining = [...unstarted, ...undelivered] as TaskFactory<T>[];
      const unfinished = [...failure.rejected, ...remaining] as TaskFactory<T>[];
      host.error(new SlowStartBatchError<T>({ ...failure, remaining, unfinished, sourceError: intake.error ?? pullFailure }));
    });
  }

  /** Whether a factory that just arrived can start nothing now: during a pause, or with no room. */
  function nothingCanStart(): boolean {
    // During a pause nothing may start, and the pacing is not asked: a batch opens when the pause ends.
    return admission.paused() || room() === 0;
  }

  /** Asks a lazy source for what the pacing would start now, and arms the flush timer if one may fire. */
  function askForFactories(): void {
    requestFactories();
    // During a pause nothing may start: the pause's own timer looks again when it ends.
    if (tasks.active === 0 && phase === Phase.Running && !admission.paused()) flush?.arm();
  }

  /** Asks a lazy source for the factories the pacing would start now and that are not waiting yet. */
  function requestFactories(): void {
    if (intake.pulls) intake.request(admission.wanted(tasks.active, intake.length, intake.done || flush?.due === true));
  }

  /** Ends the run: nothing starts after this, and only a failure's error, once drained, is still sent. */
  function close(): void {
    phase = Math.max(phase, Phase.Closed) as Phase;
    flush?.close();
    admission.close();
    intake.dropAll();
  }

  return {
    start() {
      // A subscriber that was closed before the run started has already called `stop`.
      if (phase === Phase.Stopped) return;
      intake.start();
      pump();
    },
    stop() {
      if (phase === Phase.Stopped) return;
      close();
      phase = Phase.Stopped;
      tasks.tearDown();
      intake.release(host.reportUnhandled);
    },
  };
}
