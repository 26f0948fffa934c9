// The options of `slowStartBatch()` and `slowStart()`, as a user writes them: every one documented,
// with its default. resolve-options.ts validates them and fills in the defaults.
import type { SchedulerLike } from 'rxjs';
import type { SlowStartCheckpoint } from './checkpoint/checkpoint.js';
import type { EventsObserver, TaskKey } from './events.js';
import type { RateLimitState } from './rate-limit.js';
import type { RetryOptions } from './retry/retry-options.js';
import type { StartLimiter } from './start-limiter.js';

/**
 * Options of both pacings, shared by `slowStartBatch()` and `slowStart()`. Every option is optional.
 * `T` is the tasks' value type, which the events carry.
 */
export interface CommonOptions<T = unknown> {
  /**
   * How many tasks the first batch holds (Kubernetes' `SlowStartInitialBatchSize`). No batch after a
   * successful one is smaller than this, unless the source runs out or `flushAfter` fires.
   * @default 1
   */
  initialBatchSize?: number;
  /**
   * How much a batch may grow after it succeeded: the next batch holds
   * `ceil(size * growthFactor)` tasks, where `size` is the batch that ran. `1` gives fixed-size batches.
   * @default 2
   */
  growthFactor?: number;
  /**
   * The largest batch. Must be at least `initialBatchSize`.
   * @default Infinity
   */
  maxBatchSize?: number;
  /**
   * The most tasks in flight at once. In batch pacing, the tasks of a batch subscribed at once: the rest
   * wait for a slot, and the next batch for the whole current one, so a small `concurrency` makes every
   * batch take longer. In window pacing, a cap on the window, which grows as successes allow.
   * @default Infinity (the whole batch, or the whole window, at once)
   */
  concurrency?: number;
  /**
   * The run's clock and timers: `flushAfter`'s timer, every pause (a throttle's, `retry.learnRate`'s
   * spacing, `rateLimit`'s hold) and every event's `time` are on it. Pass a `TestScheduler` or a
   * `VirtualTimeScheduler` to run in virtual time. Tasks themselves are never scheduled.
   * @default asyncScheduler
   */
  scheduler?: SchedulerLike;
  /**
   * What a failure stops. A throttle (429) drops the pace, pauses every start for the server's
   * `Retry-After` or the backoff, and tries the task again ahead of every new one; a transient failure
   * (no answer, 502, 503, 504) tries the task again alone after its backoff; an item failure (what
   * `retry.when` says, a 422 say) fails the task alone; anything else stops the run.
   * @default undefined (every failure stops the run)
   */
  retry?: RetryOptions;
  /**
   * A limiter that many runs share, in many processes or on many machines (rate-limiter-flexible's
   * `RateLimiterRedis` through `fromRateLimiterFlexible()`): every try waits for it to grant a start
   * before its factory is called, in flight meanwhile. The ramp, the throttles and the failure kinds
   * stay the run's own; the bucket is the limiter's, so that processes sharing an API key draw from it
   * fairly and none over-asks.
   * @default undefined (no shared limiter)
   */
  limiter?: StartLimiter;
  /**
   * A task whose value is an HTTP response that is not ok (a fetch `Response` for a 4xx or 5xx, or any
   * object with a numeric `status` and `ok: false`) has failed, with an `HttpError` that carries the
   * response as its reason: `fetch` resolves whatever the status. `false` takes such a response as the
   * task's value.
   * @default true
   */
  httpErrors?: boolean;
  /**
   * Paces the starts by the rate-limit budgets a server announces on its responses, each of them: no
   * more than the run's share of what remains before the reset. `true` reads each try's value and error
   * with `readRateLimits()` (a fetch `Response`, Angular's `HttpResponse` or `HttpErrorResponse`, an
   * error carrying a `response`); a function is given the value or the error and returns a budget, an
   * array of them, or `undefined`. It only ever starts a task later than it would without. How it
   * measures its share is in the guide shipped with the package, docs/rate-limit.md.
   * @default false (no announcement is read)
   */
  rateLimit?: boolean | ((outcome: unknown) => RateLimitState | readonly RateLimitState[] | undefined);
  /**
   * Told of everything the run does, as it happens: each task received, started, succeeded, failed,
   * throttled, abandoned, cancelled or skipped, each pause, change of pace and result, and the end
   * (cancelled too, with what a new run needs to finish the work). A `Subject`, any `Observer`, or a
   * function; only `next` is called. Pipe it through `slowStartState()` for a live state. The events
   * come from the run the subscription drives: nothing starts twice. Without it, a run reports nothing
   * and pays nothing for it.
   * @default undefined (nothing reported)
   */
  events?: EventsObserver<T>;
  /**
   * The key each task's events carry, by index: an item's id, say, so that events can be tied to items,
   * across resumed runs too. A task beyond the array has its index as its key. A function is asked for
   * each task's key as the task comes from the source (`(index) => records[index].id`): a key it gives
   * twice, or that is not a string or a finite number, fails the run as below, naming the key and
   * both indexes; a resumed run's fingerprint is then the source's length alone.
   *
   * Keys are unique within a run, as a `Map` tells them apart: `1` and `'1'` are two keys, `0`
   * and `-0` one. A key given twice is a `RangeError` when `slowStart()` or `slowStartBatch()` is
   * called, naming the key and both positions, and so is a number that is not finite (`NaN` is no key
   * of its own, and JSON keeps none of them). A number of the array that a task past its end would
   * have as its index (`['a', 2]`, and a third task) cannot be refused before that task comes: when it
   * does, the run fails as when the source errors. What runs finishes, nothing more starts or is taken
   * from the source, and the stream errors with a `RangeError` that names the key, after the last
   * result. That task and what follows it are not the run's: no events, not in `remaining` or
   * `unfinished`.
   * @default undefined (each task's key is its index)
   */
  keys?: readonly TaskKey[] | ((index: number) => TaskKey);
  /**
   * Resumes a job from a checkpoint that `slowStartCheckpoint()` made of an earlier run's events, in
   * this process or one that was killed. Give it the same source and `keys`:
   * - a task the checkpoint has as succeeded, or failed for good as an item, is left out: it is not
   *   invoked, and has no events; the run's indexes count the tasks it runs, its keys are the source's;
   * - a task it has in doubt (started, with no known end) is invoked again with the same key, and a
   *   context whose `inDoubt` is `true`: send the key as an `Idempotency-Key`;
   * - its pace is taken up when the checkpoint is at most `freshFor` ms old, and a pause it recorded
   *   is kept while it lasts; otherwise the run starts from `initialBatchSize`;
   * - a source whose fingerprint (its `keys` hashed, or its length) differs from the checkpoint's makes
   *   the stream error at once with a `RangeError`, before any task starts, unless `changedSource` is
   *   `'accept'`.
   *
   * `undefined` and `null` resume nothing, so what a store returns when it holds nothing can be
   * passed as it is. A checkpoint that is not one (a wrong version, a field missing) is a `TypeError`
   * when `slowStart()` or `slowStartBatch()` is called, naming the field.
   * @default undefined (a new job)
   */
  resume?: SlowStartCheckpoint | ResumeOptions | null;
}

/** The `resume` option in full. */
export interface ResumeOptions {
  /** The checkpoint to resume; `undefined` and `null` resume nothing. */
  readonly checkpoint: SlowStartCheckpoint | null | undefined;
  /**
   * What to do with a source whose fingerprint differs from the checkpoint's: `'refuse'` errors the
   * stream before any task starts; `'accept'` runs it, leaving out the keys the checkpoint has done.
   * @default 'refuse'
   */
  readonly changedSource?: 'refuse' | 'accept';
  /**
   * How old, in ms on the scheduler's clock (the wall clock by default), the checkpoint may be for its
   * pace to be taken up.
   * @default 60000
   */
  readonly freshFor?: number;
}

/**
 * Kubernetes' pacing, the default: batches that grow after each success, each starting only when the
 * whole previous batch has settled, and none after a batch with a failure.
 */
export interface BatchPacingOptions<T = unknown> extends CommonOptions<T> {
  /**
   * `'batch'`: a batch starts only when the whole previous batch has settled, exactly as Kubernetes
   * does, and a result is a batch. `'window'`: see {@link WindowPacingOptions}.
   * @default 'batch'
   */
  pacing?: 'batch';
  /**
   * Milliseconds after which a batch starts with the factories that are waiting, even if fewer than
   * the batch size have arrived. Useful with slow sources, such as user actions. A batch cut short
   * this way proves only its own size: growth starts again from the size that ran. At most
   * 2147483647 (2^31 - 1), the longest delay a timer can have.
   * @default undefined (wait until the batch is full or the source completes)
   */
  flushAfter?: number;
}

/**
 * Batch pacing without the barrier: never more tasks in flight than batch pacing would allow, but a
 * task starts as soon as there is room instead of waiting for the whole previous batch.
 */
export interface WindowPacingOptions<T = unknown> extends CommonOptions<T> {
  /**
   * `'window'`: a task starts as soon as the bound batch pacing keeps allows it, without waiting for
   * the slowest task of a batch. While the successes are at least `S(k)` and fewer than `S(k+1)` (the
   * sums of the batch sizes 1, 2, 4, ...), at most `s(k)` tasks are in flight. Results still come in
   * source order, grouped by the batch sizes batch pacing would use.
   */
  pacing: 'window';
  /** Not with window pacing: there are no batches to flush. */
  flushAfter?: undefined;
}

/**
 * Options of `slowStartBatch()` and `slowStart()`: {@link BatchPacingOptions} (the default) or
 * {@link WindowPacingOptions}.
 */
export type SlowStartOptions<T = unknown> = BatchPacingOptions<T> | WindowPacingOptions<T>;
