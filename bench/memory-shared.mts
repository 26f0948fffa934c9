/** What the memory scenario and its child processes agree on. */
export const GENERATOR_TASKS = 10_000_000;
export const GENERATOR_MAX_BATCH = 1024;
export const BUFFERED_TASKS = 1_000_000;

export interface GeneratorMeasurement {
  baselineHeap: number;
  peakHeap: number;
  tasks: number;
  batches: number;
  seconds: number;
}

export interface BufferMeasurement {
  /** Heap per factory of the input array itself: what materialising an input costs. */
  bytesPerFactory: number;
  /** Heap the operator holds per factory waiting in its buffer. */
  bytesPerBufferedFactory: number;
  /** The same for `mergeMap(f => f(), 1)` holding the same factories. */
  mergeMapBytesPerBufferedFactory: number;
}
