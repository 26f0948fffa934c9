import type { OperatorFunction } from 'rxjs';
import type { SlowStartOptions } from './options.js';
import { resolveOptions } from './resolve-options.js';
import { batchedObservable, observableFeed } from './rxjs-adapter.js';
import type { BatchResult, TaskFactory, TaskValue } from './types.js';

/**
 * Runs task factories in batches of growing size, the way Kubernetes creates pods: 1, 2, 4, 8, ...
 * Each batch runs concurrently; the next starts only when the whole batch has settled; a batch with
 * any failure stops everything after it. A quota error that would fail 500 calls costs one call.
 *
 * ```
 * factories:  -abcdefg|         each task takes two frames
 * batch 0:    -a                a starts as it arrives
 * batch 1:    ---(bc)           b and c start together as batch 0 settles
 * batch 2:    -------(defg)     d and e wait for g: a batch starts full, or once the source completes
 * output:     ---1-2---(3|)     one BatchResult as each batch's last task settles
 *
 * if f fails after one frame:
 * output:     ---1-2---#        SlowStartBatchError once d, e and g have settled too
 * ```
 *
 * A batch starts when the previous one has settled and as many factories as its size are waiting,
 * or the source has completed, or `flushAfter` milliseconds have passed since the first one arrived.
 * A task succeeds when what its factory returns completes; its value is the last value emitted.
 * After a failing batch the operator unsubscribes from the source and errors with a
 * {@link SlowStartBatchError} listing every outcome of that batch and the factories never invoked.
 *
 * @example
 * ```ts
 * import { from, map } from 'rxjs';
 * import { slowStartBatch, type TaskContext } from 'rxjs-slow-start';
 *
 * from(items)
 *   .pipe(
 *     map((item) => ({ signal }: TaskContext) => fetch('/api/items', { method: 'POST', body: JSON.stringify(item), signal })),
 *     slowStartBatch({ maxBatchSize: 64 }),
 *   )
 *   .subscribe({
 *     next: ({ batch, size, successes }) => console.log(`batch ${batch}: ${size} created, ${successes} in all`),
 *     error: (error) => console.error(error.message),
 *   });
 * ```
 *
 * @param options Batch sizes, concurrency and flushing; validated when `slowStartBatch` is called.
 * @return An operator from task factories to one {@link BatchResult} per successful batch.
 */
export function slowStartBatch<F extends TaskFactory<unknown>>(
  options?: SlowStartOptions<TaskValue<F>>,
): OperatorFunction<F, BatchResult<TaskValue<F>>>;
/** With the value type written out: `slowStartBatch<number>()`. */
export function slowStartBatch<T>(options?: SlowStartOptions<T>): OperatorFunction<TaskFactory<T>, BatchResult<T>>;
export function slowStartBatch(options?: SlowStartOptions<never>): OperatorFunction<TaskFactory<unknown>, BatchResult<unknown>> {
  const resolved = resolveOptions(options);
  return (source) => batchedObservable(observableFeed(source), resolved);
}
