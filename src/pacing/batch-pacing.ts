import { nextPaceSize, thresholdAfterDrop, withinSizes, type GrowthOptions } from '../growth.js';
import { StartTicket, type Backlog, type Pacing, type Start } from './pacing.js';

// Kubernetes' algorithm, §2 to §5, with the drop of §10.

/**
 * Kubernetes' pacing: batches of 1, 2, 4, ...; a batch starts when the previous one has
 * settled and enough tasks wait for it (or the source is done, or `flushAfter` passed, or a retried
 * task waits), and every task of a batch starts, whatever its siblings do. The new tasks of a batch
 * are a result; a retried task takes a slot of the batch it runs in and keeps its own result.
 */
export class BatchPacing implements Pacing {
  /** How many tasks the current batch holds, how many have started and how many have settled. */
  private size = 0;
  private started = 0;
  private settledCount = 0;
  /** How many new tasks (not retried ones) of the current batch have started: the first begins its result. */
  private newStarted = 0;
  /** How many tries of the current batch failed as items: a batch of nothing else does not grow the pace. */
  private itemFailures = 0;
  /** Slots of the current batch kept for retried tasks: those waiting when it started. */
  private retrySlots = 0;
  /** How many tasks the next batch may hold. */
  private nextSize: number;
  /** Half of what was in flight at the last drop of the pace, or `undefined` before any drop. */
  private threshold: number | undefined;
  /** How many times the pace has dropped, and how many times it had when the current batch opened. */
  private drops = 0;
  private dropsAtOpen = 0;
  /** Set once the run is ending: no batch opens after the current one. */
  private stopped = false;
  private readonly ticket = new StartTicket();

  constructor(private readonly options: GrowthOptions) {
    this.nextSize = options.initialBatchSize;
  }

  openRoom(backlog: Backlog): number {
    if (this.started < this.size) return this.size - this.started;
    // The barrier: nothing starts until the whole batch has settled, and nothing after a failure.
    if (this.settledCount < this.size || this.stopped) return 0;
    const { waiting } = backlog;
    // A full batch, or a shorter one when no fuller one is worth waiting for, or a retry waits (§3). With
    // nothing waiting, the batch opened is empty: it starts nothing, and the next question opens another.
    if (waiting >= this.nextSize || backlog.mayStartShort || backlog.retrying > 0) {
      this.size = Math.min(waiting, this.nextSize);
      // Retried tasks go first, in slots of a new batch; one throttled later waits for the next batch.
      this.retrySlots = Math.min(backlog.retrying, this.size);
      this.started = this.settledCount = this.newStarted = this.itemFailures = 0;
      this.dropsAtOpen = this.drops;
      return this.size;
    }
    return 0;
  }

  wants(): number {
    return this.settledCount < this.size || this.stopped ? 0 : this.nextSize;
  }

  takesRetry(): boolean {
    return this.retrySlots > 0;
  }

  start(retried: boolean): Start {
    this.started++;
    if (retried) this.retrySlots--;
    else this.newStarted++;
    // A batch's retried tasks start first, so its last task to start is a new one: it closes the result.
    return this.ticket.fill(this.drops, !retried && this.newStarted === 1, !retried && this.started === this.size, this.size);
  }

  // A batch is a round: growth after it is decided by the whole batch, whenever its tasks started.
  succeeded(): void {
    this.settleOne();
  }

  throttled(dropsAtStart: number, inFlight: number): boolean {
    const drops = dropsAtStart === this.drops;
    if (drops) {
      this.drops++;
      this.threshold = thresholdAfterDrop(inFlight, this.options);
      // The next batch is the smaller one; this one still runs to its end.
      this.nextSize = this.options.initialBatchSize;
    }
    this.settleOne();
    return drops;
  }

  failedAlone(item: boolean): void {
    if (item) this.itemFailures++;
    this.settleOne();
  }

  stop(): void {
    this.stopped = true;
  }

  resume(limit: number, threshold: number | undefined): void {
    this.nextSize = withinSizes(limit, this.options);
    this.threshold = threshold;
  }

  currentLimit(): number {
    return this.nextSize;
  }

  currentThreshold(): number | undefined {
    return this.threshold;
  }

  private settleOne(): void {
    // Growth follows the size that ran, unless the pace dropped during the batch: then the next size
    // is decided already. A batch cut short proves no more than its own size, and one whose every try
    // failed as an item proves nothing.
    if (++this.settledCount === this.size && this.drops === this.dropsAtOpen && this.itemFailures < this.size) {
      this.nextSize = nextPaceSize(this.size, this.options, this.threshold);
    }
  }
}
