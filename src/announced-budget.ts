// §13's pace: a client starts no more than its share of each budget a server announces before that
// budget's reset. Times are on the scheduler's clock (ms). No RxJS, no timers: an announcement in, the
// earliest next start out; the admission keeps the pause.
import { JITTER_MS, OneBudget, SECOND } from './one-budget.js';
import type { RateLimitState } from './rate-limit.js';

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
  /** When the latest of them started: each budget spreads the next start from it. */
  private lastStartAt = -Infinity;
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
   * The earliest time at or after `now` the next try may start, with `started` tries started so far
   * and `toStart` still to start (`Infinity` while the run cannot tell): `now` when nothing limits it,
   * and else the latest any budget allows.
   */
  nextStart(now: number, started: number, toStart = Infinity): number {
    // Tries are told of as they start: those started since the last question started now.
    if (started > this.startedBefore) this.lastStartAt = now;
    this.startedBefore = started;
    if (this.hearing !== undefined && now >= this.hearing.until) this.hearing = undefined;
    let next = this.hearing !== undefined && started > this.hearing.order ? this.hearing.until : now;
    for (const budget of this.budgets.values()) next = Math.max(next, budget.nextStart(now, started, this.lastStartAt, toStart));
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
