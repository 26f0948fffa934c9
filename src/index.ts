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
export { slowStartState } from './slow-start-state.js';
export type { SlowStartState, TaskStatus } from './run-state.js';
export type { EventsObserver, RunEnd, SlowStartEvent, TaskKey } from './events.js';
export type { BatchPacingOptions, CommonOptions, SlowStartOptions, WindowPacingOptions } from './options.js';
export type { RetryOptions } from './retry/retry-options.js';
export type { BatchResult, TaskContext, TaskFactory, TaskOutcome, TaskValue } from './types.js';
