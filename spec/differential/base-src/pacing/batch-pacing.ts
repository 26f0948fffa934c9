import { nextPaceSize, thresholdAfterDrop, type GrowthOptions } from '../growth.js';
import type { Pacing, RunState } from './pacing.js';

/**
 * Kubernetes' pacing (§2 to §5): batches of 1, 2, 4, ...; a batch starts when the previous one has
 * settled and enough tasks wait for it (or the source is done, or `flushAfter` passed, or a retried
 * task waits), and every task of a batch starts, whatever its siblings do. The new tasks of a batch
 * are a result; a retried task takes a slot of the batch it runs in and keeps its own result.
 */
export class BatchPacing implements Pacing {
  /** How many tasks the current batch holds, how many have started and how many have settled. */
  private size = 0;
  private started = 0;
  private settledCount = 0;
  /** Set when the pace dropped during the batch: the next size is already decided. */
  // Stryker disable next-line BooleanLiteral: room() sets it when it opens the first batch, before any task can drop the pace
  private droppedInBatch = false;
  /** Slots of the current batch kept for retried tasks: those waiting when it started. */
  private retrySlots = 0;
  /** Whether the current batch has begun a result yet. */
  // Stryker disable next-line BooleanLiteral: room() sets it when it opens the first batch, before any task starts
  private resultBegun = false;
  /** How many tasks the next batch may hold. */
  private nextSize: number;
  /** Half of what was in flight at the last drop (§10), or `undefined` before any drop. */
  private threshold: number | undefined;
  drops = 0;

  constructor(private readonly options: GrowthOptions) {
    this.nextSize = options.initialBatchSize;
  }

  room(state: RunState): number {
    if (this.started < this.size) return this.size - this.started;
    // The barrier: nothing starts until the whole batch has settled, and nothing after a failure.
    if (this.settledCount < this.size || state.stopping) return 0;
    const { waiting } = state;
    if (waiting >= this.nextSize || (waiting > 0 && (state.sourceDone || state.flushDue || state.retrying > 0))) {
      this.size = Math.min(waiting, this.nextSize);
      // Retried tasks go first, in slots of a new batch; one throttled later waits for the next batch.
      this.retrySlots = Math.min(state.retrying, this.size);
      this.started = this.settledCount = 0;
      this.droppedInBatch = this.resultBegun = false;
      return this.size;
    }
    return 0;
  }

  wants(state: RunState): number {
    return this.settledCount < this.size || state.stopping ? 0 : this.nextSize;
  }

  takesRetry(): boolean {
    return this.retrySlots > 0;
  }

  start(retried: boolean): boolean {
    this.started++;
    if (retried) this.retrySlots--;
    if (retried || this.resultBegun) return false;
    this.resultBegun = true;
    return true;
  }

  get resultFull(): boolean {
    return this.started === this.size;
  }

  get resultSize(): number {
    return this.size;
  }

  // A batch is a round: growth after it is decided by the whole batch, whenever its tasks started. A
  // failure needs no note: the run is stopping after it, and `room` and `wants` then never reach the
  // next size.
  settled(): void {
    this.settleOne();
  }

  throttled(dropsAtStart: number, inFlight: number): void {
    if (dropsAtStart === this.drops) {
      this.drops++;
      this.threshold = thresholdAfterDrop(inFlight, this.options);
      // The next batch is the smaller one; this one still runs to its end.
      this.nextSize = this.options.initialBatchSize;
      this.droppedInBatch = true;
    }
    this.settleOne();
  }

  private settleOne(): void {
    if (++this.settledCount === this.size && !this.droppedInBatch) {
      // Growth follows the size that ran: a batch cut short proves no more than its own size.
      this.nextSize = nextPaceSize(this.size, this.options, this.threshold);
    }
  }
}
