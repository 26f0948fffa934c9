// The seam between the algorithm that decides how many tasks may be in flight (a pacing) and what
// enforces it (the run's admission), as Netflix's concurrency-limits keeps its `Limit` apart from its
// `Limiter`. A pacing knows nothing of time, sources, subscriptions or RxJS: it is told what happened
// and answers with numbers. What it hands out at each start is all a task keeps of it.

/** What waits to start, as the admission tells it when it asks. One object, updated in place. */
export interface Backlog {
  /** Tasks invoked and not settled yet. */
  inFlight: number;
  /** Tasks that could start now: retries due and factories received, not invoked yet. */
  waiting: number;
  /** Retried tasks among them, which start first. */
  retrying: number;
  /**
   * No fuller batch is worth waiting for: the source has completed, or the oldest waiting factory has
   * waited `flushAfter`. Only batch pacing reads it.
   */
  mayStartShort: boolean;
}

/** What a pacing hands out for each start. One object per pacing, reused: read it before the next start. */
export interface Start {
  /** How many times the pace had dropped when the task started: the task gives it back to `succeeded` and `throttled`. */
  drops: number;
  /** Whether a new task begins a new result (the next `context.batch`); never for a retried one. */
  beginsResult: boolean;
  /** Whether the result of a new task is full with it: no other task will join it. */
  closesResult: boolean;
  /** How many tasks the result of a new task may hold: a bound, not a count of what will come. */
  resultSize: number;
}

/**
 * The one `Start` a pacing hands out, filled in anew at each start. Its fields have no value of their
 * own before the first: nothing can read it before `fill` has returned it.
 */
export class StartTicket implements Start {
  drops!: number;
  beginsResult!: boolean;
  closesResult!: boolean;
  resultSize!: number;

  fill(drops: number, beginsResult: boolean, closesResult: boolean, resultSize: number): Start {
    this.drops = drops;
    this.beginsResult = beginsResult;
    this.closesResult = closesResult;
    this.resultSize = resultSize;
    return this;
  }
}

/** Decides how many tasks may be in flight, and how tasks are grouped into results. */
export interface Pacing {
  /**
   * How many more tasks may start now. The admission starts at most this many, and no more than
   * `concurrency` allows or than are waiting. Not a plain question: in batch pacing, once a batch has
   * settled, it opens the next one.
   */
  openRoom(backlog: Backlog): number;
  /** How many factories it would start now if they were waiting: what a lazy source is asked for. */
  wants(backlog: Backlog): number;
  /** Whether the next task to start may be a retried one rather than a new one. */
  takesRetry(): boolean;
  /** A task starts: a new one, or one tried again. */
  start(retried: boolean): Start;
  /**
   * A task that started after `drops` drops of the pace has succeeded. A task that failed for good is not reported: the run
   * stops after it, and `stop` says so.
   */
  succeeded(drops: number): void;
  /**
   * A task that started after `drops` drops of the pace failed with a throttle and will be tried again; `inFlight`
   * counts the task itself. Returns whether the pace dropped: it drops once for the tasks started at one pace.
   */
  throttled(drops: number, inFlight: number): boolean;
  /**
   * A task's try failed and the run goes on: a transient failure, to be tried again alone, or,
   * when `item`, a task failed for good on its own. The pace does not drop; a round whose every try
   * failed as an item does not grow it.
   */
  failedAlone(item: boolean): void;
  /** The run is ending (a failure, the source's error): no new round opens; one under way may finish. */
  stop(): void;
  /**
   * Before the first start: the pace takes up `limit` and `threshold` from a checkpoint, within
   * `initialBatchSize` and `maxBatchSize`.
   */
  resume(limit: number, threshold: number | undefined): void;
  /** How many tasks the pace lets be in flight in its round: the size of the next batch, in batch pacing. */
  currentLimit(): number;
  /** Half of what was in flight at the last drop, from which the pace grows by one per round; `undefined` before any drop. */
  currentThreshold(): number | undefined;
}
