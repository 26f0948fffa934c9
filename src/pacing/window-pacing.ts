import { nextBatchSize, type GrowthOptions } from '../growth.js';
import type { Pacing, RunState } from './pacing.js';

/**
 * Batch pacing without the barrier (§9). With `s0, s1, ...` the batch sizes of §2 and `S(k)` their
 * sums, at most `s(k)` tasks are in flight while `S(k)` to `S(k+1) - 1` tasks have succeeded; a task
 * starts as soon as that bound has room. Results group the tasks by the same sizes, in source order.
 */
export class WindowPacing implements Pacing {
  /** `s(k)`: how many tasks may be in flight at the level the successes have reached. */
  private limit: number;
  /** `S(k + 1)`: the successes that raise the level. */
  private nextLevelAt: number;
  private successes = 0;
  /** The result the next task joins, its size, and how many tasks have joined it. */
  private result = 0;
  private size: number;
  private joined = 0;

  constructor(
    private readonly options: GrowthOptions,
    private readonly concurrency: number,
  ) {
    this.limit = this.nextLevelAt = this.size = options.initialBatchSize;
  }

  room(state: RunState): number {
    return state.stopping ? 0 : Math.max(0, this.limit - state.inFlight);
  }

  wants(state: RunState): number {
    return state.stopping ? 0 : Math.max(0, Math.min(this.limit, this.concurrency) - state.inFlight);
  }

  start(): number {
    if (this.joined === this.size) {
      this.result++;
      this.size = nextBatchSize(this.size, this.options);
      this.joined = 0;
    }
    this.joined++;
    return this.result;
  }

  get resultSize(): number {
    return this.size;
  }

  settled(succeeded: boolean): void {
    if (!succeeded) return;
    this.successes++;
    while (this.successes >= this.nextLevelAt) {
      this.limit = nextBatchSize(this.limit, this.options);
      this.nextLevelAt += this.limit;
    }
  }
}
