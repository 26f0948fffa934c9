// §10's pause: after a throttle no task starts until the pause it asked for is over.
import type { Wait } from './wait.js';

/** The pause after throttles: it ends at the latest end any throttle asked for, and is never cut short. */
export class ThrottlePause implements Wait {
  readonly cause = 'throttle';
  readonly onlyLater = true;
  /** When the pause ends, on the scheduler's clock. */
  private until = -Infinity;

  /** A try was throttled at `now` and asks for `pause` ms. */
  throttled(now: number, pause: number): void {
    this.until = Math.max(this.until, now + pause);
  }

  nextStart(): number {
    return this.until;
  }
}
