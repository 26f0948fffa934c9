// The batch planner alone: the sizes of §2 (nextBatchSize) and the chunked queue of waiting factories.
import { BatchPlanner } from '../../src/batch-planner';
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

describe('BatchPlanner', () => {
  // The waiting factories are stored in chunks of 1,024: these cross chunk boundaries on both ends.
  it('hands out factories in arrival order across many chunks, with the arrival of the oldest', () => {
    const planner = new BatchPlanner<number, number>({ initialBatchSize: 700, growthFactor: 1, maxBatchSize: 700 }, true);
    let received = 0;
    const receive = (count: number) => {
      for (let index = 0; index < count; index++) planner.receive(received, 10_000 + received++);
    };
    const taken: number[] = [];
    const runBatch = () => {
      const batch = planner.startBatch();
      taken.push(...batch.factories);
      for (let position = 0; position < batch.size; position++) planner.fulfil(batch, position, position);
      expect(planner.finish(batch).failed).toBe(false);
      return batch.size;
    };
    receive(2500);
    expect([runBatch(), planner.waitingCount, planner.oldestArrival]).toEqual([700, 1800, 10_700]);
    expect([runBatch(), runBatch()]).toEqual([700, 700]);
    receive(1100);
    expect([runBatch(), runBatch(), planner.waitingCount, planner.oldestArrival]).toEqual([700, 700, 100, 13_500]);
    expect(runBatch()).toBe(100);
    expect([planner.waitingCount, planner.oldestArrival]).toEqual([0, undefined]);
    receive(3000);
    while (planner.waitingCount > 0) runBatch();
    expect(taken).toEqual(Array.from({ length: received }, (_, index) => index));
  });
});
