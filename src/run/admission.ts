// Who may start, when, and which first: the pacing's room within `concurrency`, the retries that go
// ahead of new factories, the pause after a throttle and the spacing of `retry.learnRate` and of the
// budget `rateLimit` reads. The runner asks how many may start and tells it to start them; the
// admission takes each from the retries or the intake, places it in the results and hands it to the
// task set. It books how each try ended, as that decides what may start next: a success in its result
// and in the pace, a throttle back in the retry queue with a pause and a drop of the pace, a failure
// for good in its result, and what either announced of the server's budget.
import type { Cancellable, RunnerHost } from '../host.js';
import { AnnouncedBudget } from '../announced-budget.js';
import type { ResolvedOptions } from '../options.js';
import type { Backlog, Pacing } from '../pacing/pacing.js';
import { Queue } from '../queue.js';
import type { ResultBook, ResultGroup } from '../result-book.js';
import { LearnedRate } from '../retry/learned-rate.js';
import type { ResolvedRetry } from '../retry/retry-options.js';
import { decideRetry } from '../retry/retry-policy.js';
import type { TaskRun } from '../task-run.js';
import { MAX_TIMER_DELAY } from '../timer-limit.js';
import type { FlushClock } from './flush-clock.js';
import type { Intake } from './intake.js';
import type { Reporter } from './reporter.js';
import type { TaskSet } from './task-set.js';

/** A task that failed with a throttle and waits to be tried again. */
export interface Retry<T> {
  readonly group: ResultGroup<T>;
  readonly position: number;
  readonly factory: unknown;
  /** The try that failed, and why: the task's reason if it is never tried again. */
  readonly attempt: number;
  readonly reason: unknown;
}

/** The clock and timers of the host, and where an error with nowhere to go goes: all the admission needs of it. */
type Clock = Pick<RunnerHost<unknown>, 'now' | 'schedule' | 'reportUnhandled'>;

/** The run's pieces the admission reads and starts tasks into. */
export interface AdmissionParts<T> {
  readonly intake: Intake;
  readonly tasks: TaskSet<T>;
  readonly book: ResultBook<T>;
  /** Only when `flushAfter` is set. */
  readonly flush: FlushClock | undefined;
  /** Only when someone listens to the run's events. */
  readonly reporter: Reporter<T> | undefined;
}

/** What the admission tells the pacing: one object, filled in anew before each question. */
class Observed implements Backlog {
  inFlight!: number;
  waiting!: number;
  retrying!: number;
  mayStartShort!: boolean;
}

export class Admission<T> {
  /** Tasks that failed with a throttle and wait to be tried again, ahead of every new factory. */
  private readonly retries = new Queue<Retry<T>>();
  /** What the pacing is told; filled in by `observe` before each question. */
  private readonly backlog = new Observed();
  /** When the pause after a throttle ends, on the scheduler's clock: no task at all starts before. */
  private pausedUntil = -Infinity;
  /**
   * Under `rateLimit`, when the announced budget lets the next task start. Unlike a throttle's pause
   * it follows the latest announcement, which may bring it forward.
   */
  private heldUntil = -Infinity;
  /** The timer that ends the pause, while one is scheduled. */
  private pauseTimer: Cancellable | undefined;
  /** Under `retry.learnRate`, the starts per pause learned from throttles: it spaces them, and holds the rest. */
  private readonly learnedRate: LearnedRate | undefined;
  /** Under `rateLimit`, the budget the server announces, and what reads it from a try's value or error. */
  private readonly announced: { readonly budget: AnnouncedBudget; readonly read: NonNullable<ResolvedOptions['rateLimit']> } | undefined;
  /**
   * Set when a throttle or the learned rate changes what may start, since `startable()` last answered;
   * it has no value before that first answer, which nothing reads.
   */
  private startsChanged!: boolean;
  /** Set once the run stops starting (a failure for good, or the source's error): no task is retried. */
  private stopping = false;

  /** How many tasks may be in flight at most, whatever the pacing allows. */
  private readonly concurrency: number;
  /** The `retry` option, if any. */
  private readonly retry: ResolvedRetry | undefined;

  /**
   * @param pacing How many may be in flight, and how tasks group into results.
   * @param options The `concurrency` and `retry` options.
   * @param clock The host's clock and timers.
   * @param wake Called when a pause ends: the runner looks again at what may start.
   * @param parts What waits, the tasks in flight, the results, the flush clock and the reporter.
   */
  constructor(
    private readonly pacing: Pacing,
    options: Pick<ResolvedOptions, 'concurrency' | 'retry' | 'rateLimit'>,
    private readonly clock: Clock,
    private readonly wake: () => void,
    private readonly parts: AdmissionParts<T>,
  ) {
    this.concurrency = options.concurrency;
    this.retry = options.retry;
    const { reporter } = parts;
    this.learnedRate =
      options.retry?.learnRate === true ? new LearnedRate(reporter && ((perSecond) => reporter.rate(perSecond))) : undefined;
    this.announced = options.rateLimit === undefined ? undefined : { budget: new AnnouncedBudget(), read: options.rateLimit };
  }

  /** The run starts: the reporter, if any, hears of it and of the pace. */
  begin(): void {
    this.parts.reporter?.start();
    this.reportPace(false);
  }

  /** How many tasks wait to start: retried ones and new factories. */
  get waiting(): number {
    return this.retries.length + this.parts.intake.length;
  }

  /** Whether a retried task waits. */
  get retrying(): boolean {
    return this.retries.length > 0;
  }

  /** How many tasks the pacing lets start now, before `concurrency` and what waits are counted. */
  room(): number {
    return this.pacing.room(this.observe());
  }

  /**
   * How many tasks may start now: what the pacing, `concurrency` and the waiting tasks allow. The
   * answer holds until `changed()`.
   */
  startable(): number {
    this.startsChanged = false;
    return Math.min(this.room(), this.concurrency - this.parts.tasks.active, this.waiting);
  }

  /**
   * Whether a throttle or the learned rate has changed what may start since `startable()` answered, even
   * when the pause it asks for is already under way: the runner stops starting, and asks again.
   */
  changed(): boolean {
    return this.startsChanged;
  }

  /** Whether nothing can start now, with a factory just arrived. Only a shortcut: the runner's `pump` would start nothing. */
  cannotStartNow(): boolean {
    return this.paused() || this.room() === 0;
  }

  /** Asks a lazy source for the factories the pacing would start now and that are not waiting yet. */
  askSource(): void {
    const { intake } = this.parts;
    if (!intake.pulls) return;
    // The source's own code runs: a start after it reads the clock again.
    this.parts.reporter?.forgetReading();
    const backlog = this.observe();
    intake.request(Math.max(0, this.pacing.wants(backlog) - backlog.waiting));
  }

  /** Whether a pause is under way; if so, a timer ends it. */
  paused(): boolean {
    const until = this.pauseEnd();
    // No clock read on the way of a run that has never been throttled.
    if (until === -Infinity) return false;
    const left = Math.min(until - this.clock.now(), MAX_TIMER_DELAY);
    if (left <= 0) return false;
    // No longer than setTimeout allows: a throttle's pause is capped at that limit, and
    // `learnRate` waits no longer between two starts than a pause it was asked for. An announced
    // reset may be further away (§13): it is waited for in steps, each of which looks again.
    this.pauseTimer ??= this.clock.schedule(() => {
      this.pauseTimer = undefined;
      this.wake();
    }, left);
    return true;
  }

  /** Starts the next task: a retried one if the pacing takes it, or else the oldest waiting factory. */
  startNext(): void {
    const { intake, tasks, book, flush } = this.parts;
    const retry = this.pacing.takesRetry() ? this.retries.shift() : undefined;
    if (retry !== undefined) {
      // The same result and index, the next attempt, a fresh context.
      tasks.start(retry.group, retry.position, retry.factory, retry.attempt + 1, this.pacing.start(true).round);
      return;
    }
    // A flush is spent by the batch it starts, and so is its timer, armed for the oldest factory.
    flush?.started();
    const factory = intake.take();
    const start = this.pacing.start(false);
    // A result holds no more tasks than wait now and may join it: its nominal size can be far larger.
    const group = book.join(start.beginsResult, Math.min(start.resultSize, intake.length + 1));
    if (start.closesResult) book.closeLast();
    tasks.start(group, group.joined - 1, factory, 1, start.round);
  }

  /**
   * Under `retry.learnRate` or `rateLimit`, after a start: pauses until the learned rate and the
   * announced budget let the next task start.
   */
  spaceNextStart(): void {
    const { learnedRate } = this;
    const budget = this.announced?.budget;
    if (learnedRate === undefined && budget === undefined) return;
    const now = this.clock.now();
    if (learnedRate !== undefined) this.pauseUntil(learnedRate.started(now), now);
    if (budget !== undefined) this.holdUntil(budget.nextStart(now, this.parts.tasks.tries), now);
  }

  /** When starts may begin again: the end of the pause, or of the hold, whichever is later. */
  private pauseEnd(): number {
    return Math.max(this.pausedUntil, this.heldUntil);
  }

  /**
   * Pauses every start until `next`, for the learned rate, unless a pause that ends later is under way:
   * a throttle's pause is never cut short.
   */
  private pauseUntil(next: number, now: number): void {
    if (next <= now || next <= this.pausedUntil) return;
    const before = this.pauseEnd();
    this.pausedUntil = next;
    this.pauseMoved(before, now, 'learned rate');
  }

  /**
   * Holds every start until `next`, for the announced budget: the latest announcement decides, so a
   * hold may be brought forward as well as put off. It never shortens a pause.
   */
  private holdUntil(next: number, now: number): void {
    const before = this.pauseEnd();
    this.heldUntil = next;
    this.pauseMoved(before, now, 'rate limit');
  }

  /**
   * Reports where the end of the pause is now, if it moved from `before`; a pause that moved into
   * the past ends now.
   */
  private pauseMoved(before: number, now: number, cause: 'learned rate' | 'rate limit'): void {
    const until = this.pauseEnd();
    if (until === before || (until <= now && before <= now)) return;
    this.startsChanged = true;
    this.parts.reporter?.paused(Math.max(until, now), cause);
    // A timer set for a later end would start the next task late.
    if (until < before) this.close();
    // The pause's timer starts the next task; nothing else may be on its way to look again.
    this.paused();
  }

  /**
   * Under `rateLimit`: what a try's value or error announces of the server's budget, which moves the
   * hold on the next start. A reader that throws reads nothing; its error goes where errors with nowhere to go do.
   */
  private heard(run: TaskRun<T>, outcome: unknown): void {
    const { announced } = this;
    if (announced === undefined) return;
    let state;
    try {
      state = announced.read(outcome);
    } catch (error) {
      this.clock.reportUnhandled(error);
      return;
    }
    if (state === undefined && !announced.budget.unannounced(run.order)) return;
    const now = this.clock.now();
    announced.budget.announced(state, now, run.order);
    this.holdUntil(announced.budget.nextStart(now, this.parts.tasks.tries), now);
  }

  /**
   * A task has succeeded with `value`: it is placed in its result, and the pace hears of it. Returns
   * whether its result is complete, to be emitted before another task starts.
   */
  succeeded(run: TaskRun<T>, value: T | undefined): boolean {
    const { group } = run;
    const { book, reporter } = this.parts;
    book.fulfil(group, run.position, value);
    reporter?.succeeded(run, value);
    this.heard(run, value);
    this.pacing.succeeded(run.round);
    this.learnedRate?.succeeded();
    this.reportPace(false);
    return group.settled === group.size;
  }

  /**
   * A task's try has failed with `error`. Under `retry`, unless the run is stopping, a throttle queues
   * it to be tried again after a pause and drops the pace. Otherwise it has failed for good, and its
   * result says why: then it returns true, and the run must stop starting.
   */
  failed(run: TaskRun<T>, error: unknown): boolean {
    this.heard(run, error);
    const decision = this.retry === undefined || this.stopping ? undefined : decideRetry(this.retry, error, run.attempt, run.context);
    const { book, reporter } = this.parts;
    if (decision?.retry !== true) {
      const reason = decision === undefined ? error : decision.reason;
      book.reject(run.group, run.position, reason, run.factory);
      reporter?.failed(run, reason);
      return true;
    }
    this.startsChanged = true;
    const now = this.clock.now();
    const pausedBefore = this.pauseEnd();
    const pause = this.learnedRate === undefined ? decision.pause : this.learnedRate.jittered(decision.pause);
    this.pausedUntil = Math.max(this.pausedUntil, now + pause);
    const until = this.pauseEnd();
    reporter?.throttled(run, error, until);
    if (until > pausedBefore && until > now) reporter?.paused(until, 'throttle');
    // The task counts as in flight: the pace drops from what was in flight when it failed.
    if (this.pacing.throttled(run.round, this.parts.tasks.active + 1)) {
      this.learnedRate?.dropped(now, this.pausedUntil);
      this.reportPace(true);
    }
    this.retries.push({ group: run.group, position: run.position, factory: run.factory, attempt: run.attempt, reason: error });
    return false;
  }

  /** Tells the reporter the pace, if someone listens: it reports a change, or a drop. */
  reportPace(dropped: boolean): void {
    this.parts.reporter?.pace(this.pacing.currentLimit(), this.pacing.currentThreshold(), dropped);
  }

  /**
   * Asks a lazy source for what the pacing would start now, and arms the flush timer if it may fire:
   * not during a pause, whose own timer looks again when it ends, and not once the run stops starting.
   */
  askForFactories(): void {
    this.askSource();
    if (this.parts.tasks.active === 0 && !this.stopping && !this.paused()) this.parts.flush?.arm();
  }

  /** The run stops starting: no new round of the pace opens, and no task is tried again. */
  stop(): void {
    this.stopping = true;
    this.pacing.stop();
  }

  /** The run is ending: the retried tasks still waiting are not tried again; they are abandoned, with the reason of their last try. */
  abandonRetries(): void {
    const { book, reporter } = this.parts;
    for (const { group, position, attempt, reason, factory } of this.retries.takeAll()) {
      book.reject(group, position, reason, factory, true);
      reporter?.abandoned(group, position, attempt, reason);
    }
  }

  /** Nothing may start any more: the pause's timer is cancelled. */
  close(): void {
    this.pauseTimer?.unsubscribe();
    this.pauseTimer = undefined;
  }

  /** Updates what the pacing is told: what is in flight, and what could start now. */
  private observe(): Backlog {
    const { backlog } = this;
    const { intake, tasks, flush } = this.parts;
    backlog.inFlight = tasks.active;
    backlog.retrying = this.retries.length;
    backlog.waiting = backlog.retrying + intake.length;
    backlog.mayStartShort = intake.done || flush?.due === true;
    return backlog;
  }
}
