// Who may start, and when: the pacing's room, the retries that go first, the pause after a throttle
// and the spacing of `retry.learnRate`. The runner asks; the admission answers and keeps the timer
// that ends a pause.
import type { Cancellable, RunnerHost } from '../host.js';
import type { Backlog, Pacing, Start } from '../pacing/pacing.js';
import { Queue } from '../queue.js';
import type { ResultGroup } from '../result-book.js';
import { LearnedRate } from '../retry/learned-rate.js';
import type { ResolvedRetry } from '../retry/retry-options.js';
import { decideRetry } from '../retry/retry-policy.js';
import type { TaskRun } from '../task-run.js';

/** A task that failed with a throttle and waits to be tried again. */
export interface Retry<T> {
  readonly group: ResultGroup<T>;
  readonly position: number;
  readonly factory: unknown;
  /** The try that failed, and why: the task's reason if it is never tried again. */
  readonly attempt: number;
  readonly reason: unknown;
}

/** The clock and timers of the host, which is all the admission needs of it. */
type Clock = Pick<RunnerHost<unknown>, 'now' | 'schedule'>;

export class Admission<T> {
  /** Tasks that failed with a throttle and wait to be tried again, ahead of every new factory. */
  private readonly retries = new Queue<Retry<T>>();
  /** What the pacing is told; updated in place before each question. */
  private readonly backlog: Backlog = { inFlight: 0, waiting: 0, retrying: 0, mayStartShort: false };
  /** When the pause after a throttle ends, on the scheduler's clock: no task at all starts before. */
  private pausedUntil = -Infinity;
  /** The timer that ends the pause, while one is scheduled. */
  private pauseTimer: Cancellable | undefined;
  /** Under `retry.learnRate`, the start rate learned from throttles: it spaces starts with short pauses. */
  private readonly learnedRate: LearnedRate | undefined;
  /**
   * How many times a throttle or the learned rate has changed what may start: the runner stops starting
   * when it changes, even when the pause it asks for is already under way, and asks again.
   */
  changes = 0;

  /**
   * @param pacing How many may be in flight, and how tasks group into results.
   * @param retry The `retry` option, if any.
   * @param clock The host's clock and timers.
   * @param wake Called when a pause ends: the runner looks again at what may start.
   */
  constructor(
    private readonly pacing: Pacing,
    private readonly retry: ResolvedRetry | undefined,
    private readonly clock: Clock,
    private readonly wake: () => void,
  ) {
    this.learnedRate = retry?.learnRate === true ? new LearnedRate() : undefined;
  }

  /** How many retried tasks wait. */
  get retrying(): number {
    return this.retries.length;
  }

  /** How many tasks the pacing lets start now, with `waitingNew` new factories waiting besides the retries. */
  room(inFlight: number, waitingNew: number, mayStartShort: boolean): number {
    return this.pacing.room(this.observe(inFlight, waitingNew, mayStartShort));
  }

  /** How many factories the pacing would start now, beyond those waiting: what a lazy source is asked for. */
  wanted(inFlight: number, waitingNew: number, mayStartShort: boolean): number {
    const backlog = this.observe(inFlight, waitingNew, mayStartShort);
    return Math.max(0, this.pacing.wants(backlog) - backlog.waiting);
  }

  /** Whether a pause is under way; if so, a timer ends it. */
  paused(): boolean {
    // No clock read on the way of a run that has never been throttled.
    if (this.pausedUntil === -Infinity) return false;
    const left = this.pausedUntil - this.clock.now();
    if (left <= 0) return false;
    // No longer than setTimeout allows: a throttle's pause is capped at that limit, and
    // `learnRate` waits no longer between two starts than the pause after the last drop.
    this.pauseTimer ??= this.clock.schedule(() => {
      this.pauseTimer = undefined;
      this.wake();
    }, left);
    return true;
  }

  /** The retried task to start next, or `undefined` when a new factory starts. */
  nextRetry(): Retry<T> | undefined {
    return this.pacing.takesRetry() ? this.retries.shift() : undefined;
  }

  /** A task starts; the ticket is the pacing's, reused by the next start. */
  start(retried: boolean): Start {
    return this.pacing.start(retried);
  }

  /** Under `retry.learnRate`, after a start: pauses until the learned rate lets the next task start. */
  spaceNextStart(): void {
    if (this.learnedRate === undefined) return;
    const now = this.clock.now();
    const next = this.learnedRate.started(now);
    if (next <= now || next <= this.pausedUntil) return;
    this.pausedUntil = next;
    this.changes++;
    // The pause's timer starts the next task; nothing else may be on its way to look again.
    this.paused();
  }

  succeeded(run: TaskRun<T>): void {
    this.pacing.settled(true, run.round);
    this.learnedRate?.succeeded();
  }

  failed(run: TaskRun<T>): void {
    this.pacing.settled(false, run.round);
  }

  /**
   * Under `retry`, queues a task whose try failed with a throttle to be tried again after a pause, and
   * drops the pace; `inFlight` counts the task. Returns nothing if it did, or the reason the task
   * has failed for good.
   */
  retryLater(run: TaskRun<T>, error: unknown, inFlight: number): { reason: unknown } | undefined {
    if (this.retry === undefined) return { reason: error };
    const decision = decideRetry(this.retry, error, run.context);
    if (!decision.retry) return { reason: decision.reason };
    this.changes++;
    const now = this.clock.now();
    this.pausedUntil = Math.max(this.pausedUntil, now + decision.pause);
    if (this.pacing.throttled(run.round, inFlight)) this.learnedRate?.dropped(now, this.pausedUntil);
    this.retries.push({ group: run.group, position: run.position, factory: run.factory, attempt: run.attempt, reason: error });
    return undefined;
  }

  /** The run is ending: no new round of the pace opens. */
  stop(): void {
    this.pacing.stop();
  }

  /** The retried tasks still waiting, which the run will not try again: it is ending. */
  abandon(): Retry<T>[] {
    return this.retries.takeAll();
  }

  /** Nothing may start any more: the pause's timer is cancelled. */
  close(): void {
    this.pauseTimer?.unsubscribe();
    this.pauseTimer = undefined;
  }

  /** Updates what the pacing is told: what is in flight, and what could start now. */
  private observe(inFlight: number, waitingNew: number, mayStartShort: boolean): Backlog {
    const { backlog } = this;
    backlog.inFlight = inFlight;
    backlog.retrying = this.retries.length;
    backlog.waiting = backlog.retrying + waitingNew;
    backlog.mayStartShort = mayStartShort;
    return backlog;
  }
}
