// §13's pace: a client starts no more than its share of each budget a server announces before that
// budget's reset. Times are on the scheduler's clock (ms). No RxJS, no timers: an announcement in, the
// earliest next start out; the admission keeps the pause.
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
  /** Drawn once in [0, 1): the part of a try the share's fraction allows, so that fractions add up. */
  readonly spare: number;
  /** Set when no announcement brought it: the window the client expects after a reset, until one does. */
  readonly expected: boolean;
}

/** A share below this would stall a client whose first readings were noisy. */
const MIN_SHARE = 0.01;
/** The resolution of an announced reset, and the window assumed when none is announced. */
const SECOND = 1000;
/**
 * The part of its share a client takes once it is sure of the share. What it reads is a latency old:
 * while the budget falls by what every client has in flight, each one's reading overstates what is
 * left, and the tries all of them start on it are refused at the end of a window. A 429 costs more
 * than the try: its client pauses a whole `Retry-After`, into the next window.
 */
export const MARGIN = 0.7;
/** What the share's measures from earlier windows count for in a new one. */
const DECAY = 0.5;
/** The most a start after a reset is put off at random: enough to spread clients, short against a window. */
const JITTER_MS = 25;
/**
 * The most budgets a run keeps: servers announce one to three. A reader of the caller's that names every
 * announcement anew would otherwise make one per response, each asked at every start.
 */
const MAX_BUDGETS = 16;

/**
 * The budgets a server announces at once (a burst per second and a quota per day), each of which holds:
 * the earliest next start is the latest that any of them allows. Each budget is told apart from the
 * others, from one announcement to the next, by its policy's name when the server names it, or else by
 * its window, or else by its place in the announcement.
 */
export class AnnouncedBudget {
  /** The budgets announced so far, by what tells them apart. */
  private readonly budgets = new Map<string, OneBudget>();
  /** The tries started as of the last `nextStart`: where a budget first announced later begins to count. */
  private startedBefore = 0;
  /**
   * Set while a resumed run waits for the answer of its first try, which tells how much of the budget
   * is left: the tries started before it, and when to go on without an answer.
   */
  private hearing: { readonly order: number; readonly until: number } | undefined;

  /** @param random A number in [0, 1): the jitter after a reset, and the rounding of a share's fraction. */
  constructor(private readonly random: () => number = Math.random) {}

  /**
   * The try `order` (its place in the order tries started) announced `states` at `now`: one budget, or
   * several at once, or none (`undefined`). Each is told to the budget it is, which ignores it if it is
   * older than its latest; a budget it leaves out hears that the try announced nothing of it.
   */
  announced(states: RateLimitState | readonly RateLimitState[] | undefined, now: number, order: number): void {
    if (this.hearing !== undefined && order > this.hearing.order) this.hearing = undefined;
    const all: readonly RateLimitState[] = states === undefined ? [] : Array.isArray(states) ? states : [states as RateLimitState];
    // The run's first announcement measures each budget's share from the run's tries so far against
    // what its window has lost. A budget first announced later did not see those tries: they may have
    // been drawn from windows of it long gone, and say nothing of other clients.
    const first = this.budgets.size === 0;
    const keys = keysOf(all);
    keys.forEach((key, position) => {
      let budget = this.budgets.get(key);
      if (budget === undefined) {
        if (this.budgets.size === MAX_BUDGETS) return;
        budget = new OneBudget(this.random, this.startedBefore, first);
        this.budgets.set(key, budget);
      }
      budget.announced(all[position], now, order);
    });
    for (const [key, budget] of this.budgets) if (!keys.includes(key)) budget.unannounced(order);
  }

  /**
   * The try `order` answered and announced nothing: a budget that waited for that answer to hear where
   * its window stands after a reset holds nothing until it is announced again (see
   * `OneBudget.unannounced`). Returns whether that released a hold, so that the next start is asked for
   * again; when it did not, nothing changed.
   */
  unannounced(order: number): boolean {
    let released = this.hearing !== undefined && order > this.hearing.order;
    if (released) this.hearing = undefined;
    for (const budget of this.budgets.values()) released = budget.unannounced(order) || released;
    return released;
  }

  /**
   * A run resumes a job at the pace it had, with `started` tries started: it knows nothing yet of what
   * is left of the budget, which other clients may have drawn from, and a pace that the budget held
   * may have grown far past it. One try starts first, to hear where the budget stands, and the rest on
   * its answer, or a window's length after `now` at the latest.
   */
  hearFirst(now: number, started: number): void {
    this.hearing = { order: started, until: now + SECOND + this.random() * JITTER_MS };
  }

  /**
   * The earliest time at or after `now` the next try may start, with `started` tries started so far:
   * `now` when nothing limits it, and else the latest any budget allows.
   */
  nextStart(now: number, started: number): number {
    this.startedBefore = started;
    if (this.hearing !== undefined && now >= this.hearing.until) this.hearing = undefined;
    let next = this.hearing !== undefined && started > this.hearing.order ? this.hearing.until : now;
    for (const budget of this.budgets.values()) next = Math.max(next, budget.nextStart(now, started));
    return next;
  }
}

/**
 * What tells each of `states` apart from the others, in one announcement and the next: the name, or else
 * the window, or else the place in the announcement, which also tells apart two that would share a key.
 */
function keysOf(states: readonly RateLimitState[]): string[] {
  const taken = new Set<string>();
  return states.map(({ name, window }, position) => {
    const key = name !== undefined ? `name ${name}` : window !== undefined ? `window ${window}` : `place ${position}`;
    const unique = taken.has(key) ? `place ${position}` : key;
    taken.add(unique);
    return unique;
  });
}

/**
 * A client's pace from one rate-limit budget its responses announce. Before the first announcement it
 * sets no limit: the run paces as it would without it.
 *
 * Its share of the budget is what it can tell of the other clients: between two announcements of one
 * window the budget fell by what every client spent, its own tries among them. The tries it started
 * after the try that brought the latest announcement are not counted in it yet. While {@link MARGIN}
 * of its share of what remains (less while few windows have measured it) covers them and one more,
 * the next may start at once, as fast as the run's own pace allows: the budget of a window spent early
 * is spent all the same, and a run that spaced it out to the reset would leave the end of its last
 * window unused. A share's fraction of a try is rounded up or down at random, so that clients whose
 * shares are fractions spend the budget between them. With no share left the client waits for the
 * reset, and then a little more, drawn at random, so that clients sharing a budget do not all start
 * again in one millisecond. After the reset one try starts to hear where the new window stands, and
 * the rest wait for its announcement; if its answer announces nothing, the budget holds nothing until
 * an answer does.
 */
class OneBudget {
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
   * budget only falls: a newer announcement with more remaining, or one after the reset, opens a window.
   */
  announced(state: RateLimitState, now: number, order: number): void {
    const before = this.reading;
    if (before !== undefined && order <= before.order) return;
    const upperReset = now + state.resetIn;
    const beforeReset = before !== undefined && now < before.resetAt;
    // More remaining than the latest, but no more than the window began with: counted before it all the same.
    if (beforeReset && state.remaining > before.remaining && state.remaining <= this.windowTop) return;
    const sameWindow = beforeReset && state.remaining <= before.remaining;
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
      // The try that hears where a window stands after the reset is measured from the window's top:
      // what the other clients drew before it counts against the share, as it does in the rest of the
      // window. Left out, the shares of clients that come back at different moments add up to more
      // than the whole.
      if (before.expected && sameWindow && state.remaining > 0) this.measure(order - before.order, this.windowTop - state.remaining);
    }
    this.released = false;
    if (!sameWindow) this.windowTop = state.remaining;
    const resetAt = sameWindow && !before.expected ? Math.min(before.resetAt, upperReset) : upperReset;
    this.budget = Math.max(state.limit ?? 0, this.windowTop);
    this.windowLength = state.window ?? SECOND;
    this.reading = this.readingOf(order, state.remaining, resetAt, false, sameWindow ? before.spare : this.random());
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

  private readingOf(order: number, remaining: number, resetAt: number, expected: boolean, spare: number): Reading {
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
   * `now` when nothing limits it, and the reset when the client's share is spent.
   */
  nextStart(now: number, started: number): number {
    // Tries are told of as they start: those started since the last question started now.
    const startedBefore = this.startedBefore;
    this.startedBefore = started;
    let { reading } = this;
    if (reading === undefined || this.released) return now;
    if (now >= reading.resetAt) {
      // The window has reset, but other clients may have drawn from it since: one try, to hear where
      // it stands, and the rest when its announcement comes. A try that started just now counts in it.
      this.windowTop = this.budget;
      reading = this.reading = this.readingOf(startedBefore, this.budget, now + this.windowLength, true, this.random());
    }
    const uncounted = started - reading.order;
    if (reading.expected) return uncounted < 1 ? now : reading.resumeAt;
    const left = MARGIN * this.sureness * this.share * reading.remaining - uncounted + reading.spare;
    return left >= 1 ? now : reading.resumeAt;
  }
}
