// What a run reports while it runs (§12): one event per thing it does, delivered to the `events`
// option's observer synchronously and in the order the run saw them.
import type { SlowStartCheckpoint } from './checkpoint/checkpoint.js';
import type { BatchResult, TaskFactory } from './types.js';

/**
 * What ties a task's events to its item, across resumed runs too: `keys[index]` when the `keys` option
 * is given (an item's id, say), else the task's index in its run. A resumed run given the `unfinished`
 * and `unfinishedKeys` of the previous run's `end` event reports the same keys for the same items.
 * Keys are unique within a run, as a `Map` tells them apart (`1` and `'1'` are two keys); a number must
 * be finite. The `keys` option says how a key given twice is refused.
 */
export type TaskKey = string | number;

/** What ties an event to its task. */
interface TaskIdentity {
  /** The task's key: see {@link TaskKey}. */
  readonly key: TaskKey;
  /** The task's 0-based position in this run's source, as its context tells it. */
  readonly index: number;
}

/** What every event the run times of one task carries. */
interface TaskFields extends TaskIdentity {
  /** When it happened, on the scheduler's clock (ms). */
  readonly time: number;
}

/** What every event of one try of a task carries. */
interface TryFields extends TaskFields {
  /** The index of the result that reports the task (its batch, in batch pacing). */
  readonly batch: number;
  /** Which try: 1 for the first, 2 for the first retry. */
  readonly attempt: number;
}

/** What every event of a whole run carries. */
interface RunFields {
  /** When it happened, on the scheduler's clock (ms). */
  readonly time: number;
}

/**
 * One thing a run did. The events of a task come in this order: `received`, then for each try
 * `started` and one of `succeeded`, `failed`, `throttled`, `retrying`; then, if it was not settled for good,
 * one final account of `abandoned`, `cancelled` or `skipped`. Every task received gets exactly one
 * final account: `succeeded`, `failed`, `abandoned`, `cancelled` or `skipped`.
 */
export type SlowStartEvent<T = unknown> =
  /**
   * A run starts: a subscription. Its pace follows, then its tasks' events. `total` is how many tasks
   * it has, when the source says before it is read (an array given to `slowStart`).
   */
  | (RunFields & {
      readonly type: 'start';
      readonly total?: number;
      /** What the source is, for a checkpoint: its `keys` hashed, or its length; `''` when the run cannot tell. */
      readonly fingerprint: string;
      /** The checkpoint the run resumes (the `resume` option), whose counts its checkpoints carry on. */
      readonly resumed?: SlowStartCheckpoint;
    })
  /**
   * A factory arrived from the source (or was pulled from it) and waits to start. It has no `time`:
   * the arrival is the source's doing, and the run reads the clock for what it does (a `timestamp()` on
   * the source gives the arrival's time; the task's `started` gives when it began).
   */
  | (TaskIdentity & { readonly type: 'received' })
  /** A try of a task starts: its factory is about to be called. */
  | (TryFields & { readonly type: 'started' })
  /** A try succeeded with `value`, after `duration` ms. Final. */
  | (TryFields & { readonly type: 'succeeded'; readonly value: T | undefined; readonly duration: number })
  /**
   * A try failed for good, after `duration` ms. Final. `kind` is `'item'` when the task failed alone
   * and the run goes on, `'fatal'` when the run stops.
   */
  | (TryFields & { readonly type: 'failed'; readonly kind: 'item' | 'fatal'; readonly reason: unknown; readonly duration: number })
  /** A try failed with a throttle, after `duration` ms; the task is tried again, no sooner than `retryAt`, and every start waits. */
  | (TryFields & {
      readonly type: 'throttled';
      readonly kind: 'throttle';
      readonly reason: unknown;
      readonly duration: number;
      readonly retryAt: number;
    })
  /** A try failed with a transient failure, after `duration` ms; the task alone waits until `retryAt` to go again. */
  | (TryFields & {
      readonly type: 'retrying';
      readonly kind: 'transient';
      readonly reason: unknown;
      readonly duration: number;
      readonly retryAt: number;
    })
  /** The run stopped while the task waited to be tried again; `attempt` is the try that was throttled. Final. */
  | (TryFields & { readonly type: 'abandoned'; readonly reason: unknown })
  /** The subscriber left while the task was in flight: it was torn down. Final. */
  | (TryFields & { readonly type: 'cancelled' })
  /** The run ended before the task was ever started. Final. */
  | (TaskFields & { readonly type: 'skipped' })
  /** No task starts until `until`: a throttle's pause, the spacing of `retry.learnRate`, or of `rateLimit`. */
  | (RunFields & { readonly type: 'paused'; readonly until: number; readonly cause: 'throttle' | 'learned rate' | 'rate limit' })
  /**
   * The pace changed: at most `limit` tasks in flight (the size of the next batch, in batch pacing),
   * growing by one per round from `threshold` on; `dropped` after a throttle. Also reported as the run
   * starts.
   */
  | (RunFields & { readonly type: 'pace'; readonly limit: number; readonly threshold: number | undefined; readonly dropped: boolean })
  /** Under `retry.learnRate`: the starts allowed per pause after a drop of the pace, in tasks per second, as the pause ends. */
  | (RunFields & { readonly type: 'rate'; readonly perSecond: number })
  /** A result is about to be emitted. */
  | (RunFields & { readonly type: 'result'; readonly result: BatchResult<T> })
  /** The run has ended: reported before the stream completes or errors, or as the subscriber leaves. */
  | (RunFields & RunEnd<T>);

/** How a run ended, with its accounts: what a new run needs to finish the work. */
export interface RunEnd<T> {
  readonly type: 'end';
  /**
   * `'failed'`: a task failed for good and fatally, or the source errored; `'cancelled'`: the
   * subscriber left first. A run whose failures were all items has `'completed'`.
   */
  readonly how: 'completed' | 'failed' | 'cancelled';
  /** Only when `how` is `'failed'`: what the stream errors with. */
  readonly error?: unknown;
  /** How many tasks of this run had each final account. */
  readonly succeeded: number;
  /** Failed fatally. */
  readonly failed: number;
  /** Failed as items, while the run went on. */
  readonly itemFailed: number;
  readonly abandoned: number;
  readonly cancelled: number;
  readonly skipped: number;
  /**
   * The factories of every task that did not succeed (failed, items included, abandoned, cancelled, skipped), in
   * source order, and their keys. `slowStart(end.unfinished, { keys: end.unfinishedKeys })` finishes
   * the work, reporting the same keys.
   */
  readonly unfinished: TaskFactory<T>[];
  readonly unfinishedKeys: TaskKey[];
}

/**
 * Where a run's events go: any object with a `next` method (an RxJS `Subject` or `Observer`), or a
 * function. Only `next` is called: a run's end is an event of its own, and the same observer may
 * follow the runs that resume it. What it throws goes to RxJS's `config.onUnhandledError`; the run
 * goes on.
 */
export type EventsObserver<T = unknown> = { next(event: SlowStartEvent<T>): void } | ((event: SlowStartEvent<T>) => void);
