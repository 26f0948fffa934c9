// `rateLimit` as a wait (§13): the hold on the next start that the announced budget asks for.
import type { AnnouncedBudget } from '../../announced-budget.js';
import type { RateLimitState } from '../../rate-limit.js';
import type { Wait } from './wait.js';

/**
 * The hold of an {@link AnnouncedBudget}. Unlike a throttle's pause it follows the latest announcement,
 * which may bring it forward as well as put it off.
 */
export class AnnouncedHold implements Wait {
  readonly cause = 'rate limit';
  readonly onlyLater = false;
  /** When the budget lets the next task start. */
  private until = -Infinity;

  /**
   * @param budget The budgets the run's answers announce.
   * @param toStart How many tries the run has still to start, or `Infinity` while its source may bring more.
   */
  constructor(
    private readonly budget: AnnouncedBudget,
    private readonly toStart: () => number = () => Infinity,
  ) {}

  started(now: number, tries: number): void {
    this.until = this.budget.nextStart(now, tries, this.toStart());
  }

  /**
   * The try `order` announced nothing. Returns whether that releases a budget that waited for its answer
   * to hear where its window stands after a reset: then `heard` must follow.
   */
  unannounced(order: number): boolean {
    return this.budget.unannounced(order);
  }

  /** A resumed run begins at `now` with `tries` tries started: it hears where the budget stands before it goes on. */
  hearFirst(now: number, tries: number): void {
    this.budget.hearFirst(now, tries);
    this.until = this.budget.nextStart(now, tries, this.toStart());
  }

  /** The try `order` announced `states` at `now` (several budgets, or none), with `tries` tries started so far. */
  heard(states: readonly RateLimitState[] | undefined, now: number, order: number, tries: number): void {
    this.budget.announced(states, now, order);
    this.until = this.budget.nextStart(now, tries, this.toStart());
  }

  nextStart(): number {
    return this.until;
  }
}
