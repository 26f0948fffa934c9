// `retry.learnRate`: after a throttle, tasks also start no faster than the server has served them.
//
// A server's rate limit is usually a bucket of tokens: it serves a burst at once, then a steady rate.
// A client sees the limit only when the bucket is empty, so a pace that grows until the next throttle
// (§10) drains the bucket again and again, and every client sharing it draws a volley of throttles each
// time. Between two throttles the bucket went from empty to empty, so what the server served in that
// time, pauses included, is what the bucket refilled with: the rate. A client that starts tasks no
// faster than that, and probes above it slowly, seldom empties the bucket.
import { MAX_TIMER_DELAY } from '../timer-limit.js';

/**
 * The most a throttle's pause is lengthened at random, as a share of it: clients throttled in one
 * burst would otherwise all come back in one millisecond, and be throttled together again.
 */
export const JITTER = 0.05;

/** How fast the allowed rate rises above the learned one: by this share of it per second without a drop. */
export const PROBE_PER_SECOND = 0.5;

/**
 * The start rate a run has learned from its throttles, on the scheduler's clock (ms). Before the first
 * drop of the pace there is no limit; at each drop the rate becomes the successes per ms since the
 * previous drop (since the first start, for the first drop). It is never slower than one start per
 * pause after the last drop, and from the end of that pause it rises by {@link PROBE_PER_SECOND} of
 * itself per second, so that capacity freed later (another client finishing, a limit raised) is found
 * again.
 */
export class LearnedRate {
  /** @param random A number in [0, 1): the jitter of a throttle's pause. */
  constructor(private readonly random: () => number = Math.random) {}

  /** When successes began to be counted: the first start, then the last drop with a success since. */
  private countingSince: number | undefined;
  /** Successes counted since then. */
  private successes = 0;
  /** The learned rate in tasks per ms, once a drop has measured one. */
  private perMs: number | undefined;
  /** The pause after the last drop: the longest wait between two starts. */
  private longestWait = 0;
  /** When the probe above the learned rate begins: the end of the pause after the last drop. */
  private probeFrom = 0;

  /** A task starts at `now`. Returns the earliest time the next one may start: `now` while there is no limit. */
  started(now: number): number {
    this.countingSince ??= now;
    if (this.perMs === undefined) return now;
    // Throttles that are not about the rate (every first try refused, say) would otherwise teach lower
    // and lower rates, each measured under the one before: the run would all but stop.
    const base = Math.max(this.perMs, 1 / this.longestWait);
    return now + 1 / (base * (1 + (PROBE_PER_SECOND * Math.max(0, now - this.probeFrom)) / 1000));
  }

  /** The rate learned at the last drop, in tasks per second; `undefined` before one measured it. */
  perSecond(): number | undefined {
    return this.perMs === undefined ? undefined : this.perMs * 1000;
  }

  /** A throttle asks for a pause of `pause` ms: it lasts up to {@link JITTER} of that longer, at random, within what a timer holds. */
  jittered(pause: number): number {
    return Math.min(MAX_TIMER_DELAY, pause * (1 + JITTER * this.random()));
  }

  /** A task has succeeded. */
  succeeded(): void {
    this.successes++;
  }

  /** The pace dropped at `now` after a throttle, and the pause ends at `pauseEnd`. */
  dropped(now: number, pauseEnd: number): void {
    this.probeFrom = pauseEnd;
    this.longestWait = pauseEnd - now;
    // With nothing served since the last drop there is nothing to learn from, and the count runs on.
    if (this.successes === 0) return;
    // With no time between (synchronous tasks), the rate is infinite: no limit, which is what was seen.
    this.perMs = this.successes / (now - (this.countingSince ?? now));
    this.countingSince = now;
    this.successes = 0;
  }
}
