// What the demo remembers of a run: enough to print the summary and to draw the timeline.
// Plain data, so that the SVG generator can be tested with hand-made records.

export type TaskOutcome = 'succeeded' | 'failed';

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
}

export interface RunRecord {
  /** The pacing of the run; rows are grouped by batch (batch pacing) or by result (window pacing). Default batch. */
  pacing?: 'batch' | 'window';
  /** Tasks the job wanted to run, invoked or not. */
  totalTasks: number;
  /** One entry per invoked task, in the order of `index`. */
  tasks: TaskRecord[];
  /** Tasks never invoked because a batch failed. */
  skipped: number;
  /** A line describing the run's settings, shown under the picture's title. */
  subtitle: string;
}
