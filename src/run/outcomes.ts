// How each try ended, booked where it decides what comes next: a success in its result and in the
// pace; a throttle back in the retry queue, with a pause and a drop of the pace (§10); a transient
// failure to wait out its backoff alone, an item failed for good while the run goes on, a fatal failure
// in its result (§14); and what each announced of the server's budget (§13).
import type { SlowStartCheckpoint } from '../checkpoint/checkpoint.js';
import type { RunnerHost } from '../host.js';
import { HttpError, isNotOkResponse } from '../http-error.js';
import type { Pacing } from '../pacing/pacing.js';
import type { ResultBook } from '../result-book.js';
import type { RateLimitState } from '../rate-limit.js';
import { readAnnounced, type ResolvedOptions } from '../resolve-options.js';
import type { ResolvedRetry } from '../retry/retry-options.js';
import { decideRetry } from '../retry/retry-policy.js';
import type { StartLimiter } from '../start-limiter.js';
import type { TaskRun } from '../task-run.js';
import type { Admission } from './admission.js';
import type { Backoffs } from './backoffs.js';
import type { Reporter } from './reporter.js';
import type { RetryQueue } from './retry-queue.js';
import type { TaskSet } from './task-set.js';
import type { StartGate } from './waits/start-gate.js';
import type { Waits } from './waits/waits.js';

/** What the outcomes write to and read from. */
export interface OutcomeParts<T> {
  readonly pacing: Pacing;
  readonly admission: Admission<T>;
  readonly gate: StartGate;
  readonly waits: Waits;
  readonly retries: RetryQueue<T>;
  readonly backoffs: Backoffs<T>;
  readonly tasks: TaskSet<T>;
  readonly book: ResultBook<T>;
  /** Only when someone listens to the run's events. */
  readonly reporter: Reporter<T> | undefined;
  /** Stops the run starting: a try has failed for good, and so does the run. */
  readonly stop: () => void;
}

export class Outcomes<T> {
  /** Item failures since the last success: at `retry.maxConsecutiveItemFailures`, the next is fatal. */
  private itemsInARow = 0;

  /** The `retry` option, if any. */
  private readonly retry: ResolvedRetry | undefined;
  /** Whether a response that is not ok is a failed try. */
  private readonly httpErrors: boolean;
  /** The `limiter` option, when it takes its rate from what the server announces. */
  private readonly limiter: Required<StartLimiter> | undefined;

  /**
   * @param options The `retry`, `httpErrors` and `limiter` options.
   * @param clock The host's clock, and where an error with nowhere to go goes.
   * @param parts What a try's end is booked in.
   */
  constructor(
    options: Pick<ResolvedOptions, 'retry' | 'httpErrors' | 'limiter'>,
    private readonly clock: Pick<RunnerHost<unknown>, 'now' | 'reportUnhandled'>,
    private readonly parts: OutcomeParts<T>,
  ) {
    this.retry = options.retry;
    this.httpErrors = options.httpErrors;
    const { limiter } = options;
    this.limiter = typeof limiter?.announced === 'function' ? (limiter as Required<StartLimiter>) : undefined;
  }

  /**
   * A try has settled, with a value when `fulfilled`, else an error: books it, and stops the run when
   * it failed for good. Returns whether its result is complete, to be emitted before another task starts.
   */
  settled(run: TaskRun<T>, fulfilled: boolean, outcome: unknown): boolean {
    // `fetch` resolves whatever the status: a response that is not ok is a failed try (§14).
    if (fulfilled && this.httpErrors && isNotOkResponse(outcome)) return this.settled(run, false, new HttpError(outcome));
    if (fulfilled) return this.succeeded(run, outcome as T | undefined);
    if (this.failed(run, outcome)) this.parts.stop();
    // A failed item may have completed its result.
    return run.group.settled === run.group.size;
  }

  /**
   * The run starts, over `total` tasks when the source says, from the source `fingerprint`, resuming
   * `resumed` if given: the reporter, if any, hears of it and of the pace.
   */
  begin(total: number | undefined, fingerprint: string, resumed: SlowStartCheckpoint | undefined): void {
    this.parts.reporter?.start(total, fingerprint, resumed);
    this.reportPace(false);
  }

  /**
   * A task has succeeded with `value`: it is placed in its result, and the pace hears of it. Returns
   * whether its result is complete, to be emitted before another task starts.
   */
  succeeded(run: TaskRun<T>, value: T | undefined): boolean {
    const { group } = run;
    const { book, reporter, pacing, waits } = this.parts;
    book.fulfil(group, run.position, value);
    this.itemsInARow = 0;
    reporter?.succeeded(run, value);
    if (waits.announced !== undefined || this.limiter !== undefined) this.heard(value, run);
    pacing.succeeded(run.drops);
    waits.learned?.rate.succeeded();
    if (reporter !== undefined) this.reportPace(false);
    return group.settled === group.size;
  }

  /**
   * A task's try has failed with `error`. Under `retry`, unless the run is stopping, a throttle queues
   * it to be tried again after a pause and drops the pace, a transient failure has it wait out its
   * backoff alone, and an item failure fails it for good while the run goes on. Otherwise it has failed
   * for good, and its result says why: then it returns true, and the run must stop starting.
   */
  failed(run: TaskRun<T>, error: unknown): boolean {
    this.heard(error, run);
    const { retry } = this;
    const decision =
      retry === undefined || this.parts.admission.isStopping ? undefined : decideRetry(retry, error, run.attempt, run.context);
    switch (decision?.kind) {
      case 'throttle':
        this.throttled(run, error, decision.pause);
        return false;
      case 'transient':
        this.transient(run, error, decision.pause);
        return false;
      case 'item':
        if (++this.itemsInARow < (retry as ResolvedRetry).maxConsecutiveItemFailures) {
          this.itemFailed(run, decision.reason);
          return false;
        }
        this.fatal(run, tooManyItemFailures(this.itemsInARow, decision.reason));
        return true;
      default:
        this.fatal(run, decision === undefined ? error : decision.reason);
        return true;
    }
  }

  /** Tells the reporter the pace, if someone listens: it reports a change, or a drop. */
  reportPace(dropped: boolean): void {
    const { pacing } = this.parts;
    this.parts.reporter?.pace(pacing.currentLimit(), pacing.currentThreshold(), dropped);
  }

  /** A try was throttled, and asks for `pause` ms: the task waits to go again, every start pauses, and the pace drops. */
  private throttled(run: TaskRun<T>, error: unknown, pause: number): void {
    const { admission, gate, waits, pacing, tasks, retries, reporter } = this.parts;
    admission.invalidate();
    const now = this.clock.now();
    const before = gate.openAt();
    const { learned } = waits;
    waits.throttle.throttled(now, learned === undefined ? pause : learned.rate.jittered(pause));
    // Queued before anyone hears of it: a listener that cancels the run then finds it to abandon.
    retries.push({ group: run.group, position: run.position, factory: run.factory, attempt: run.attempt, reason: error });
    // Only what no later announcement can bring forward: the retry comes no sooner than this.
    reporter?.throttled(run, error, gate.promisedAt());
    gate.changed(before, now, 'throttle');
    // The task counts as in flight: the pace drops from what was in flight when it failed.
    if (pacing.throttled(run.drops, tasks.active + 1)) {
      learned?.rate.dropped(now, gate.promisedAt());
      this.reportPace(true);
    }
  }

  /** A try failed for good, and so does the run: its result says why. */
  private fatal(run: TaskRun<T>, reason: unknown): void {
    this.parts.book.reject(run.group, run.position, reason, run.factory);
    this.parts.reporter?.failed(run, reason, 'fatal');
  }

  /** A task failed for good on its own: its result lists it, and the run goes on. */
  private itemFailed(run: TaskRun<T>, reason: unknown): void {
    const { book, reporter, pacing } = this.parts;
    book.failItem(run.group, run.position, reason, run.factory);
    reporter?.failed(run, reason, 'item');
    pacing.failedAlone(true);
    // The try settled its slot: the batch it closes may have grown the pace.
    this.reportPace(false);
  }

  /** A try failed for a reason of its own: the task alone waits `pause` ms to go again; nothing else waits. */
  private transient(run: TaskRun<T>, error: unknown, pause: number): void {
    const { backoffs, reporter, pacing } = this.parts;
    const now = this.clock.now();
    const due = now + pause;
    backoffs.push({ group: run.group, position: run.position, factory: run.factory, attempt: run.attempt, reason: error }, due, now);
    reporter?.retrying(run, error, due);
    pacing.failedAlone(false);
    this.reportPace(false);
  }

  /**
   * Under `rateLimit`, or for a limiter that takes its rate from the server: what a try's value or error
   * announces of the server's budget, which moves the hold on the next start and the limiter's rate. A
   * reader that throws reads nothing; its error goes where errors with nowhere to go do.
   */
  private heard(outcome: unknown, run: TaskRun<T>): void {
    const { announced } = this.parts.waits;
    if (announced === undefined && this.limiter === undefined) return;
    let state;
    try {
      // A limiter that takes its rate from the server reads the headers even where the pace does not.
      state = announced === undefined ? readAnnounced(outcome) : announced.read(outcome);
    } catch (error) {
      this.clock.reportUnhandled(error);
      return;
    }
    if (state !== undefined) this.tellLimiter(state);
    if (announced === undefined) return;
    // Most answers announce nothing: no clock read for them.
    if (state === undefined && !announced.hold.unannounced(run.order)) return;
    const now = this.clock.now();
    const { gate, tasks } = this.parts;
    const before = gate.openAt();
    announced.hold.heard(state, now, run.order, tasks.tries);
    gate.changed(before, now, 'rate limit');
  }

  /** A limiter that takes its rate from the server hears what was announced; its error goes where errors with nowhere to go do. */
  private tellLimiter(budgets: readonly RateLimitState[]): void {
    try {
      this.limiter?.announced(budgets);
    } catch (error) {
      this.clock.reportUnhandled(error);
    }
  }
}

/** The reason of the item failure that ends a run for following too many others with no success between. */
function tooManyItemFailures(count: number, reason: unknown): Error {
  return new Error(
    `${count} item failures in a row, with no success between them: the run stops, as after a fatal failure (see retry.maxConsecutiveItemFailures)`,
    { cause: reason },
  );
}
