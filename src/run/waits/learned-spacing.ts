// `retry.learnRate` as a wait: the starts a pause allows, spread over it (see retry/learned-rate.ts).
import type { LearnedRate } from '../../retry/learned-rate.js';
import type { Wait } from './wait.js';

/** The spacing of starts that a {@link LearnedRate} asks for. It only ever moves later. */
export class LearnedSpacing implements Wait {
  readonly cause = 'learned rate';
  readonly onlyLater = true;
  /** The latest time the learned rate asked the next start to wait for. */
  private until = -Infinity;
  /**
   * What the learned rate answered for the try starting now, applied once it is under way; it has no
   * value before the first `starting`, which always comes first.
   */
  private next!: number;

  constructor(readonly rate: LearnedRate) {}

  starting(now: number): void {
    // Before the try can settle: a refusal on the spot drops the pace into a new cycle, and a start
    // counted after it would be counted in that cycle, costing a second pause.
    this.next = this.rate.started(now);
  }

  started(): void {
    // An answer of now or before holds nothing: the gate compares the latest answer with the clock.
    this.until = Math.max(this.until, this.next);
  }

  nextStart(): number {
    return this.until;
  }
}
