// The slow-start algorithm's bookkeeping, free of RxJS: which factories wait, how large the next
// batch may be, and how the running batch's tasks ended.
import { Queue } from './queue.js';
import type { BatchResult, TaskOutcome } from './types.js';

/** The options that shape batch sizes. */
export interface GrowthOptions {
  readonly initialBatchSize: number;
  readonly growthFactor: number;
  readonly maxBatchSize: number;
}

/**
 * The size the batch after a successful one of `ranSize` tasks may have (contract §2):
 * `min(maxBatchSize, max(initialBatchSize, ceil(ranSize * growthFactor)))`.
 *
 * The product is rounded before `ceil` when it is within floating-point noise of a whole number, so
 * that `100 * 1.1`, which is `110.00000000000001` in binary floating point, means 110 and not 111.
 * The noise of one product is at most two units in the last place; nothing larger is absorbed, and a
 * factor above 1 always grows a batch by at least one task.
 */
export function nextBatchSize(ranSize: number, options: GrowthOptions): number {
  const grown = ranSize * options.growthFactor;
  const nearest = Math.round(grown);
  let wanted = Math.abs(grown - nearest) <= grown * 2 * Number.EPSILON ? nearest : Math.ceil(grown);
  if (options.growthFactor > 1) wanted = Math.max(wanted, ranSize + 1);
  return Math.min(options.maxBatchSize, Math.max(options.initialBatchSize, wanted));
}

/** The batch that is running: its factories and, as tasks settle, their outcomes. */
export interface RunningBatch<F, T> {
  readonly index: number;
  readonly startIndex: number;
  readonly size: number;
  readonly factories: F[];
  /** The value of each fulfilled task, by position in the batch. */
  readonly values: (T | undefined)[];
  /** Rejected tasks in the order they settled: the first is the batch's `cause`. */
  readonly failures: { readonly position: number; readonly reason: unknown }[];
  /** How many of the batch's tasks have settled. */
  settled: number;
}

/** How a batch ended: its result, or what the error after it must report. */
export type FinishedBatch<T> =
  | { readonly failed: false; readonly result: BatchResult<T> }
  | {
      readonly failed: true;
      readonly batch: number;
      readonly startIndex: number;
      readonly size: number;
      readonly successes: number;
      readonly results: TaskOutcome<T>[];
      readonly cause: unknown;
      /** The factories of the rejected tasks, in source order, to run again. */
      readonly rejected: unknown[];
    };

/**
 * Plans batches over factories as they arrive. One planner serves one subscription.
 * `F` is whatever the source delivers (normally a task factory; checked only when invoked).
 */
export class BatchPlanner<F, T> {
  /** Factories received and not yet handed to a batch, oldest first. */
  private readonly waiting = new Queue<F>();
  /** When each waiting factory arrived, kept only when a flush timeout needs it. */
  private readonly arrivals: Queue<number> | undefined;
  /** Factories handed to batches so far: the source index of the next batch's first task. */
  private taken = 0;
  /** Index of the next batch. */
  private batchIndex = 0;
  /** How many tasks the next batch may hold. */
  private batchSize: number;
  /** Tasks that succeeded so far. */
  private successes = 0;

  constructor(
    private readonly options: GrowthOptions,
    trackArrivals: boolean,
  ) {
    this.batchSize = options.initialBatchSize;
    this.arrivals = trackArrivals ? new Queue<number>() : undefined;
  }

  /** How many factories wait for a batch. */
  get waitingCount(): number {
    return this.waiting.length;
  }

  /** How many tasks the next batch may hold. */
  get nextSize(): number {
    return this.batchSize;
  }

  /** When the oldest waiting factory arrived (only when arrivals are tracked). */
  get oldestArrival(): number | undefined {
    return this.arrivals?.peek();
  }

  receive(factory: F, now: number): void {
    this.waiting.push(factory);
    this.arrivals?.push(now);
  }

  /** Hands the oldest `min(waiting, nextSize)` factories to a new batch. */
  startBatch(): RunningBatch<F, T> {
    const size = Math.min(this.waiting.length, this.batchSize);
    this.arrivals?.take(size);
    const batch: RunningBatch<F, T> = {
      index: this.batchIndex++,
      startIndex: this.taken,
      size,
      factories: this.waiting.take(size),
      values: new Array<T | undefined>(size),
      failures: [],
      settled: 0,
    };
    this.taken += size;
    return batch;
  }

  /** Records what a settled task ended with, by its position in the batch. */
  fulfil(batch: RunningBatch<F, T>, position: number, value: T | undefined): void {
    batch.values[position] = value;
    batch.settled++;
  }

  reject(batch: RunningBatch<F, T>, position: number, reason: unknown): void {
    batch.failures.push({ position, reason });
    batch.settled++;
  }

  /** Closes the books on a batch whose tasks have all settled, and plans the next one. */
  finish(batch: RunningBatch<F, T>): FinishedBatch<T> {
    this.successes += batch.size - batch.failures.length;
    if (batch.failures.length === 0) {
      // Growth follows the size that ran: a batch cut short proves no more than its own size.
      this.batchSize = nextBatchSize(batch.size, this.options);
      const result = {
        batch: batch.index,
        startIndex: batch.startIndex,
        size: batch.size,
        values: batch.values,
        successes: this.successes,
      };
      return { failed: false, result };
    }
    const reasons = new Map(batch.failures.map((failure) => [failure.position, failure.reason]));
    const results: TaskOutcome<T>[] = [];
    const rejected: F[] = [];
    for (let position = 0; position < batch.size; position++) {
      const index = batch.startIndex + position;
      if (reasons.has(position)) {
        results.push({ index, status: 'rejected', reason: reasons.get(position) });
        rejected.push(batch.factories[position]);
      } else {
        results.push({ index, status: 'fulfilled', value: batch.values[position] });
      }
    }
    return {
      failed: true,
      batch: batch.index,
      startIndex: batch.startIndex,
      size: batch.size,
      successes: this.successes,
      results,
      cause: batch.failures[0].reason,
      rejected,
    };
  }

  /** Empties the queue, returning the factories that will never be invoked, oldest first. */
  drop(): F[] {
    this.arrivals?.takeAll();
    return this.waiting.takeAll();
  }
}
