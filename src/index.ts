/**
 * Kubernetes-style slow-start batching for RxJS: task factories run in batches of 1, 2, 4, 8, ..., and
 * nothing starts after a batch with a failure. {@link slowStart} runs an array, an iterable or any
 * `ObservableInput` of factories, and {@link slowStartBatch} is the same as an operator; their options
 * are {@link SlowStartOptions}, they emit {@link BatchResult}s and error with a {@link SlowStartBatchError}.
 * The README is the guide; this reference is generated from the sources.
 *
 * @packageDocumentation
 */
export { slowStartBatch } from './slow-start-batch.js';
export { slowStart } from './slow-start.js';
export { SlowStartBatchError, isSlowStartBatchError } from './slow-start-batch-error.js';
export { nextBatchSize } from './growth.js';
export { retryAfter } from './retry/retry-after.js';
export { classifyFailure, httpStatus, type FailureKind, type FailureVerdict, type RetryVerdict } from './retry/failure-kind.js';
export { defaultRetryDelay, exponentialBackoff, type Backoff, type ExponentialBackoffOptions } from './retry/backoff.js';
export { HttpError, type NotOkResponse } from './http-error.js';
export { readRateLimit, readRateLimits, type RateLimitState } from './rate-limit.js';
// eslint-disable-next-line @typescript-eslint/no-deprecated -- the reader's first name, kept through 0.x for the code that calls it
export { rateLimit } from './rate-limit.js';
export {
  fromRateLimiterFlexible,
  type FromRateLimiterFlexibleOptions,
  type RateLimiterFlexibleLike,
  type StartLimiter,
} from './start-limiter.js';
export { slowStartState } from './slow-start-state.js';
export { slowStartCheckpoint } from './slow-start-checkpoint.js';
export { readCheckpoint, type CheckpointPace, type SlowStartCheckpoint } from './checkpoint/checkpoint.js';
export type { KeyList } from './checkpoint/key-set.js';
export type { SlowStartState, TaskStatus } from './run-state.js';
export type { EventsObserver, RunEnd, SlowStartEvent, TaskKey } from './events.js';
export type { BatchPacingOptions, CommonOptions, ResumeOptions, SlowStartOptions, WindowPacingOptions } from './options.js';
export type { RetryOptions } from './retry/retry-options.js';
export type { BatchResult, TaskContext, TaskFactory, TaskOutcome, TaskValue } from './types.js';
