// How each try ended, booked where it decides what comes next: a success in its result and in the
// pace; a throttle back in the retry queue, with a pause and a drop of the pace (§10); a failure for
// good in its result; and what either announced of the server's budget (§13).
import type { RunnerHost } from '../host.js';
import type { Pacing } from '../pacing/pacing.js';
import type { ResultBook } from '../result-book.js';
import type { ResolvedRetry } from '../retry/retry-options.js';
import { decideRetry } from '../retry/retry-policy.js';
import type { TaskRun } from '../task-run.js';
import type { Admission } from './admission.js';
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
  readonly tasks: TaskSet<T>;
  readonly book: ResultBook<T>;
  /** Only when someone listens to the run's events. */
  readonly reporter: Reporter<T> | undefined;
}

export class Outcomes<T> {
  /**
   * @param retry The `retry` option, if any.
   * @param clock The host's clock, and where an error with nowhere to go goes.
   * @param parts What a try's end is booked in.
   */
  constructor(
    private readonly retry: ResolvedRetry | undefined,
    private readonly clock: Pick<RunnerHost<unknown>, 'now' | 'reportUnhandled'>,
    private readonly parts: OutcomeParts<T>,
  ) {}

  /** The run starts: the reporter, if any, hears of it and of the pace. */
  begin(): void {
    this.parts.reporter?.start();
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
    reporter?.succeeded(run, value);
    this.heard(value, run);
    pacing.succeeded(run.drops);
    waits.learned?.rate.succeeded();
    this.reportPace(false);
    return group.settled === group.size;
  }

  /**
   * A task's try has failed with `error`. Under `retry`, unless the run is stopping, a throttle queues
   * it to be tried again after a pause and drops the pace. Otherwise it has failed for good, and its
   * result says why: then it returns true, and the run must stop starting.
   */
  failed(run: TaskRun<T>, error: unknown): boolean {
    this.heard(error, run);
    const { admission, book, reporter } = this.parts;
    const decision =
      this.retry === undefined || admission.isStopping ? undefined : decideRetry(this.retry, error, run.attempt, run.context);
    if (decision?.retry !== true) {
      const reason = decision === undefined ? error : decision.reason;
      book.reject(run.group, run.position, reason, run.factory);
      reporter?.failed(run, reason);
      return true;
    }
    this.throttled(run, error, decision.pause);
    return false;
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

  /**
   * Under `rateLimit`: what a try's value or error announces of the server's budget, which moves the
   * hold on the next start. A reader that throws reads nothing; its error goes where errors with nowhere to go do.
   */
  private heard(outcome: unknown, run: TaskRun<T>): void {
    const { announced } = this.parts.waits;
    if (announced === undefined) return;
    let state;
    try {
      state = announced.read(outcome);
    } catch (error) {
      this.clock.reportUnhandled(error);
      return;
    }
    // Most answers announce nothing: no clock read for them.
    if (state === undefined && !announced.hold.unannounced(run.order)) return;
    const now = this.clock.now();
    const { gate, tasks } = this.parts;
    const before = gate.openAt();
    announced.hold.heard(state, now, run.order, tasks.tries);
    gate.changed(before, now, 'rate limit');
  }
}
