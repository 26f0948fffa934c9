import type { TaskFactory, TaskOutcome } from './types.js';

/**
 * Marks a {@link SlowStartBatchError}. A registered symbol is the same in every copy of this package,
 * so {@link isSlowStartBatchError} recognises errors from a second installed copy, where
 * `instanceof` would not.
 */
const brand = Symbol.for('rxjs-slow-start/SlowStartBatchError');

/** What a {@link SlowStartBatchError} reports; its fields are described on the class. @inline */
export interface SlowStartBatchErrorDetails<T> {
  /** Becomes {@link SlowStartBatchError.batch}. */
  batch: number;
  /** Becomes {@link SlowStartBatchError.startIndex}. */
  startIndex: number;
  /** Becomes {@link SlowStartBatchError.size}. */
  size: number;
  /** Becomes {@link SlowStartBatchError.successes}. */
  successes: number;
  /** Becomes {@link SlowStartBatchError.results}. */
  results: TaskOutcome<T>[];
  /** Becomes {@link SlowStartBatchError.cause}. */
  cause: unknown;
  /** Becomes {@link SlowStartBatchError.remaining}. */
  remaining: TaskFactory<T>[];
  /** The factories of the rejected tasks, then `remaining`; `remaining` alone when not given. */
  unfinished?: TaskFactory<T>[];
  /** Given when the source errored: its error becomes {@link SlowStartBatchError.sourceError}. */
  sourceError?: { error: unknown };
}

/**
 * The error of `slowStartBatch()` and `slowStart()` after a batch in which one or more tasks failed.
 * It is raised once the whole batch has settled, and tells what is needed to report the failure or
 * resume the work: pass {@link SlowStartBatchError.remaining} (and the factories of the rejected
 * {@link SlowStartBatchError.results}) to a new run.
 */
export class SlowStartBatchError<T = unknown> extends Error {
  /** Always `'SlowStartBatchError'`. */
  override readonly name = 'SlowStartBatchError';
  /** The 0-based index of the failing batch. */
  readonly batch: number;
  /** The source index of the failing batch's first task. */
  readonly startIndex: number;
  /** How many tasks the failing batch held. */
  readonly size: number;
  /** Tasks that succeeded in all, the failing batch's included (what Kubernetes' helper returns). */
  readonly successes: number;
  /** How each task of the failing batch ended, in source order. */
  readonly results: TaskOutcome<T>[];
  /** The reason of the failure that happened first in time (any value, `undefined` included). */
  override readonly cause: unknown;
  /**
   * The factories that were never invoked, in source order: those received and still waiting, and,
   * for `slowStart()` over an array, the rest of the array. Factories a source had not yet emitted
   * are unknown to the operator and not listed.
   */
  readonly remaining: TaskFactory<T>[];
  /** How many tasks were never invoked: `remaining.length`. */
  readonly skipped: number;
  /**
   * What a new run needs to finish the work: the factories of the rejected and abandoned tasks of
   * {@link SlowStartBatchError.results}, in source order, then {@link SlowStartBatchError.remaining}.
   * Over an array, resume with `slowStart(error.unfinished)`.
   */
  readonly unfinished: TaskFactory<T>[];
  /**
   * The source index where what the error knows of ends: every item before it was reported by a
   * `BatchResult` or is in {@link SlowStartBatchError.unfinished}; the items from it on were never
   * received (a synchronous source can be stopped before it emitted them all). To resume a run over a
   * source that can be subscribed again, run
   * `concat(from(error.unfinished), source.pipe(skip(error.resumeFrom)))`.
   */
  readonly resumeFrom: number;
  /**
   * The source's error, when the source errored while the failing batch ran. The property exists
   * only then (test with `'sourceError' in error`), since the source may error with `undefined`.
   */
  declare readonly sourceError?: unknown;
  /** @internal */
  readonly [brand] = true;

  constructor(details: SlowStartBatchErrorDetails<T>) {
    const failed = details.results.filter((result) => result.status === 'rejected').length;
    const abandoned = details.results.filter((result) => result.status === 'abandoned').length;
    super(
      `slowStartBatch: ${failed} of ${tasks(details.size)} failed${abandoned > 0 ? ` and ${abandoned} abandoned` : ''} in batch ${details.batch}; ` +
        `${tasks(details.successes)} succeeded in all; ${tasks(details.remaining.length)} skipped`,
    );
    this.batch = details.batch;
    this.startIndex = details.startIndex;
    this.size = details.size;
    this.successes = details.successes;
    this.results = details.results;
    this.cause = details.cause;
    this.remaining = details.remaining;
    this.skipped = details.remaining.length;
    this.unfinished = details.unfinished ?? details.remaining;
    this.resumeFrom = details.startIndex + details.results.length + details.remaining.length;
    if (details.sourceError) {
      Object.defineProperty(this, 'sourceError', { value: details.sourceError.error, enumerable: true });
    }
  }
}

function tasks(count: number): string {
  return count === 1 ? '1 task' : `${count} tasks`;
}

/**
 * Tells whether `error` is a {@link SlowStartBatchError}, also one thrown by another installed copy
 * of this package (where `instanceof` is false).
 */
export function isSlowStartBatchError<T = unknown>(error: unknown): error is SlowStartBatchError<T> {
  return typeof error === 'object' && error !== null && (error as { [brand]?: unknown })[brand] === true;
}
