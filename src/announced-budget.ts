// §13's pace: starts spaced so that a client's share of the budget a server announces lasts until the
// reset. Times are on the scheduler's clock (ms). No RxJS, no timers: an announcement in, the earliest
// next start out; the admission keeps the pause.
import type { RateLimitState } from './rate-limit.js';

/** The latest announcement, and what the client did since it was read. */
interface Reading {
  /** When the budget is reset at the latest, on the scheduler's clock. */
  readonly resetAt: number;
  /**
   * When it may be reset at the earliest: servers announce the reset in whole seconds, rounded up, so
   * `t=1` is anywhere within the next second. Before this instant the budget only falls.
   */
  readonly earliestReset: number;
  /** The requests the server had left then, for every client drawing from the budget. */
  readonly remaining: number;
  /** The client's own tries in flight then: the server will count them against `remaining`. */
  readonly inFlight: number;
  /** When to start again if the share runs out: the reset, and a little more, drawn once. */
  readonly resumeAt: number;
}

/** A share below this would stall a client whose first readings were noisy. */
const MIN_SHARE = 0.01;
/** The most a start after a reset is put off at random: enough to spread clients, short against a window. */
const JITTER_MS = 50;
/** The resolution of an announced reset. */
const SECOND = 1000;

/**
 * A client's pace from the rate-limit budget its responses announce. Before the first announcement,
 * and from each reset until an announcement after it, it sets no limit: the run paces as it would without it.
 *
 * Its share of the budget is what it can tell of the other clients: between two announcements of one
 * window, the budget fell by what every client spent, and by one for each of its own responses. Spread
 * evenly until the reset, its share of what remains, less its own tries in flight, says when the next
 * may start. With no share left it waits for the reset, and then a little more, drawn at random, so
 * that clients sharing a budget do not all start again in one millisecond.
 */
export class AnnouncedBudget {
  /** The latest announcement read, if any. */
  private reading: Reading | undefined;
  /** Starts since the latest announcement was read. */
  private startedSince = 0;
  /** When the last try started: the next is spaced from it. */
  private lastStart = -Infinity;
  /** The client's share of the budget, from 1 (it sees no other client) down to `MIN_SHARE`. */
  private share = 1;
  /** The client's own responses read in the current window, and what the budget fell by meanwhile. */
  private ownInWindow = 0;
  private fallInWindow = 0;

  /** @param random A number in [0, 1): the jitter after a reset. */
  constructor(private readonly random: () => number = Math.random) {}

  /** A try starts at `now`. */
  started(now: number): void {
    this.startedSince++;
    this.lastStart = now;
  }

  /**
   * A response announced `state` at `now`, with `inFlight` of the client's other tries still in flight.
   * Before the latest announcement's earliest reset the budget only falls: one with more remaining than
   * the latest was counted before it, and arrives late. It is ignored.
   */
  announced(state: RateLimitState, now: number, inFlight: number): void {
    const before = this.reading;
    const sameWindow = before !== undefined && now < before.earliestReset;
    if (sameWindow && state.remaining > before.remaining) return;
    const resetAt = now + state.resetIn;
    const earliestReset = now + Math.max(0, state.resetIn - SECOND);
    if (sameWindow) {
      this.ownInWindow++;
      this.fallInWindow += before.remaining - state.remaining;
      if (this.fallInWindow > 0) this.share = Math.max(MIN_SHARE, Math.min(1, this.ownInWindow / this.fallInWindow));
    } else {
      this.ownInWindow = 0;
      this.fallInWindow = 0;
    }
    this.reading = { resetAt, earliestReset, remaining: state.remaining, inFlight, resumeAt: resetAt + this.random() * JITTER_MS };
    this.startedSince = 0;
  }

  /**
   * The earliest time at or after `now` the next try may start: `now` when nothing limits it. What is
   * left of the share is spread evenly over the time to the reset, counted from the last start.
   */
  nextStart(now: number): number {
    const { reading } = this;
    if (reading === undefined || now >= reading.resetAt) return now;
    const left = this.share * reading.remaining - reading.inFlight - this.startedSince;
    if (left >= 1) return Math.max(now, Math.min(this.lastStart, now) + (reading.resetAt - now) / left);
    // Nothing left of the client's share: the budget comes back at the reset.
    return reading.resumeAt;
  }
}
