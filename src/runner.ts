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
import { Admission } from './run/admission.js';
import { FlushClock } from './run/flush-clock.js';
import { Intake } from './run/intake.js';
import { TaskSet } from './run/task-set.js';
import type { TaskRun } from './task-run.js';

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
  /** Where the run is; see `Phase`. */
  let phase: Phase = Phase.Running;
  /** Set when a task completes its result: it is emitted before another task starts. */
  let resultDue = false;
  /** Set while `pump` runs, so that re-entrant calls only ask it to go round again. */
  let pumping = false;
  /** Set by a re-entrant call of `pump`: state has changed since this round looked at it. */
  let pumpAgain = false;

  const reportUnhandled = (error: unknown) => host.reportUnhandled(error);
  const book = new ResultBook<T>();
  const tasks = new TaskSet<T>(host, settled);
  const flush = options.flushAfter === undefined ? undefined : new FlushClock(options.flushAfter, host, pump);
  const intake = new Intake(createFeed, {
    push(factory) {
      if (!isOpen()) return;
      intake.receive(factory);
      flush?.arrived();
      // A new factory can only let a task start: when none may, asking the source again is all there is
      // to do. During a pause the pacing is not asked: a batch opens when the pause ends.
      if (!pumping && cannotStartNow()) askForFactories();
      else pump();
    },
    end() {
      intake.end();
      pump();
    },
    fail(error) {
      if (!isOpen() || !intake.fail(error)) return;
      stopStarting();
      pump();
    },
    reportUnhandled,
  });
  const admission = new Admission<T>(createPacing(options), options.concurrency, options.retry, host, pump, { intake, tasks, book, flush });

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
        if (!isOpen() || endIfDone()) break;
        // A batch that a retried task could start alone is filled from a lazy source first (§3).
        if (admission.retrying && phase === Phase.Running) admission.askSource();
        launch();
        // Ask the source only when nothing has changed since this round looked: the answer is final.
        if (isOpen() && !calledAgain()) askForFactories();
      } while (calledAgain() && isOpen());
    } finally {
      pumping = false;
    }
  }

  /** Whether `pump` was called again during this round: a task, a timer or the source changed something. */
  function calledAgain(): boolean {
    return pumpAgain;
  }

  function emitReady(): void {
    resultDue = false;
    let result;
    while (isOpen() && (result = book.takeReady()) !== undefined) host.emit(result);
  }

  /** Whether the stream goes on; a task, a result's emission or a feed can close it, re-entrantly. */
  function isOpen(): boolean {
    return phase < Phase.Closed;
  }

  /** Starts as many tasks as may start now, unless paused. */
  function launch(): void {
    if (admission.paused()) return;
    let count = admission.startable();
    const [phaseAtStart, changesAtStart] = [phase, admission.changes];
    // A task that settled while starting may have completed a result, which is emitted before
    // anything else starts; a failure changes what the pacing allows; a throttle drops the pace, and
    // may pause everything or space the starts (so may `learnRate`). The next round of `pump` asks again.
    while (count-- > 0 && phase === phaseAtStart && !resultDue && admission.changes === changesAtStart) {
      admission.startNext();
      // A task that failed or unsubscribed as it started has closed the run: nothing may be scheduled.
      if (isOpen()) admission.spaceNextStart();
    }
  }

  /** The end of a run, decided in one place: when nothing is in flight and nothing more may start. */
  function endIfDone(): boolean {
    if (tasks.active > 0) return false;
    if (phase === Phase.Stopping) {
      // A batch runs to its end (§4), its retried tasks included; nothing else starts.
      if (Math.min(admission.room(), admission.waiting) > 0) return false;
      admission.abandonRetries();
      if (book.failed) fail();
      // §6: the source's error comes after what was running; factories still waiting are skipped.
      else finish(() => host.error((intake.error as { error: unknown }).error));
      return true;
    }
    if (!intake.done || admission.waiting > 0) return false;
    finish(() => host.complete());
    return true;
  }

  /** Emits the last result, then ends the stream, unless the subscriber left on that result. */
  function finish(end: () => void): void {
    book.closeLast();
    emitReady();
    if (!isOpen()) return;
    close();
    intake.release(reportUnhandled);
    end();
  }

  /** Errors with a `SlowStartBatchError`, listing what never started for resuming (§5). */
  function fail(): void {
    const unstarted = intake.dropAll();
    close();
    // A factory still on its way from the source (an async iterator's pull) is waited for (§11).
    intake.drain((undelivered, pullFailure) => host.error(book.error([...unstarted, ...undelivered], intake.error ?? pullFailure)));
  }

  /** What the task set tells of each task that settles. */
  function settled(run: TaskRun<T>, fulfilled: boolean, outcome: unknown): void {
    const { group } = run;
    if (fulfilled) {
      book.fulfil(group, run.position, outcome as T | undefined);
      resultDue ||= group.settled === group.size;
      admission.succeeded(run);
    } else {
      const failure = phase === Phase.Running ? admission.retryLater(run, outcome, tasks.active + 1) : { reason: outcome };
      if (failure !== undefined) {
        book.reject(group, run.position, failure.reason, run.factory);
        stopStarting();
      }
    }
    if (tasks.active === 0) flush?.idle();
    if (needsAnotherRound()) pump();
  }

  /** Whether nothing can start now, with a factory just arrived. Only a shortcut: `pump` would start nothing. */
  function cannotStartNow(): boolean {
    return admission.paused() || admission.room() === 0;
  }

  /**
   * Whether a task that settled needs `pump` to go round again. Only a shortcut: a task that settles
   * while `launch` starts others needs another round only if there is something to emit, to end, to
   * start, or to ask a lazy source for; outside `pump`, it always does.
   */
  function needsAnotherRound(): boolean {
    return !pumping || resultDue || phase !== Phase.Running || intake.done || admission.waiting > 0 || intake.pulls;
  }

  /** A task failed for good, or the source errored: what runs finishes, and nothing new starts. */
  function stopStarting(): void {
    if (phase !== Phase.Running) return;
    phase = Phase.Stopping;
    admission.stop();
  }

  /** Asks a lazy source for what the pacing would start now, and arms the flush timer if one may fire. */
  function askForFactories(): void {
    admission.askSource();
    // During a pause nothing may start: the pause's own timer looks again when it ends.
    if (tasks.active === 0 && phase === Phase.Running && !admission.paused()) flush?.arm();
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
      intake.release(reportUnhandled);
    },
  };
}
