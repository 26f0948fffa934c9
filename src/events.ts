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

/** What ties an event to its task. Shown inline in the events that carry it. @inline */
interface TaskIdentity {
  /** The task's key: see {@link TaskKey}. */
  readonly key: TaskKey;
  /** The task's 0-based position in this run's source, as its context tells it. */
  readonly index: number;
}

/** What every event the run times of one task carries. Shown inline in the events that carry it. @inline */
interface TaskFields extends TaskIdentity {
  /** When it happened, on the scheduler's clock (ms). */
  readonly time: number;
}

/** What every event of one try of a task carries. Shown inline in the events that carry it. @inline */
interface TryFields extends TaskFields {
  /** The index of the result that reports the task (its batch, in batch pacing). */
  readonly batch: number;
  /** Which try: 1 for the first, 2 for the first retry. */
  readonly attempt: number;
}

/** What every event of a whole run carries. Shown inline in the events that carry it. @inline */
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
  /** A run starts: a subscription. Its pace follows, then its tasks' events. */
  | (RunFields & {
      /** The kind of event. */
      readonly type: 'start';
      /** How many tasks the run has, when the source says before it is read (an array given to `slowStart`). */
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
  | (TaskIdentity & {
      /** The kind of event. */
      readonly type: 'received';
    })
  /** A try of a task starts: its factory is about to be called. */
  | (TryFields & {
      /** The kind of event. */
      readonly type: 'started';
    })
  /** A try succeeded. Final. */
  | (TryFields & {
      /** The kind of event. */
      readonly type: 'succeeded';
      /** The try's value: the last value it emitted, or `undefined` if none. */
      readonly value: T | undefined;
      /** How long the try took, in ms. */
      readonly duration: number;
    })
  /** A try failed for good. Final. */
  | (TryFields & {
      /** The kind of event. */
      readonly type: 'failed';
      /** `'item'` when the task failed alone and the run goes on, `'fatal'` when the run stops. */
      readonly kind: 'item' | 'fatal';
      /** What the try failed with: any value, `undefined` included. */
      readonly reason: unknown;
      /** How long the try took, in ms. */
      readonly duration: number;
    })
  /** A try failed with a throttle; the task is tried again, and every start waits. */
  | (TryFields & {
      /** The kind of event. */
      readonly type: 'throttled';
      /** The failure's kind. */
      readonly kind: 'throttle';
      /** What the try failed with. */
      readonly reason: unknown;
      /** How long the try took, in ms. */
      readonly duration: number;
      /** The task goes again no sooner than this, on the scheduler's clock (ms). */
      readonly retryAt: number;
    })
  /** A try failed with a transient failure; the task alone waits to go again. */
  | (TryFields & {
      /** The kind of event. */
      readonly type: 'retrying';
      /** The failure's kind. */
      readonly kind: 'transient';
      /** What the try failed with. */
      readonly reason: unknown;
      /** How long the try took, in ms. */
      readonly duration: number;
      /** When the task goes again, on the scheduler's clock (ms). */
      readonly retryAt: number;
    })
  /** The run stopped while the task waited to be tried again; `attempt` is its last try (throttled, or a transient failure). Final. */
  | (TryFields & {
      /** The kind of event. */
      readonly type: 'abandoned';
      /** What the task's last try failed with. */
      readonly reason: unknown;
    })
  /** The subscriber left while the task was in flight: it was torn down. Final. */
  | (TryFields & {
      /** The kind of event. */
      readonly type: 'cancelled';
    })
  /** The run ended before the task was ever started. Final. */
  | (TaskFields & {
      /** The kind of event. */
      readonly type: 'skipped';
    })
  /** No task starts for a while. */
  | (RunFields & {
      /** The kind of event. */
      readonly type: 'paused';
      /** When starts may go on, on the scheduler's clock (ms). */
      readonly until: number;
      /** Why: a throttle's pause, the spacing of `retry.learnRate`, or the `rateLimit` option's hold. */
      readonly cause: 'throttle' | 'learned rate' | 'rate limit';
    })
  /** The pace changed. Also reported as the run starts. */
  | (RunFields & {
      /** The kind of event. */
      readonly type: 'pace';
      /** At most this many tasks in flight: the size of the next batch, in batch pacing. */
      readonly limit: number;
      /** From this limit on, the pace grows by one task per round; `undefined` before the job's first throttle. */
      readonly threshold: number | undefined;
      /** `true` when the pace dropped, after a throttle. */
      readonly dropped: boolean;
    })
  /** Under `retry.learnRate`: the rate after a drop of the pace, as the pause ends. */
  | (RunFields & {
      /** The kind of event. */
      readonly type: 'rate';
      /** The starts allowed per pause, in tasks per second. */
      readonly perSecond: number;
    })
  /** A result is about to be emitted. */
  | (RunFields & {
      /** The kind of event. */
      readonly type: 'result';
      /** The result, as the stream is about to emit it. */
      readonly result: BatchResult<T>;
    })
  /** The run has ended: reported before the stream completes or errors, or as the subscriber leaves. */
  | (RunFields & RunEnd<T>);

/** How a run ended, with its accounts: what a new run needs to finish the work. */
export interface RunEnd<T> {
  /** The kind of event: the run's last. */
  readonly type: 'end';
  /**
   * `'failed'`: a task failed for good and fatally, or the source errored; `'cancelled'`: the
   * subscriber left first. A run whose failures were all items has `'completed'`.
   */
  readonly how: 'completed' | 'failed' | 'cancelled';
  /** Only when `how` is `'failed'`: what the stream errors with. */
  readonly error?: unknown;
  /** How many tasks of this run succeeded. */
  readonly succeeded: number;
  /** How many failed fatally. */
  readonly failed: number;
  /** How many failed as items, while the run went on. */
  readonly itemFailed: number;
  /** How many waited to be tried again when the run stopped. */
  readonly abandoned: number;
  /** How many were in flight, and torn down, when the subscriber left. */
  readonly cancelled: number;
  /** How many were never started. */
  readonly skipped: number;
  /**
   * The factories of every task that did not succeed (failed, items included, abandoned, cancelled, skipped), in
   * source order, and their keys. `slowStart(end.unfinished, { keys: end.unfinishedKeys })` finishes
   * the work, reporting the same keys.
   */
  readonly unfinished: TaskFactory<T>[];
  /** The keys of {@link RunEnd.unfinished}, in the same order. */
  readonly unfinishedKeys: TaskKey[];
}

/**
 * Where a run's events go: any object with a `next` method (an RxJS `Subject` or `Observer`), or a
 * function. Only `next` is called: a run's end is an event of its own, and the same observer may
 * follow the runs that resume it. What it throws goes to RxJS's `config.onUnhandledError`; the run
 * goes on.
 */
export type EventsObserver<T = unknown> =
  | {
      /** Told of each event, as it happens. */
      next(event: SlowStartEvent<T>): void;
    }
  | ((event: SlowStartEvent<T>) => void);
