/** §2's growth rule, on both sides of its rounding. */
import { nextBatchSize } from '../../src/index';

const growth = (growthFactor: number, extra: { initialBatchSize?: number; maxBatchSize?: number } = {}) => ({
  initialBatchSize: extra.initialBatchSize ?? 1,
  growthFactor,
  maxBatchSize: extra.maxBatchSize ?? Infinity,
});

describe('nextBatchSize', () => {
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
