// What the demo remembers of a run: enough to print the summary and to draw the timeline.
// Plain data, so that the SVG generator can be tested with hand-made records.

/** `throttled`: answered 429 and tried again (with `--retry`); the task has a later try. */
export type TaskOutcome = 'succeeded' | 'failed' | 'throttled';

export interface TaskRecord {
  /** The task's 0-based position among all tasks (TaskContext.index). */
  index: number;
  /** The batch that ran it (TaskContext.batch). */
  batch: number;
  /** When the factory was called, in ms since the run started. */
  startMs: number;
  /** When its promise settled, in ms since the run started. */
  endMs: number;
  outcome: TaskOutcome;
  /** Which try of the task this was (TaskContext.attempt): 1 for the first, 2 for the first retry. Default 1. */
  attempt?: number;
}

/**
 * A stretch with no call started after a throttle (with `--retry`): from the first 429 that paused
 * the run to the next start. Throttles that arrive during a pause extend it.
 */
export interface PauseRecord {
  startMs: number;
  endMs: number;
  /** Throttled calls that settled during this pause, the first included. */
  throttles: number;
  /** The longest `Retry-After` among them, in ms. */
  retryAfterMs: number;
  /**
   * Set if a throttle in this pause dropped the pace (at most once per round, contract §10):
   * when, how many calls were in flight, the one throttled included, and the new threshold.
   */
  drop?: { atMs: number; inFlight: number; threshold: number };
}

export interface RunRecord {
  /** The pacing of the run; rows are grouped by batch (batch pacing) or by result (window pacing). Default batch. */
  pacing?: 'batch' | 'window';
  /** Tasks the job wanted to run, invoked or not. */
  totalTasks: number;
  /** One entry per call: per invoked task, and per retry of one with `--retry`; in the order of `index`, then `attempt`. */
  tasks: TaskRecord[];
  /** Tasks never invoked because a batch failed. */
  skipped: number;
  /** A line describing the run's settings, shown under the picture's title. */
  subtitle: string;
  /** With `--retry`: the pauses after throttles, in time order (drawn as shaded bands). */
  pauses?: PauseRecord[];
}
