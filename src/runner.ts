// Runs tasks as a pacing allows, free of RxJS: the adapter in rxjs-adapter.ts supplies subscriptions,
// timers and the subscriber through a `RunnerHost`, and a feed supplies the factories. The runner keeps
// the pump loop, the run's phase and the wiring; each other piece of state has one owner in run/:
// what waits (`Intake`), the throttled tasks (`RetryQueue`), those waiting out a backoff alone
// (`Backoffs`), how many may start and which first
// (`Admission`), when starts may come (the waits and their `StartGate`), how each try ended
// (`Outcomes`), `flushAfter` (`FlushClock`) and the tasks in flight (`TaskSet`). The results in the
// making are the `ResultBook`'s.
import type { FactoryFeed, FactorySink, RunnerHost } from './host.js';
import type { ResolvedOptions } from './resolve-options.js';
import { BatchPacing } from './pacing/batch-pacing.js';
import type { Pacing } from './pacing/pacing.js';
import { WindowPacing } from './pacing/window-pacing.js';
import { ResultBook } from './result-book.js';
import { Admission, type AdmissionParts } from './run/admission.js';
import { Backoffs } from './run/backoffs.js';
import { FlushClock } from './run/flush-clock.js';
import { Intake } from './run/intake.js';
import { Outcomes } from './run/outcomes.js';
import { Reporter } from './run/reporter.js';
import { RetryQueue } from './run/retry-queue.js';
import { TaskSet } from './run/task-set.js';
import { StartGate } from './run/waits/start-gate.js';
import { createWaits } from './run/waits/waits.js';
import { begin } from './run/resumption.js';
import { TaskKeys } from './run/task-keys.js';
import type { TaskRun } from './task-run.js';

/** One subscriber's run, as `createRunner` returns it. */
export interface Runner {
  /**
   * Starts the source; results may be emitted before it returns. Does nothing once `stop` has run: a
   * subscriber closed before the run started has called it already.
   */
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
  const keys = new TaskKeys(options.keys, options.resume);
  const reporter = options.events === undefined ? undefined : new Reporter<T>(options.events, keys, host);
  const book = new ResultBook<T>();
  const tasks = new TaskSet<T>(host, settled, reporter, keys, options.limiter);
  const flush = options.flushAfter === undefined ? undefined : new FlushClock(options.flushAfter, host, pump);
  const intake = new Intake(createFeed, options.keyClash, keys, {
    arrived() {
      reporter?.arrived();
      flush?.arrived();
      // A new factory can only let a task start: when none may (a pause, no room), ask the source again.
      if (!pumping && admission.cannotStartNow()) admission.askForFactories();
      else pump();
    },
    ended: pump,
    leftOut: pump,
    failed() {
      stopStarting();
      pump();
    },
    reportUnhandled,
  });
  const pieces = { intake, tasks, book, flush, reporter, wake: pump, stop: stopStarting };
  const { backoffs, gate, admission, outcomes, pacing, waits } = createAdmission(options, host, pieces);
  const ending = { host, book, reporter };

  /**
   * Does everything that can be done now: emit what is ready, start what the pacing allows, end the stream.
   * Every event calls it. It loops instead of recursing, so that synchronous tasks cannot grow the stack.
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
        if (isOpen()) endIfDone();
        if (!isOpen()) break;
        // A batch that a retried task could start alone is filled from a lazy source first (§3).
        if (admission.retrying && phase === Phase.Running) admission.askSource();
        launch();
        // Ask the source only when nothing has called `pump` since this round looked: the answer is final.
        if (isOpen() && !calledAgain()) admission.askForFactories();
      } while (calledAgain() && isOpen());
    } finally {
      pumping = false;
      reporter?.forgetReading();
    }
  }

  /** Whether `pump` was called again during this round: a task, a timer or the source changed something. */
  function calledAgain(): boolean {
    return pumpAgain;
  }

  function emitReady(): void {
    resultDue = false;
    let result;
    while (isOpen() && (result = book.takeReady()) !== undefined) {
      reporter?.result(result);
      host.emit(result);
    }
  }

  /** Whether the stream goes on; a task, a result's emission or a feed can close it, re-entrantly. */
  function isOpen(): boolean {
    return phase < Phase.Closed;
  }

  /** Starts as many tasks as may start now. */
  function launch(): void {
    let count = admission.startable();
    const phaseAtStart = phase;
    // A task that settled while starting may have completed a result (emitted before anything else
    // starts), failed, or been throttled (the pace drops, a pause may begin): the next round asks again.
    while (count-- > 0 && phase === phaseAtStart && !resultDue && !admission.changed()) {
      gate.starting();
      admission.startNext();
      // A task that failed or unsubscribed as it started has closed the run: nothing may be scheduled.
      if (isOpen()) gate.started(tasks.tries);
    }
  }

  /**
   * The end of a run, decided in one place: it closes when nothing is in flight and nothing more may start. A run
   * that stopped starting lets its batch run to its end (§4), retries included, then fails with a `SlowStartBatchError`
   * (§5) or the source's error after the last result (§6); one that did not completes once the source has ended.
   */
  function endIfDone(): void {
    if (tasks.active > 0) return;
    const stopping = phase === Phase.Stopping;
    if (stopping ? Math.min(admission.openRoom(), admission.waiting) > 0 : !intake.done || admission.pending > 0) return;
    backoffs.abandon();
    if (book.failed) {
      const unstarted = close();
      // A factory still on its way from the source (an async iterator's pull) is waited for (§11).
      intake.drain((undelivered, pullFailure) => endStream(ending, [...unstarted, ...undelivered], intake.error ?? pullFailure, true));
      return;
    }
    book.closeLast();
    emitReady();
    // The subscriber may have left on the last result.
    if (!isOpen()) return;
    const unstarted = close();
    intake.release(reportUnhandled);
    endStream(ending, unstarted, intake.error, false);
  }

  /** What the task set tells of each task that settles. */
  function settled(run: TaskRun<T>, fulfilled: boolean, outcome: unknown): void {
    resultDue = outcomes.settled(run, fulfilled, outcome) || resultDue;
    if (tasks.active === 0) flush?.idle();
    pump();
  }

  /** A task failed for good, or the source errored: what runs finishes, and nothing new starts. */
  function stopStarting(): void {
    if (phase !== Phase.Running) return;
    phase = Phase.Stopping;
    admission.stop();
  }

  /** Ends the run: nothing starts after this, and only a failure's error is still sent. Returns what never started. */
  function close(): unknown[] {
    phase = Math.max(phase, Phase.Closed) as Phase;
    flush?.close();
    gate.stop();
    backoffs.stop();
    return intake.close();
  }

  return {
    start() {
      if (phase === Phase.Stopped) return;
      if (begin(options, host, { intake, outcomes, pacing, waits, gate, close })) pump();
    },
    stop() {
      if (phase === Phase.Stopped) return;
      const unstarted = close();
      phase = Phase.Stopped;
      tasks.tearDown();
      intake.release(reportUnhandled);
      if (reporter?.unended === true) reportCancel(reporter, { tasks, backoffs, book }, [...unstarted, ...intake.unread()]);
    },
  };
}

/**
 * Who may start, when and which first, and the booking of how each try ended: the retry queue, the
 * waits the options ask for and their gate, the admission and the outcomes, wired to one another and
 * to the run's `parts`. `wake` is called when a pause ends, `stop` when a try fails for good and so does the run.
 */
function createAdmission<T>(
  options: ResolvedOptions,
  host: RunnerHost<T>,
  pieces: Omit<AdmissionParts<T>, 'retries' | 'backoffs'> & { wake: () => void; stop: () => void },
) {
  const { intake, tasks, book, flush, reporter, wake, stop } = pieces;
  const pacing = createPacing(options);
  const retries = new RetryQueue<T>(book, reporter);
  const backoffs = new Backoffs<T>(host, retries, wake);
  const waits = createWaits(options, reporter, () => admission.pending + intake.toCome);
  const gate = new StartGate(waits.all, host, wake, () => admission.invalidate(), reporter);
  // Object literals, not a rest and spreads of it: with the spreads, V8 threw away the compiled code
  // of the admission and the outcomes again and again once runs in both pacings shared a process.
  const admission = new Admission<T>(pacing, options.concurrency, gate, { intake, tasks, book, flush, reporter, retries, backoffs });
  const parts = { intake, tasks, book, flush, reporter, pacing, admission, gate, waits, retries, backoffs, stop };
  const outcomes = new Outcomes<T>(options, host, parts);
  return { backoffs, gate, admission, outcomes, pacing, waits };
}

/** The run's pieces that the end of a cancelled run accounts for. */
interface CancelledRun<T> {
  readonly tasks: TaskSet<T>;
  readonly backoffs: Backoffs<T>;
  readonly book: ResultBook<T>;
}

/**
 * The end of a run the subscriber left before its end was reported (also one that failed and waited
 * for a pull under way before erroring), once its tasks are torn down: those in flight cancelled, its
 * retries abandoned, `neverStarted` (what waited, and an array's unread tail) skipped, and every task
 * that did not succeed listed to be run again.
 */
function reportCancel<T>(reporter: Reporter<T>, run: CancelledRun<T>, neverStarted: unknown[]): void {
  const inFlight = run.tasks.inFlight();
  for (const task of inFlight) reporter.cancelled(task);
  run.backoffs.abandon();
  const unfinished = [...inFlight.map((task) => ({ index: task.index, factory: task.factory })), ...run.book.unsucceeded()];
  reporter.end('cancelled', unfinished, run.book.nextIndex, neverStarted);
}

/**
 * Ends the stream, after reporting the end: with a `SlowStartBatchError` when `failed` (a task failed
 * for good), else with the source's `error` if it errored, else it completes. `neverStarted` are the
 * factories received that never started, and `error` also a pull's failure.
 */
function endStream<T>(
  run: { host: RunnerHost<T>; book: ResultBook<T>; reporter: Reporter<T> | undefined },
  neverStarted: unknown[],
  error: { error: unknown } | undefined,
  failed: boolean,
): void {
  const { host, book, reporter } = run;
  const failure = failed ? { error: book.error(neverStarted, error) } : error;
  reporter?.end(failure === undefined ? 'completed' : 'failed', book.unsucceeded(), book.nextIndex, neverStarted, failure?.error);
  if (failure === undefined) host.complete();
  else host.error(failure.error);
}
