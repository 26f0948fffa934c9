import type { ObservableInput, ObservedValueOf } from 'rxjs';
import type { TaskKey } from './events.js';

/**
 * What a task factory is told about the task it is asked to start.
 *
 * A context is an ordinary object: its prototype is `Object.prototype` and its own enumerable
 * properties are exactly `index`, `batch`, `attempt`, `key`, `inDoubt` and `signal`, so
 * `console.log(context)` shows those six and nothing of the run behind them, and `{ ...context }` or
 * `Object.assign({}, context)` copies all six: the copy's `signal` is the task's own, and aborts when
 * the task is torn down.
 *
 * Its fields are copies: nothing written to it changes what the run sees, and a
 * factory may freeze or seal it (a store that deep-freezes what it holds does); `signal` still works.
 *
 * A non-enumerable symbol-keyed property links the context to its task, so copies do not carry it and
 * `console.log` does not show it. The context reads as an ordinary object through a `Proxy` (a reactive
 * store's), as the prototype of an `Object.create` child, and by `Reflect.get` with either as the
 * receiver; an assignment to `signal` makes it a data property, as on any object. Only `signal` read
 * with a receiver unrelated to the context (`Reflect.get(context, 'signal', {})`) throws a `TypeError`,
 * since its one getter, shared by every context, finds the task through the receiver.
 */
export interface TaskContext {
  /** The task's 0-based position in the source. */
  readonly index: number;
  /** The 0-based index of the result that reports the task: its batch, in batch pacing. */
  readonly batch: number;
  /** Which try this is: 1 for the first, 2 for the first retry under the `retry` option. */
  readonly attempt: number;
  /**
   * The task's key, the same in every run of the job: `keys[index]` under the `keys` option, else
   * its position in the source. Send it as an `Idempotency-Key` header, and a server that honours it
   * creates nothing twice when a resumed run sends a task again.
   */
  readonly key: TaskKey;
  /**
   * `true` when the checkpoint the run resumes (the `resume` option) had the task started with no
   * known end: an earlier try may have taken effect. `false` otherwise.
   */
  readonly inDoubt: boolean;
  /**
   * Aborts when the task is torn down because the subscriber unsubscribed. Pass it to `fetch()` or
   * anything else that takes an `AbortSignal`. It is a getter, and its `AbortController` is made on
   * first read (copying the context reads it): a task that never reads it pays nothing for it, and one
   * that reads it again and again, or copies its context, gets one and the same signal. Read after the
   * task was torn down, it is already aborted.
   */
  readonly signal: AbortSignal;
}

/**
 * Starts one task: called once, when the task's batch reaches it, with the task's {@link TaskContext}.
 * The task succeeds when what it returns completes (its value is the last value emitted, or
 * `undefined`), and fails when the factory throws, returns something that is not an
 * `ObservableInput`, or the returned observable errors or promise rejects.
 */
export type TaskFactory<T> = (context: TaskContext) => ObservableInput<T>;

/**
 * The value type of a task factory's task: `number` for `() => of(1)`, `string` for
 * `async () => 'text'`. Over a union of factories it is the union of their values, so that
 * `slowStart([() => of(1), () => of('s')])` emits `BatchResult<number | string>`.
 */
export type TaskValue<F> = F extends (context: TaskContext) => infer R ? ObservedValueOf<R> : never;

/** What `slowStartBatch()` and `slowStart()` emit for each batch whose tasks all succeeded. */
export interface BatchResult<T> {
  /** The 0-based index of this batch. */
  readonly batch: number;
  /** The source index of the batch's first task. */
  readonly startIndex: number;
  /** How many tasks the batch held. */
  readonly size: number;
  /** One value per task, in source order: the last value it emitted, or `undefined` if none. */
  readonly values: (T | undefined)[];
  /** How many tasks have succeeded so far, this batch included. */
  readonly successes: number;
  /**
   * The tasks of this batch that failed as items, in source order, each with the reason of its
   * last try; their `values` are `undefined`. Empty unless a try failed as an item: `retry.when` said so, or the task ran out of
   * tries under `retry.outOfTries: 'item'`.
   */
  readonly itemFailures: readonly {
    /** The task's source index. */
    readonly index: number;
    /** What its last try failed with. */
    readonly reason: unknown;
  }[];
}

/** How one task of a failing batch ended, as listed in {@link SlowStartBatchError.results}. */
export type TaskOutcome<T> =
  /** The task succeeded. */
  | {
      /** The task's source index. */
      readonly index: number;
      /** How it ended. */
      readonly status: 'fulfilled';
      /** The last value it emitted, or `undefined` if none. */
      readonly value: T | undefined;
    }
  /** The task failed. */
  | {
      /** The task's source index. */
      readonly index: number;
      /** How it ended. */
      readonly status: 'rejected';
      /** What it failed with: any value, `undefined` included. */
      readonly reason: unknown;
    }
  /** Under `retry`: the task waited to be tried again when the run stopped. */
  | {
      /** The task's source index. */
      readonly index: number;
      /** How it ended. */
      readonly status: 'abandoned';
      /** What its last try failed with. */
      readonly reason: unknown;
    };
