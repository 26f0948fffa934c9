// §2's growth rule: how large the next batch may be after one that succeeded.

/** The options that shape batch sizes. @inline */
export interface GrowthOptions {
  /** The smallest batch after a successful one: see {@link CommonOptions.initialBatchSize}. */
  readonly initialBatchSize: number;
  /** How much a batch may grow: see {@link CommonOptions.growthFactor}. */
  readonly growthFactor: number;
  /** The largest batch: see {@link CommonOptions.maxBatchSize}. */
  readonly maxBatchSize: number;
}

/**
 * The size the batch after a successful one of `ranSize` tasks may have:
 * `min(maxBatchSize, max(initialBatchSize, ceil(ranSize * growthFactor)))`.
 *
 * The product is rounded before `ceil` when it is within floating-point noise of a whole number, so
 * that `100 * 1.1`, which is `110.00000000000001` in binary floating point, means 110 and not 111.
 * The noise of one product is at most two units in the last place; nothing larger is absorbed, and a
 * factor above 1 always grows a batch by at least one task.
 *
 * @param ranSize The number of tasks of the batch that succeeded.
 * @param options The batch-size options.
 * @return The size the next batch may have.
 */
export function nextBatchSize(ranSize: number, options: GrowthOptions): number {
  let wanted = ceilBeyondNoise(ranSize * options.growthFactor);
  if (options.growthFactor > 1) wanted = Math.max(wanted, ranSize + 1);
  return Math.min(options.maxBatchSize, Math.max(options.initialBatchSize, wanted));
}

/** `size` as a whole number within `initialBatchSize` and `maxBatchSize`: a pace taken up from elsewhere. */
export function withinSizes(size: number, options: GrowthOptions): number {
  return Math.min(options.maxBatchSize, Math.max(options.initialBatchSize, Math.floor(size)));
}

/** `ceil(grown)`, where a product within floating-point noise of a whole number is that number. */
function ceilBeyondNoise(grown: number): number {
  const nearest = Math.round(grown);
  return Math.abs(grown - nearest) <= grown * 2 * Number.EPSILON ? nearest : Math.ceil(grown);
}

/**
 * The next size of a pace that has dropped after a throttle (a failure that `retry` retries), as TCP
 * grows its window: by `growthFactor` up to `threshold` (slow start), then by one task per round
 * (congestion avoidance).
 * With no threshold (no drop yet) it is {@link nextBatchSize}.
 *
 * @param size The size of the round that succeeded.
 * @param options The batch-size options.
 * @param threshold Half of what was in flight at the last drop, or `undefined` before any drop.
 * @return The size of the next round.
 */
export function nextPaceSize(size: number, options: GrowthOptions, threshold: number | undefined): number {
  if (threshold === undefined) return nextBatchSize(size, options);
  const grown = nextBatchSize(size, options);
  if (size < threshold) return Math.min(threshold, grown);
  // One task per round, and no more than the growth factor allows: fixed-size batches stay fixed.
  return Math.min(grown, size + 1);
}

/**
 * The threshold after a drop of the pace: half of what was in flight, no less than `initialBatchSize`
 * and no more than `maxBatchSize`.
 */
export function thresholdAfterDrop(inFlight: number, options: GrowthOptions): number {
  return Math.min(options.maxBatchSize, Math.max(options.initialBatchSize, Math.floor(inFlight / 2)));
}
