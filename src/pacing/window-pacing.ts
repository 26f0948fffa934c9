import { nextBatchSize, nextPaceSize, thresholdAfterDrop, withinSizes, type GrowthOptions } from '../growth.js';
import { StartTicket, type Backlog, type Pacing, type Start } from './pacing.js';

// Batch pacing without the barrier (§9), its drop after a throttle (§10), results by the sizes of §2.

/**
 * Batch pacing without the barrier. With `s0, s1, ...` the batch sizes batch pacing would run and
 * `S(k)` their sums, at most `s(k)` tasks are in flight while `S(k)` to `S(k+1) - 1` tasks have
 * succeeded; a task starts as soon as that bound has room. After a throttle the pace starts again from
 * `initialBatchSize` and the successes are counted from the drop, of tasks started since. Results
 * group the tasks by those batch sizes, in source order, whatever the pace does.
 */
export class WindowPacing implements Pacing {
  /** `s(k)`: how many tasks may be in flight at the level the successes have reached. */
  private limit: number;
  /** `S(k + 1)`: the successes, counted from the last drop, that raise the level. */
  private nextLevelAt: number;
  private successes = 0;
  /** Half of what was in flight at the last drop of the pace, or `undefined` before any drop. */
  private threshold: number | undefined;
  /** How many times the pace has dropped: what each task is handed as it starts. */
  private drops = 0;
  /** Set once the run is ending: nothing more starts. */
  private stopped = false;
  /** The size of the result the last new task joined, and how many tasks have joined it. */
  private size: number;
  private joined = 0;
  private readonly ticket = new StartTicket();

  constructor(
    private readonly options: GrowthOptions,
    private readonly concurrency: number,
  ) {
    this.limit = this.nextLevelAt = this.size = options.initialBatchSize;
  }

  openRoom(backlog: Backlog): number {
    return this.stopped ? 0 : Math.max(0, this.limit - backlog.inFlight);
  }

  wants(backlog: Backlog): number {
    return this.stopped ? 0 : Math.max(0, Math.min(this.limit, this.concurrency) - backlog.inFlight);
  }

  /** A retried task goes ahead of every new one. */
  takesRetry(): boolean {
    return true;
  }

  start(retried: boolean): Start {
    // A retried task keeps the result it had.
    if (retried) return this.ticket.fill(this.drops, false, false, this.size);
    if (this.joined === this.size) {
      this.size = nextBatchSize(this.size, this.options);
      this.joined = 0;
    }
    this.joined++;
    return this.ticket.fill(this.drops, this.joined === 1, this.joined === this.size, this.size);
  }

  succeeded(dropsAtStart: number): void {
    // After a drop, only tasks started at the new pace prove it: one that was already in flight when
    // the pace dropped would let it grow during the pause, and start a burst when the pause ends.
    if (dropsAtStart !== this.drops) return;
    this.successes++;
    while (this.successes >= this.nextLevelAt) {
      this.limit = nextPaceSize(this.limit, this.options, this.threshold);
      this.nextLevelAt += this.limit;
    }
  }

  throttled(dropsAtStart: number, inFlight: number): boolean {
    if (dropsAtStart !== this.drops) return false;
    this.drops++;
    this.threshold = thresholdAfterDrop(inFlight, this.options);
    this.limit = this.nextLevelAt = this.options.initialBatchSize;
    this.successes = 0;
    return true;
  }

  // Only successes raise the level: a failed try, kept to itself, neither raises nor lowers it.
  failedAlone(): void {}

  stop(): void {
    this.stopped = true;
  }

  resume(limit: number, threshold: number | undefined): void {
    this.limit = this.nextLevelAt = withinSizes(limit, this.options);
    this.threshold = threshold;
  }

  currentLimit(): number {
    return this.limit;
  }

  currentThreshold(): number | undefined {
    return this.threshold;
  }
}
