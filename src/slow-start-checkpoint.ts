// A run's checkpoints as an RxJS operator: a job's progress as plain data, to store where the user likes.
import { defer, filter, map, type OperatorFunction } from 'rxjs';
import { CheckpointFold } from './checkpoint/checkpoint-fold.js';
import type { SlowStartCheckpoint } from './checkpoint/checkpoint.js';
import type { SlowStartEvent } from './events.js';

/**
 * Folds a run's events (the `events` option) into checkpoints: plain JSON data that a new run, in
 * this process or another, resumes from with the `resume` option. One comes after each event
 * that changes it, synchronously: a task's success is in a checkpoint before the result that holds it
 * is emitted, and its start before its factory is called. Each carries a `sequence` one higher than the
 * last, across the runs that resume one another, so that a store keeps the highest.
 *
 * Store every one for the strongest promise, or `auditTime(1000)` to write at most once a second: a
 * task that started or succeeded after the last stored checkpoint runs again on resume, with its key.
 *
 * ```text
 * events:      --start--started(0)--succeeded(0)--result--end|
 * checkpoints: --c1-----c2-----------c3--------------------c4|
 * ```
 *
 * @example
 * ```ts
 * const events = new Subject<SlowStartEvent>();
 * events.pipe(slowStartCheckpoint()).subscribe((checkpoint) => save(JSON.stringify(checkpoint)));
 * slowStart(tasks, { keys, events, resume: load() }).subscribe();
 * ```
 */
export function slowStartCheckpoint<T>(): OperatorFunction<SlowStartEvent<T>, SlowStartCheckpoint> {
  return (events) =>
    defer(() => {
      const fold = new CheckpointFold();
      return events.pipe(
        map((event) => fold.next(event as SlowStartEvent)),
        filter((checkpoint): checkpoint is SlowStartCheckpoint => checkpoint !== undefined),
      );
    });
}
