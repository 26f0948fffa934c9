// One source of waiting before the next start, as Netflix's concurrency-limits keeps a `Limit`: told
// what happened, it answers a number, and holds no timer. The gate (start-gate.ts) keeps the one timer
// over all of them.

/** Why no task may start yet, as a `paused` event names it. */
export type PauseCause = 'throttle' | 'learned rate' | 'rate limit';

/**
 * One source of waiting: the throttle's pause, the learned rate, the announced budget. Each is told what
 * happened through methods of its own, with the time it happened; it reads no clock. Its answer moves
 * only when it is told something, and whoever tells it then calls the gate's `changed` (or it is told
 * through the gate's `started`): the gate answers from what `changed` last found.
 */
export interface Wait {
  /** What a `paused` event names when this wait moves the end of the pause. */
  readonly cause: PauseCause;
  /**
   * Whether its answer only ever moves later: then a time it gave is a promise, and a throttled task's
   * `retryAt` may count it. The announced budget's answer follows the latest announcement, either way.
   */
  readonly onlyLater: boolean;
  /** The earliest time the next start may come, on the scheduler's clock: `-Infinity` for no wait. */
  nextStart(): number;
  /**
   * A try is about to start at `now`: a wait that counts starts counts it here, before the try can
   * settle, so that a try refused on the spot is counted before its refusal.
   */
  starting?(now: number): void;
  /** The try that started at `now` is under way, the run's `tries`-th: a wait that spaces starts answers for the next. */
  started?(now: number, tries: number): void;
}
