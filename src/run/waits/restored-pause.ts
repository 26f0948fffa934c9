// A pause a checkpoint recorded (§15): a throttle's, or a spent budget's reset, still under way when
// a new process resumes the job.
import type { Wait } from './wait.js';

/** The pause a resumed checkpoint recorded: the new run starts nothing before it ends. */
export class RestoredPause implements Wait {
  readonly cause = 'throttle';
  readonly onlyLater = true;
  /** When the recorded pause ends, on the scheduler's clock: set once, as the run begins, then followed by the gate's `changed`. */
  until = -Infinity;

  nextStart(): number {
    return this.until;
  }
}
