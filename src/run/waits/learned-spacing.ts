// `retry.learnRate` as a wait: the starts a pause allows, spread over it (see retry/learned-rate.ts).
import type { LearnedRate } from '../../retry/learned-rate.js';
import type { Wait } from './wait.js';

/** The spacing of starts that a {@link LearnedRate} asks for. It only ever moves later. */
export class LearnedSpacing implements Wait {
  readonly cause = 'learned rate';
  readonly onlyLater = true;
  /** The latest time the learned rate asked the next start to wait for. */
  private until = -Infinity;

  constructor(readonly rate: LearnedRate) {}

  started(now: number): void {
    const next = this.rate.started(now);
    if (next > now) this.until = Math.max(this.until, next);
  }

  nextStart(): number {
    return this.until;
  }
}
