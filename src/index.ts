export { slowStartBatch } from './slow-start-batch.js';
export { slowStart } from './slow-start.js';
export { SlowStartBatchError, isSlowStartBatchError } from './slow-start-batch-error.js';
export { nextBatchSize } from './growth.js';
export type { BatchPacingOptions, CommonOptions, SlowStartOptions, WindowPacingOptions } from './options.js';
export type { BatchResult, TaskContext, TaskFactory, TaskOutcome, TaskValue } from './types.js';
