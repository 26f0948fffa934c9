// The seam between the algorithm that decides how many tasks may be in flight (a pacing) and the runner
// that enforces it, as Netflix's concurrency-limits keeps its `Limit` apart from its `Limiter`. A
// pacing knows nothing of time, sources, subscriptions or RxJS: it is told what happened and answers
// with numbers.

/** What the runner tells a pacing when it asks how many tasks may start. One object, updated in place. */
export interface RunState {
  /** Tasks invoked and not settled yet. */
  inFlight: number;
  /** Tasks that could start now: retries due and factories received, not invoked yet. */
  waiting: number;
  /** Retried tasks among them, which start first. */
  retrying: number;
  /** The source has completed: no more factories will come. */
  sourceDone: boolean;
  /** The oldest waiting factory has waited `flushAfter` (batch pacing only, §3c). */
  flushDue: boolean;
  /** A task failed or the source errored: the run is ending, and starts only what it must. */
  stopping: boolean;
}

/** Decides how many tasks may be in flight, and how tasks are grouped into results. */
export interface Pacing {
  /**
   * How many more tasks may start now. The runner starts at most this many, and no more than
   * `concurrency` allows or than are waiting.
   */
  room(state: RunState): number;
  /** How many factories it would start now if they were waiting: what a lazy source is asked for. */
  wants(state: RunState): number;
  /** Whether the next task to start may be a retried one rather than a new one (§10). */
  takesRetry(): boolean;
  /**
   * A task starts: a new one, or one tried again. For a new task, whether it begins a new result
   * (the next `context.batch`); a retried task keeps its result.
   */
  start(retried: boolean): boolean;
  /** Whether the result of the last new task is full: no other task will join it. */
  readonly resultFull: boolean;
  /** How many tasks the result of the last new task may hold at most: room to keep its values. */
  readonly resultSize: number;
  /** How many times the pace has dropped: a task remembers it when it starts. */
  readonly drops: number;
  /** A task that started when the pace had dropped `dropsAtStart` times has succeeded or failed for good. */
  settled(succeeded: boolean, dropsAtStart: number): void;
  /**
   * A task failed with a throttle and will be tried again (§10). The pace drops unless it already
   * dropped since that task started (`dropsAtStart`); `inFlight` counts the task itself.
   */
  throttled(dropsAtStart: number, inFlight: number): void;
}
