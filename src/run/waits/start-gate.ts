// The one timer over every wait: no task starts before the latest of their answers, and when that
// time comes the runner looks again at what may start.
import type { Cancellable, RunnerHost } from '../../host.js';
import { MAX_TIMER_DELAY } from '../../timer-limit.js';
import type { Reporter } from '../reporter.js';
import type { PauseCause, Wait } from './wait.js';

/** The host's clock and timers: all the gate needs of it. */
type Clock = Pick<RunnerHost<unknown>, 'now' | 'schedule'>;

/** A wait that hears of each start. */
type Spacer = Wait & Required<Pick<Wait, 'started'>>;

export class StartGate {
  /** The waits that hear of each start, to space the next. */
  private readonly spacers: readonly Spacer[];
  /** The timer that ends the pause, while one is scheduled. */
  private timer: Cancellable | undefined;
  /** Set once nothing may start any more: no timer is armed after it. */
  private stopped = false;
  /** When the try starting now started, read once for every wait that hears of it. */
  private startTime = NaN;
  /**
   * The latest of the waits' answers, as `changed` last found it: a wait's answer only moves when it
   * is told of a start or of what a try heard, and each is followed by `changed`.
   */
  private openTime = -Infinity;

  /**
   * @param waits Every source of waiting of the run.
   * @param clock The host's clock and timers.
   * @param wake Called when the pause ends: the runner looks again at what may start.
   * @param moved Called when the end of the pause moves: what may start has changed.
   * @param reporter Told where the pause ends now, when someone listens.
   */
  constructor(
    private readonly waits: readonly Wait[],
    private readonly clock: Clock,
    private readonly wake: () => void,
    private readonly moved: () => void,
    private readonly reporter: Pick<Reporter<unknown>, 'paused'> | undefined,
  ) {
    this.spacers = waits.filter((wait): wait is Spacer => wait.started !== undefined);
  }

  /** When starts may begin again: the latest of the waits' answers, `-Infinity` when none waits. */
  openAt(): number {
    let at = -Infinity;
    for (const wait of this.waits) at = Math.max(at, wait.nextStart());
    return at;
  }

  /** The latest of the answers that only move later: a time no start comes before, whatever is heard next. */
  promisedAt(): number {
    let at = -Infinity;
    for (const wait of this.waits) if (wait.onlyLater) at = Math.max(at, wait.nextStart());
    return at;
  }

  /** Whether no task may start now. */
  isShut(): boolean {
    const at = this.openTime;
    // No clock read on the way of a run that has never waited.
    return at !== -Infinity && at > this.clock.now();
  }

  /** A try is about to start: the waits that count starts hear of it before it can settle. */
  starting(): void {
    if (this.spacers.length === 0) return;
    const now = (this.startTime = this.clock.now());
    for (const wait of this.spacers) wait.starting?.(now);
  }

  /** The try that `starting` announced is under way, the run's `tries`-th: the waits that space starts answer for the next. */
  started(tries: number): void {
    const now = this.startTime;
    for (const wait of this.spacers) {
      const before = this.openAt();
      wait.started(now, tries);
      this.changed(before, now, wait.cause);
    }
  }

  /**
   * A wait's answer may have changed at `now`, from an end of the pause at `before`: if the end moved,
   * it is reported, the runner is told, and the timer is armed for it. An end that moved into the past
   * ends the pause now.
   */
  changed(before: number, now: number, cause: PauseCause): void {
    const until = (this.openTime = this.openAt());
    if (until === before || (until <= now && before <= now)) return;
    this.moved();
    this.reporter?.paused(Math.max(until, now), cause);
    // A timer set for a later end would start the next task late; one set for an earlier end looks
    // again when it fires.
    if (until < before) this.cancel();
    this.arm(until - now);
  }

  /** Nothing may start any more: the timer is cancelled, and none is armed again. */
  stop(): void {
    this.stopped = true;
    this.cancel();
  }

  /**
   * Arms the timer to fire in `left` ms, unless one is armed. No longer than a timer can hold: a longer
   * one fires at once. When it fires before the pause ends, it is armed again for what is left.
   */
  private arm(left: number): void {
    if (left <= 0 || this.timer !== undefined || this.stopped) return;
    this.timer = this.clock.schedule(
      () => {
        this.timer = undefined;
        const rest = this.openAt() - this.clock.now();
        if (rest > 0) this.arm(rest);
        else this.wake();
      },
      Math.min(left, MAX_TIMER_DELAY),
    );
  }

  private cancel(): void {
    this.timer?.unsubscribe();
    this.timer = undefined;
  }
}
