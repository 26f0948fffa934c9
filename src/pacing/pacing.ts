// The seam between the algorithm that decides how many tasks may be in flight (a pacing) and the runner
// that enforces it, as Netflix's concurrency-limits keeps its `Limit` apart from its `Limiter`. A
// pacing knows nothing of time, sources, subscriptions or RxJS: it is told what happened and answers
// with numbers.

/** What the runner tells a pacing when it asks how many tasks may start. One object, updated in place. */
export interface RunState {
  /** Tasks invoked and not settled yet. */
  inFlight: number;
  /** Factories received and not invoked yet. */
  waiting: number;
  /** The source has completed: no more factories will come. */
  sourceDone: boolean;
  /** The oldest waiting factory has waited `flushAfter` (batch pacing only, §3c). */
  flushDue: boolean;
  /** A task failed or the source errored: the run is ending, and starts only what it must. */
  stopping: boolean;
}

/** Decides how many tasks may be in flight, and which result reports each task. */
export interface Pacing {
  /**
   * How many more tasks may start now. The runner starts at most this many, and no more than
   * `concurrency` allows or than are waiting.
   */
  room(state: RunState): number;
  /** How many factories it would start now if they were waiting: what a lazy source is asked for. */
  wants(state: RunState): number;
  /** A task starts: the index of the result that will report it, which is its `context.batch`. */
  start(): number;
  /** How many tasks the result of the task that started last holds, once complete. */
  readonly resultSize: number;
  /** A task has settled. */
  settled(succeeded: boolean): void;
}
