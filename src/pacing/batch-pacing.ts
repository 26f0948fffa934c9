import { nextBatchSize, type GrowthOptions } from '../growth.js';
import type { Pacing, RunState } from './pacing.js';

/**
 * Kubernetes' pacing (§2 to §5): batches of 1, 2, 4, ...; a batch starts when the previous one has
 * settled and enough factories wait for it (or the source is done, or `flushAfter` passed), and every
 * task of a batch starts, whatever its siblings do. A batch is a result.
 */
export class BatchPacing implements Pacing {
  /** The index of the batch that runs or ran last; -1 before the first. */
  private batch = -1;
  /** How many tasks that batch holds, how many have started and how many have settled. */
  private size = 0;
  private started = 0;
  private settledCount = 0;
  /** Set when a task of the batch failed: the run stops after it, so there is no next size. */
  private failed = false;
  /** How many tasks the next batch may hold. */
  private nextSize: number;

  constructor(private readonly options: GrowthOptions) {
    this.nextSize = options.initialBatchSize;
  }

  room(state: RunState): number {
    if (this.started < this.size) return this.size - this.started;
    // The barrier: nothing starts until the whole batch has settled, and nothing after a failure.
    if (this.settledCount < this.size || state.stopping) return 0;
    const { waiting } = state;
    if (waiting >= this.nextSize || (waiting > 0 && (state.sourceDone || state.flushDue))) {
      this.batch++;
      this.size = Math.min(waiting, this.nextSize);
      this.started = this.settledCount = 0;
      return this.size;
    }
    return 0;
  }

  wants(state: RunState): number {
    return this.settledCount < this.size || state.stopping ? 0 : this.nextSize;
  }

  start(): number {
    this.started++;
    return this.batch;
  }

  get resultSize(): number {
    return this.size;
  }

  settled(succeeded: boolean): void {
    this.failed ||= !succeeded;
    if (++this.settledCount === this.size && !this.failed) {
      // Growth follows the size that ran: a batch cut short proves no more than its own size.
      this.nextSize = nextBatchSize(this.size, this.options);
    }
  }
}
