// One budget's part of §13's pace: what a client may start of a budget a server announces, and when.
// Times are on the scheduler's clock (ms). No RxJS, no timers: an announcement in, the earliest next
// start out.
import type { RateLimitState } from './rate-limit.js';

/** The latest announcement, and what the client may still start on it. */
interface Reading {
  /** The try that brought it, by the order tries started: one that started before it brings older news. */
  readonly order: number;
  /** The requests the server had left when it counted that try, for every client drawing from the budget. */
  readonly remaining: number;
  /**
   * When the budget is reset at the latest: the soonest of what this window's announcements said.
   * Servers announce the reset in whole seconds, rounded up, from when they counted the try; the
   * response is read later still, so every announcement is an upper bound.
   */
  readonly resetAt: number;
  /** When to start again if the share runs out: the reset, and a little more, drawn once. */
  readonly resumeAt: number;
  /**
   * Drawn in [0, 1) with each reading: the part of a try the share's fraction allows, so that fractions
   * add up. Drawn once a window, a client that drew low was out of every window's last tries, however
   * many readings it had: a draw each reading gives each of them the same chance.
   */
  readonly spare: number;
  /** Set when no announcement brought it: the window the client expects after a reset, until one does. */
  readonly expected: boolean;
}

/** A share below this would stall a client whose first readings were noisy. */
const MIN_SHARE = 0.01;
/** The resolution of an announced reset, and the window assumed when none is announced. */
export const SECOND = 1000;
/**
 * The part of its share a client takes once it is sure of the share. What it reads is a latency old:
 * while the budget falls by what every client has in flight, each one's reading overstates what is
 * left, and the tries all of them start on it are refused at the end of a window. A 429 costs more
 * than the try: its client pauses a whole `Retry-After`, into the next window.
 */
export const MARGIN = 0.6;
/** What the share's measures from earlier windows count for in a new one. */
const DECAY = 0.5;
/**
 * What a client asks above the share it measured, as a part of the budget: Chiu and Jain's additive
 * increase (1989). Every client adds the same, and the measurement divides the whole by one factor
 * that every client sees alike, as a window is shared out among what they all asked; so a client below
 * an equal part gains on those above it, window after window, until the parts are equal, without any
 * of them knowing how many they are. A measured share alone would keep whatever split the clients
 * began with.
 */
export const PROBE = 0.03;
/**
 * The longest a client spreads the tries its share allows over: until the reset, or this long after
 * its last start if the reset is further away. Spread, a client's tries meet what the others left, not
 * what the first to come back after a reset left: that matters where resets come every second. A
 * budget of a minute or a day is not spread over the minute or the day: it would hold the run to a
 * rate of its own, below what the budget that binds now allows.
 */
export const SPREAD_MS = 1000;
/**
 * The part of the time to the reset over which a client that sees no other spreads its tries: nearly
 * as fast as at once, for a run alone, and room all the same for another client. Started at once, a
 * window would be spent before another client came back after its reset: that one would find the
 * budget spent, pause a whole `Retry-After`, and never draw from a window where the first could see it.
 */
export const ALONE_SPREAD = 0.3;
/**
 * More remaining than the latest reading, from a newer try, by more than this part of the budget: a
 * new window, though the reset the client expects is still ahead (servers round it up to a whole second,
 * and a client hears of it late). By less, the server counted the newer try before an older one.
 */
const NEW_WINDOW = 1 / 8;
/**
 * A client that comes back after the reset it expected and finds much of the window spent came back
 * late: the server's window began earlier, at another client's try. Servers round the reset up to a
 * whole second, so every answer of that window says the same late reset, and the client would come
 * back as late in every window, to what the others left: its share falls, window after window. So the
 * first answer after the reset also says when the window began: about as long before as spending what
 * it has spent (the client's own try aside) takes at an even pace. The window ends that long after its
 * beginning and this part of a window later, for the first tries every client starts after its reset,
 * which spend a window faster than an even pace. A client that came back in time finds little spent,
 * and keeps the announced reset.
 */
export const EARLY_SPENDING = 0.1;
/**
 * The tries of a whole window's budget a client that sees others leaves to their news, whatever its
 * share: it starts a try only while its share, this many tries of the budget smaller, covers it. What
 * a client reads is as old as its own last try, and clients that share a budget of a few tries each
 * start about as often as each other: by then about one more try per client has been counted. The
 * window's last tries, started on readings that overstated what was left by that many, were refused,
 * and a 429 costs its client the next window. Taken off the share, it weighs on every client alike, in
 * proportion to what is left; at a budget of hundreds of tries a client it is nothing.
 */
export const KEPT_BACK = 1;
/** The most a start after a reset is put off at random: enough to spread clients, short against a window. */
export const JITTER_MS = 25;

/**
 * A client's pace from one rate-limit budget its responses announce. Before the first announcement it
 * sets no limit: the run paces as it would without it.
 *
 * Its share of the budget is what it can tell of the other clients: between two announcements of one
 * window the budget fell by what every client spent, its own tries among them. It asks {@link PROBE} of
 * the budget more than that, so that clients that share a budget come to equal parts of it. The tries
 * it started after the try that brought the latest announcement are not counted in it yet. While
 * {@link MARGIN} of its share of what remains (less while few windows have measured it, and
 * {@link KEPT_BACK} smaller while it sees others) covers them and one more, the next may start, spread
 * evenly until the reset (or over {@link SPREAD_MS}), so that what a client is served does not depend
 * on when it comes back after a reset; over the first {@link ALONE_SPREAD} of that while it sees no
 * other, since the budget of a window spent early is spent all the same. A share's fraction of a try is
 * rounded up or down at random with each answer, so that clients whose shares are fractions spend the
 * budget between them. With no share left the client waits for the reset, and then a little more,
 * drawn at random, so that clients sharing a budget do not all start again in one millisecond. After
 * the reset one try starts to hear where the new window stands, and the rest wait for its announcement;
 * if its answer announces nothing, the budget holds nothing until an answer does.
 *
 * The reset a server announces is rounded up to a whole second, so a client of a window of a second
 * hears of a reset from the first answer that shows more remaining, before the reset it expects, and
 * tells from the first answer after a reset when the window began ({@link EARLY_SPENDING}).
 */
export class OneBudget {
  /** The latest announcement read, if any. */
  private reading: Reading | undefined;
  /** The client's share of the budget, from 1 (it sees no other client) down to `MIN_SHARE`. */
  private share = 1;
  /** The client's own tries between its announcements, and what the budget fell by meanwhile; earlier windows decayed. */
  private ownInWindow = 0;
  private fallInWindow = 0;
  /** The remaining budget the current window was first read with. */
  private windowTop = 0;
  /** A whole window's budget: the announced limit, or else the most a window was read with. */
  private budget = 0;
  /** How long a window lasts: as announced, or else a second. */
  private windowLength = SECOND;
  /** Set when the try that was to hear where a window stands after its reset announced nothing: no hold until one does. */
  private released = false;
  /** The tries started before the latest reading's reset, as `nextStart` last saw them. */
  private startedByReset = 0;
  /**
   * How sure the client is of its share: the weight of the windows it was measured in, against the
   * most they can weigh, from 1/2 in the first window to 3/4 in the second and on towards 1. In the
   * first window every client ramps up at once, from shares measured on a few tries each: taken
   * whole, they end the window in 429s.
   */
  private sureness = 1 - DECAY;

  /**
   * @param random A number in [0, 1): the jitter after a reset, and the rounding of a share's fraction.
   * @param startedBefore The tries started as of the last `nextStart`.
   * @param measuresFirst Whether this budget's first announcement is the run's first, which measures the
   *   share from the run's tries so far against what the window has lost.
   */
  constructor(
    private readonly random: () => number,
    private startedBefore: number,
    private readonly measuresFirst: boolean,
  ) {}

  /**
   * The try `order` (its place in the order tries started) announced `state` at `now`. An announcement
   * from a try that started before the latest one read is older, and ignored. Within a window the
   * budget only falls: a newer announcement with more remaining than a try counted before the latest
   * could explain ({@link NEW_WINDOW}), or one after the reset, opens a window.
   */
  announced(state: RateLimitState, now: number, order: number): void {
    const before = this.reading;
    if (before !== undefined && order <= before.order) return;
    const upperReset = now + state.resetIn;
    const beforeReset = before !== undefined && now < before.resetAt;
    const more = before === undefined ? 0 : state.remaining - before.remaining;
    // Heard after the reset, from a try started before it, with less remaining: the try was counted
    // in the window that has ended, late. Taken as a new window's, it would hold the client for most of
    // one: the reset it announces is rounded up to a whole second from a count at the old one's end.
    if (!beforeReset && before !== undefined && !before.expected && order <= this.startedByReset && more < 0) return;
    // A little more remaining than the latest, and no more than the window began with: counted before it all the same.
    if (beforeReset && more > 0 && more <= Math.max(1, NEW_WINDOW * this.budget) && state.remaining <= this.windowTop) return;
    const sameWindow = beforeReset && more <= 0;
    if (before === undefined) {
      // The run's first announcement: its own tries so far against what the window has lost.
      if (state.limit !== undefined && this.measuresFirst) this.measure(order, state.limit - state.remaining);
    } else if (sameWindow && !before.expected) {
      // Not measured on a spent budget, whose fall is no longer seen.
      if (state.remaining > 0) this.measure(order - before.order, before.remaining - state.remaining);
    } else {
      // A new window: earlier ones count for less, as the clients drawing from the budget come and go.
      this.sureness = 1 - (1 - this.sureness) * DECAY;
      this.ownInWindow *= DECAY;
      this.fallInWindow *= DECAY;
    }
    this.released = false;
    if (!sameWindow) this.windowTop = state.remaining;
    this.budget = Math.max(state.limit ?? 0, this.windowTop);
    this.windowLength = state.window ?? SECOND;
    let resetAt = sameWindow && !before.expected ? Math.min(before.resetAt, upperReset) : upperReset;
    // The first answer after the reset the client expected: when the window began, from what it has spent.
    if (sameWindow && before.expected) {
      resetAt = Math.min(resetAt, now + this.windowLength * ((state.remaining + 1) / this.budget + EARLY_SPENDING));
    }
    this.reading = this.readingOf(order, state.remaining, resetAt, false);
  }

  /**
   * The try `order` answered and announced nothing of this budget. After a reset the client waits for
   * the answer of one try to hear where the new window stands; if that answer says nothing, nothing
   * will: some servers announce the budget only on their 429s (rate-limiter-flexible's README recipe),
   * and a success says nothing. Held on, the run would start one try a window. So the budget holds
   * nothing until it is announced again, and the run paces as it would without it, the share
   * measured so far kept for the next announcement. An answer that says nothing within a window changes
   * nothing: what the window announced holds until its reset, whatever else the server answers (a
   * route it does not limit, say). Nor does one from a try that started before the one that was to
   * hear: it is older news. Returns whether it released a hold.
   */
  unannounced(order: number): boolean {
    const { reading } = this;
    if (reading === undefined || !reading.expected || this.released || order <= reading.order) return false;
    this.released = true;
    return true;
  }

  private readingOf(order: number, remaining: number, resetAt: number, expected: boolean): Reading {
    const spare = this.random();
    return { order, remaining, resetAt, resumeAt: resetAt + this.random() * JITTER_MS, spare, expected };
  }

  /** Between two announcements the client spent `own` of the budget's `fall`. */
  private measure(own: number, fall: number): void {
    this.ownInWindow += own;
    this.fallInWindow += fall;
    // With no fall yet the client sees no other: a share of 1, as it began.
    this.share = Math.max(MIN_SHARE, Math.min(1, this.ownInWindow / this.fallInWindow));
  }

  /**
   * The earliest time at or after `now` the next try may start, with `started` tries started so far:
   * `now` when nothing limits it, and the reset when the client's share is spent. `lastStartAt` is
   * when the latest of them started (`-Infinity` before any); `toStart`, how many tries the run has
   * still to start, when it knows.
   */
  nextStart(now: number, started: number, lastStartAt: number, toStart = Infinity): number {
    // Tries are told of as they start: those started since the last question started now.
    const startedBefore = this.startedBefore;
    this.startedBefore = started;
    let { reading } = this;
    if (reading === undefined || this.released) return now;
    if (now < reading.resetAt) this.startedByReset = started;
    if (now >= reading.resetAt) {
      // The window has reset, but other clients may have drawn from it since: one try, to hear where
      // it stands, and the rest when its announcement comes. A try that started just now counts in it.
      this.windowTop = this.budget;
      reading = this.reading = this.readingOf(startedBefore, this.budget, now + this.windowLength, true);
    }
    const uncounted = started - reading.order;
    if (reading.expected) return uncounted < 1 ? now : reading.resumeAt;
    const share = Math.min(1, this.share + PROBE);
    const part = MARGIN * this.sureness * reading.remaining;
    const left = part * share - uncounted + reading.spare;
    // Whether to start at all: among other clients, less `KEPT_BACK` of a window's budget. (A spent
    // budget that never announced a limit is 0.)
    const kept = share === 1 || this.budget === 0 ? 0 : (part * KEPT_BACK) / this.budget;
    if (left - kept < 1) return reading.resumeAt;
    // Spread, a client's tries wait for what the others leave; a client whose last tries fit in its
    // share of what is left takes nothing from them by starting those at once.
    if (toStart <= left) return now;
    // The tries left, spread evenly from the last start (the run's, which every try tells of as it
    // starts), with as long again after the last.
    const spread = Math.min((reading.resetAt - lastStartAt) * (share === 1 ? ALONE_SPREAD : 1), SPREAD_MS);
    return Math.max(now, lastStartAt + spread / (left + 1));
  }
}
