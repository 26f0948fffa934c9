// Task factories for specs in virtual time: a task that succeeds or fails after a number of ms.
import { map, mergeMap, throwError, timer } from 'rxjs';
import type { TaskFactory } from '../../src/index.js';

/** A factory whose task emits `value` and completes after `ms` (virtual). */
export const after =
  (ms: number, value: unknown): TaskFactory<unknown> =>
  () =>
    timer(ms).pipe(map(() => value));

/** A factory whose task fails with `reason` after `ms` (virtual). */
export const failsAfter =
  (ms: number, reason: unknown): TaskFactory<unknown> =>
  () =>
    timer(ms).pipe(mergeMap(() => throwError(() => reason)));
