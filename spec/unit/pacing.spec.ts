// The two pacings alone: numbers in, numbers out, with no runner, time or RxJS.
import { BatchPacing } from '../../src/pacing/batch-pacing';
import type { RunState } from '../../src/pacing/pacing';
import { WindowPacing } from '../../src/pacing/window-pacing';

const growth = { initialBatchSize: 1, growthFactor: 2, maxBatchSize: Infinity };
const state = (overrides: Partial<RunState> = {}): RunState => ({
  inFlight: 0,
  waiting: 100,
  retrying: 0,
  sourceDone: false,
  flushDue: false,
  stopping: false,
  ...overrides,
});

describe('WindowPacing (§9)', () => {
  it('allows s(k) tasks in flight while S(k) to S(k+1) - 1 tasks have succeeded', () => {
    const pacing = new WindowPacing(growth, Infinity);
    const limits: number[] = [];
    for (let successes = 0; successes < 16; successes++) {
      limits.push(pacing.room(state()));
      pacing.settled(true);
    }
    // S = 0, 1, 3, 7, 15: the limit is 1, then 2 from 1 success, 4 from 3, 8 from 7, 16 from 15.
    expect(limits).toEqual([1, 2, 2, 4, 4, 4, 4, 8, 8, 8, 8, 8, 8, 8, 8, 16]);
  });

  it('subtracts what is in flight, and allows nothing once stopping', () => {
    const pacing = new WindowPacing({ ...growth, initialBatchSize: 4 }, Infinity);
    expect(pacing.room(state({ inFlight: 3 }))).toBe(1);
    expect(pacing.room(state({ inFlight: 4 }))).toBe(0);
    expect(pacing.room(state({ inFlight: 1, stopping: true }))).toBe(0);
  });

  it('does not count failures as progress', () => {
    const pacing = new WindowPacing(growth, Infinity);
    pacing.settled(false);
    expect(pacing.room(state())).toBe(1);
  });

  it('groups tasks into results of the batch sizes, in order', () => {
    const pacing = new WindowPacing(growth, Infinity);
    const groups = Array.from({ length: 10 }, () => [pacing.start(false), pacing.resultSize, pacing.resultFull]);
    expect(groups).toEqual([
      [true, 1, true],
      [true, 2, false],
      [false, 2, true],
      [true, 4, false],
      [false, 4, false],
      [false, 4, false],
      [false, 4, true],
      [true, 8, false],
      [false, 8, false],
      [false, 8, false],
    ]);
    // A retried task keeps its result: it neither begins one nor joins the last.
    expect(pacing.start(true)).toBe(false);
    expect(pacing.start(false)).toBe(false);
  });

  it('wants no more factories than it could start, within concurrency', () => {
    const pacing = new WindowPacing({ ...growth, initialBatchSize: 8 }, 3);
    expect(pacing.wants(state({ inFlight: 1 }))).toBe(2);
    expect(pacing.wants(state({ inFlight: 1, stopping: true }))).toBe(0);
  });
});

describe('BatchPacing (§2 to §5)', () => {
  it('opens a batch only when the previous one has settled and enough factories wait', () => {
    const pacing = new BatchPacing(growth);
    expect(pacing.room(state({ waiting: 0 }))).toBe(0);
    expect(pacing.wants(state({ waiting: 0 }))).toBe(1);
    expect(pacing.room(state({ waiting: 5 }))).toBe(1);
    expect(pacing.start(false)).toBe(true);
    // The barrier: nothing more until the batch has settled, and no factory is wanted meanwhile.
    expect(pacing.room(state({ inFlight: 1, waiting: 4 }))).toBe(0);
    expect(pacing.wants(state({ inFlight: 1, waiting: 4 }))).toBe(0);
    pacing.settled(true);
    expect(pacing.room(state({ waiting: 1 }))).toBe(0);
    expect(pacing.room(state({ waiting: 1, sourceDone: true }))).toBe(1);
  });

  it('starts every task of an open batch, also after a failure, and nothing after it', () => {
    const pacing = new BatchPacing({ ...growth, initialBatchSize: 3 });
    expect(pacing.room(state())).toBe(3);
    pacing.start(false);
    pacing.settled(false);
    expect(pacing.room(state({ stopping: true }))).toBe(2);
    pacing.start(false);
    pacing.start(false);
    expect(pacing.resultSize).toBe(3);
    pacing.settled(true);
    pacing.settled(true);
    expect(pacing.room(state({ stopping: true }))).toBe(0);
  });

  it('starts a short batch when a flush is due, and grows from the size that ran', () => {
    const pacing = new BatchPacing({ ...growth, initialBatchSize: 4 });
    expect(pacing.room(state({ waiting: 2 }))).toBe(0);
    expect(pacing.room(state({ waiting: 2, flushDue: true }))).toBe(2);
    pacing.start(false);
    pacing.start(false);
    pacing.settled(true);
    pacing.settled(true);
    // 2 ran: the next batch may hold max(4, 2 * 2) = 4.
    expect(pacing.wants(state({ waiting: 0 }))).toBe(4);
  });
});
