import { from, isObservable, Observable, type ObservableInput } from 'rxjs';
import type { FactoryFeed, FactorySink } from './host.js';
import { expected } from './expected.js';
import type { SlowStartOptions } from './options.js';
import { resolveOptions } from './resolve-options.js';
import { arrayFeed, asyncIterableFeed, iterableFeed } from './pull-feeds.js';
import { batchedObservable, observableFeed } from './rxjs-adapter.js';
import type { BatchResult, TaskFactory, TaskValue } from './types.js';

/**
 * Runs task factories from an array, an iterable, an async iterable or any `ObservableInput` in
 * slow-start batches: 1, 2, 4, 8, ... tasks at a time, each batch waiting for the previous one, and
 * nothing after a batch with a failure. The same semantics as {@link slowStartBatch}.
 *
 * Arrays, iterables and async iterables are pulled lazily: never more factories than the next batch
 * needs, none after a failure, and the iterator's `return()` is called when the run stops early.
 * Over an array, a {@link SlowStartBatchError}'s `remaining` holds the whole unrun rest of the array.
 *
 * ```
 * tasks:   [a, b, c, d, e, f, g, h, i, j]
 * batches:  a | b c | d e f g | h i j
 * output:  -1-----2---------3-------4|
 * ```
 *
 * @example
 * ```ts
 * import { slowStart, isSlowStartBatchError, type TaskContext } from 'rxjs-slow-start';
 *
 * const uploads = files.map((file) => ({ signal }: TaskContext) => upload(file, { signal }));
 * slowStart(uploads, { initialBatchSize: 2, maxBatchSize: 32 }).subscribe({
 *   next: (result) => console.log(`${result.successes} of ${files.length} uploaded`),
 *   error: (error) => {
 *     if (isSlowStartBatchError(error)) console.log(`stopped: ${error.message}; ${error.skipped} to resume`);
 *   },
 * });
 * ```
 *
 * @param tasks The task factories, in the order they are to run.
 * @param options Batch sizes, concurrency and flushing; validated when `slowStart` is called.
 * @return An observable of one {@link BatchResult} per successful batch.
 */
export function slowStart<F extends TaskFactory<unknown>>(
  tasks: Iterable<F> | AsyncIterable<F> | ObservableInput<F>,
  options?: SlowStartOptions<TaskValue<F>>,
): Observable<BatchResult<TaskValue<F>>>;
/** With the value type written out: `slowStart<number>(tasks)`. */
export function slowStart<T>(
  tasks: Iterable<TaskFactory<T>> | AsyncIterable<TaskFactory<T>> | ObservableInput<TaskFactory<T>>,
  options?: SlowStartOptions<T>,
): Observable<BatchResult<T>>;
export function slowStart(tasks: unknown, options?: SlowStartOptions<never>): Observable<BatchResult<unknown>> {
  const resolved = resolveOptions(options);
  return batchedObservable(feedFor(tasks), resolved);
}

/**
 * Whether `tasks` has the method `key`. As in the language, a method that is `null` or `undefined` is
 * absent; anything else must be a function, or the iteration it promises would fail on subscribe.
 */
function hasMethod(tasks: object, key: symbol, name: string): boolean {
  const method = (tasks as Record<symbol, unknown>)[key];
  if (method === undefined || method === null) return false;
  if (typeof method !== 'function') {
    throw new TypeError(expected(`tasks[${name}]`, 'a function returning an iterator', method));
  }
  return true;
}

/** Picks how factories are read from `tasks`; throws at once if they cannot be read at all. */
function feedFor(tasks: unknown): (sink: FactorySink) => FactoryFeed {
  if (Array.isArray(tasks)) return arrayFeed(tasks);
  if (typeof tasks === 'object' && tasks !== null && !isObservable(tasks)) {
    if (hasMethod(tasks, Symbol.asyncIterator, 'Symbol.asyncIterator')) return asyncIterableFeed(tasks as AsyncIterable<unknown>);
    if (hasMethod(tasks, Symbol.iterator, 'Symbol.iterator')) return iterableFeed(tasks as Iterable<unknown>);
  }
  let observable: Observable<unknown>;
  try {
    // `from` throws for anything that is not an ObservableInput: a promise, an array-like, an
    // interop observable or a ReadableStream are all fine.
    observable = from(tasks as ObservableInput<unknown>);
  } catch {
    throw new TypeError(expected('tasks', 'an array, an iterable, an async iterable or an ObservableInput of task factories', tasks));
  }
  return observableFeed(observable);
}
