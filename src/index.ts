export { slowStartBatch } from './slow-start-batch.js';
export { slowStart } from './slow-start.js';
export { SlowStartBatchError, isSlowStartBatchError } from './slow-start-batch-error.js';
export { nextBatchSize } from './batch-planner.js';
export type { SlowStartOptions } from './options.js';
export type { BatchResult, TaskContext, TaskFactory, TaskOutcome, TaskValue } from './types.js';
