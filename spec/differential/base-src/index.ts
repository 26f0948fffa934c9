export { slowStartBatch } from './slow-start-batch.js';
export { slowStart } from './slow-start.js';
export { SlowStartBatchError, isSlowStartBatchError } from './slow-start-batch-error.js';
export { nextBatchSize } from './growth.js';
export { retryAfter } from './retry/retry-after.js';
export type { BatchPacingOptions, CommonOptions, SlowStartOptions, WindowPacingOptions } from './options.js';
export type { RetryOptions } from './retry/retry-options.js';
export type { BatchResult, TaskContext, TaskFactory, TaskOutcome, TaskValue } from './types.js';
