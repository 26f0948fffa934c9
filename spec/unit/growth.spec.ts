// §2's growth rule alone (nextBatchSize), on both sides of its rounding, and §10's after a drop.
import { nextPaceSize, thresholdAfterDrop } from '../../src/growth';
import { nextBatchSize } from '../../src/index';

const defaults = { initialBatchSize: 1, growthFactor: 2, maxBatchSize: Infinity };

describe('nextBatchSize (contract §2)', () => {
  it('doubles by default', () => {
    expect([1, 2, 4, 8].map((size) => nextBatchSize(size, defaults))).toEqual([2, 4, 8, 16]);
  });

  it('never goes below initialBatchSize, so a short batch does not shrink the next one', () => {
    expect(nextBatchSize(1, { ...defaults, initialBatchSize: 10 })).toBe(10);
    expect(nextBatchSize(5, { ...defaults, initialBatchSize: 10 })).toBe(10);
    expect(nextBatchSize(6, { ...defaults, initialBatchSize: 10 })).toBe(12);
  });

  it('never goes above maxBatchSize', () => {
    expect(nextBatchSize(4, { ...defaults, maxBatchSize: 7 })).toBe(7);
    expect(nextBatchSize(3, { ...defaults, maxBatchSize: 7 })).toBe(6);
  });

  it('rounds up fractional growth', () => {
    expect(nextBatchSize(1, { ...defaults, growthFactor: 1.5 })).toBe(2);
    expect(nextBatchSize(3, { ...defaults, growthFactor: 1.5 })).toBe(5);
    expect(nextBatchSize(5, { ...defaults, growthFactor: 1.01 })).toBe(6);
  });

  it('treats floating-point noise as the whole number it means', () => {
    // 100 * 1.1 is 110.00000000000001 in binary floating point.
    expect(100 * 1.1).toBeGreaterThan(110);
    expect(nextBatchSize(100, { ...defaults, growthFactor: 1.1 })).toBe(110);
    expect(nextBatchSize(10, { ...defaults, growthFactor: 1.1 })).toBe(11);
  });

  it('keeps fixed-size batches with growthFactor 1', () => {
    expect(nextBatchSize(3, { initialBatchSize: 3, growthFactor: 1, maxBatchSize: Infinity })).toBe(3);
  });
});

const growth = (growthFactor: number, extra: { initialBatchSize?: number; maxBatchSize?: number } = {}) => ({
  initialBatchSize: extra.initialBatchSize ?? 1,
  growthFactor,
  maxBatchSize: extra.maxBatchSize ?? Infinity,
});

describe('nextBatchSize at the edges of its rounding', () => {
  it('computes min(maxBatchSize, max(initialBatchSize, ceil(n * growthFactor)))', () => {
    expect([1, 2, 4, 8].map((n) => nextBatchSize(n, growth(2)))).toEqual([2, 4, 8, 16]);
    expect(nextBatchSize(3, growth(1.5))).toBe(5);
    expect(nextBatchSize(1, growth(2, { initialBatchSize: 10 }))).toBe(10);
    expect(nextBatchSize(40, growth(2, { initialBatchSize: 10, maxBatchSize: 64 }))).toBe(64);
    expect(nextBatchSize(7, growth(1))).toBe(7);
  });

  it('treats floating-point noise as the whole number it means', () => {
    // 100 * 1.1 is 110.00000000000001 and 10 * 1.1 is 11.000000000000002 in binary floating point.
    expect(nextBatchSize(100, growth(1.1))).toBe(110);
    expect(nextBatchSize(10, growth(1.1))).toBe(11);
    expect(nextBatchSize(3, growth(1.1))).toBe(4);
    expect(nextBatchSize(1000, growth(1.7))).toBe(1700);
  });

  it('grows by at least one task for any factor above 1, however close', () => {
    const tiny = 1.0000000000001;
    expect(nextBatchSize(1, growth(tiny))).toBe(2);
    expect(nextBatchSize(1000, growth(tiny))).toBe(1001);
    expect(nextBatchSize(1, growth(1 + Number.EPSILON))).toBe(2);
    expect(nextBatchSize(10, growth(2.0000000001))).toBe(21);
    // A real excess over a whole number is never absorbed: ceil applies.
    expect(nextBatchSize(10, growth(2 + 1e-13))).toBe(21);
  });
});

describe('nextPaceSize and thresholdAfterDrop after a drop (§10)', () => {
  it('is nextBatchSize before any drop', () => {
    expect(nextPaceSize(4, growth(2), undefined)).toBe(8);
    expect(nextPaceSize(3, growth(1.5, { maxBatchSize: 4 }), undefined)).toBe(4);
  });

  it('grows by growthFactor below the threshold, up to the threshold and not past it', () => {
    expect(nextPaceSize(2, growth(2), 8)).toBe(4);
    expect(nextPaceSize(2, growth(2), 3)).toBe(3);
    expect(nextPaceSize(4, growth(3), 10)).toBe(10);
  });

  it('grows by one task per round from the threshold on, and never faster than growthFactor', () => {
    expect(nextPaceSize(4, growth(2), 4)).toBe(5);
    expect(nextPaceSize(9, growth(2), 4)).toBe(10);
    expect(nextPaceSize(3, growth(1, { initialBatchSize: 3 }), 3)).toBe(3);
  });

  it('sets the threshold at half of what was in flight, within initialBatchSize and maxBatchSize', () => {
    expect(thresholdAfterDrop(10, growth(2))).toBe(5);
    expect(thresholdAfterDrop(11, growth(2))).toBe(5);
    expect(thresholdAfterDrop(10, growth(2, { initialBatchSize: 8 }))).toBe(8);
    expect(thresholdAfterDrop(40, growth(2, { maxBatchSize: 16 }))).toBe(16);
  });
});
