/**
 * What the suite measures: the operator as it is in this checkout's sources. Every scenario imports it
 * from here, so pointing the suite at another build is a one-line change.
 */
export {
  fromRateLimiterFlexible,
  httpStatus,
  retryAfter,
  slowStart,
  slowStartBatch,
  slowStartCheckpoint,
  slowStartState,
} from '../src/index.js';
export type { BatchResult, SlowStartCheckpoint, SlowStartEvent, TaskContext, TaskFactory } from '../src/index.js';
