// The two pacings alone: numbers in, numbers out, with no runner, time or RxJS.
import { BatchPacing } from '../../src/pacing/batch-pacing';
import type { Backlog, Pacing } from '../../src/pacing/pacing';
import { WindowPacing } from '../../src/pacing/window-pacing';

const growth = { initialBatchSize: 1, growthFactor: 2, maxBatchSize: Infinity };
const state = (overrides: Partial<Backlog> = {}): Backlog => ({
  inFlight: 0,
  waiting: 100,
  retrying: 0,
  mayStartShort: false,
  ...overrides,
});
/** What a start hands out, copied: the pacing reuses its ticket. */
const started = (pacing: Pacing, retried: boolean) => ({ ...pacing.start(retried) });

/** Batch pacing as the runner sees it: through the interface, where `settled` is told how the task ended. */
const batchPacing = (options: typeof growth): Pacing => new BatchPacing(options);

describe('WindowPacing (§9)', () => {
  it('allows s(k) tasks in flight while S(k) to S(k+1) - 1 tasks have succeeded', () => {
    const pacing = new WindowPacing(growth, Infinity);
    const limits: number[] = [];
    for (let successes = 0; successes < 16; successes++) {
      limits.push(pacing.openRoom(state()));
      pacing.succeeded(0);
    }
    // S = 0, 1, 3, 7, 15: the limit is 1, then 2 from 1 success, 4 from 3, 8 from 7, 16 from 15.
    expect(limits).toEqual([1, 2, 2, 4, 4, 4, 4, 8, 8, 8, 8, 8, 8, 8, 8, 16]);
  });

  it('subtracts what is in flight, and allows nothing once stopping', () => {
    const pacing = new WindowPacing({ ...growth, initialBatchSize: 4 }, Infinity);
    expect(pacing.openRoom(state({ inFlight: 3 }))).toBe(1);
    expect(pacing.openRoom(state({ inFlight: 4 }))).toBe(0);
    pacing.stop();
    expect(pacing.openRoom(state({ inFlight: 1 }))).toBe(0);
  });

  it('groups tasks into results of the batch sizes, in order', () => {
    const pacing = new WindowPacing(growth, Infinity);
    const groups = Array.from({ length: 10 }, () => {
      const { beginsResult, resultSize, closesResult } = pacing.start(false);
      return [beginsResult, resultSize, closesResult];
    });
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
    expect(started(pacing, true)).toMatchObject({ beginsResult: false, closesResult: false });
    expect(started(pacing, false)).toMatchObject({ beginsResult: false, closesResult: false, resultSize: 8 });
  });

  it('wants no more factories than it could start, within concurrency', () => {
    const pacing = new WindowPacing({ ...growth, initialBatchSize: 8 }, 3);
    expect(pacing.wants(state({ inFlight: 1 }))).toBe(2);
    pacing.stop();
    expect(pacing.wants(state({ inFlight: 1 }))).toBe(0);
  });
  it('drops once for the tasks in flight at a throttle, and counts only successes started since', () => {
    const pacing = new WindowPacing(growth, Infinity);
    for (let successes = 0; successes < 7; successes++) pacing.succeeded(0);
    expect(pacing.openRoom(state())).toBe(8);
    expect(pacing.throttled(0, 8)).toBe(true);
    expect(pacing.throttled(0, 7)).toBe(false);
    expect(pacing.start(false).drops).toBe(1);
    expect(pacing.openRoom(state())).toBe(1);
    // A task started before the drop proves nothing about the new pace; one started after it does.
    pacing.succeeded(0);
    expect(pacing.openRoom(state())).toBe(1);
    pacing.succeeded(1);
    expect(pacing.openRoom(state())).toBe(2);
  });
});

describe('BatchPacing (§2 to §5)', () => {
  it('opens a batch only when the previous one has settled and enough factories wait', () => {
    const pacing = batchPacing(growth);
    expect(pacing.openRoom(state({ waiting: 0 }))).toBe(0);
    expect(pacing.wants(state({ waiting: 0 }))).toBe(1);
    expect(pacing.openRoom(state({ waiting: 5 }))).toBe(1);
    expect(started(pacing, false)).toEqual({ drops: 0, beginsResult: true, closesResult: true, resultSize: 1 });
    // The barrier: nothing more until the batch has settled, and no factory is wanted meanwhile.
    expect(pacing.openRoom(state({ inFlight: 1, waiting: 4 }))).toBe(0);
    expect(pacing.wants(state({ inFlight: 1, waiting: 4 }))).toBe(0);
    pacing.succeeded(0);
    expect(pacing.openRoom(state({ waiting: 1 }))).toBe(0);
    expect(pacing.openRoom(state({ waiting: 1, mayStartShort: true }))).toBe(1);
  });

  it('starts every task of an open batch, also after a failure, and nothing after it', () => {
    const pacing = batchPacing({ ...growth, initialBatchSize: 3 });
    expect(pacing.openRoom(state())).toBe(3);
    pacing.start(false);
    // The first task fails for good: the run stops.
    pacing.stop();
    expect(pacing.openRoom(state())).toBe(2);
    expect(pacing.wants(state())).toBe(0);
    pacing.start(false);
    expect(started(pacing, false)).toEqual({ drops: 0, beginsResult: false, closesResult: true, resultSize: 3 });
    pacing.succeeded(0);
    pacing.succeeded(0);
    expect(pacing.openRoom(state())).toBe(0);
    expect(pacing.wants(state())).toBe(0);
  });

  it('starts a short batch when a flush is due, and grows from the size that ran', () => {
    const pacing = batchPacing({ ...growth, initialBatchSize: 4 });
    expect(pacing.openRoom(state({ waiting: 2 }))).toBe(0);
    expect(pacing.openRoom(state({ waiting: 2, mayStartShort: true }))).toBe(2);
    pacing.start(false);
    pacing.start(false);
    pacing.succeeded(0);
    pacing.succeeded(0);
    // 2 ran: the next batch may hold max(4, 2 * 2) = 4.
    expect(pacing.wants(state({ waiting: 0 }))).toBe(4);
  });

  // Found by mutation testing: the cases below pin what room(), takesRetry() and throttled() answer
  // around retried tasks, drops and an empty source.
  it('starts a short batch for a retried task, which takes a slot kept for it', () => {
    const pacing = batchPacing(growth);
    pacing.openRoom(state({ waiting: 1 }));
    pacing.start(false);
    pacing.succeeded(0);
    // The next batch may hold 2; one task waits, a retried one: it need not wait for a second.
    expect(pacing.openRoom(state({ waiting: 1 }))).toBe(0);
    expect(pacing.openRoom(state({ waiting: 1, retrying: 1 }))).toBe(1);
    expect(pacing.takesRetry()).toBe(true);
    expect(started(pacing, true)).toMatchObject({ beginsResult: false, closesResult: false });
    expect(pacing.takesRetry()).toBe(false);
  });

  it('keeps one slot per retried task waiting when the batch opens, whatever new tasks start meanwhile', () => {
    const pacing = batchPacing({ ...growth, initialBatchSize: 4 });
    expect(pacing.openRoom(state({ waiting: 6, retrying: 2 }))).toBe(4);
    pacing.start(true);
    expect(pacing.takesRetry()).toBe(true);
    // A new task begins the batch's result and leaves the other retried task its slot.
    expect(started(pacing, false)).toMatchObject({ beginsResult: true, closesResult: false });
    expect(pacing.takesRetry()).toBe(true);
    pacing.start(true);
    expect(pacing.takesRetry()).toBe(false);
    // The last task of the batch closes its result.
    expect(started(pacing, false)).toMatchObject({ beginsResult: false, closesResult: true });
    expect(pacing.takesRetry()).toBe(false);
  });

  it('opens no batch when nothing waits, and the last result keeps its size', () => {
    const pacing = batchPacing({ ...growth, initialBatchSize: 2 });
    pacing.openRoom(state({ waiting: 2 }));
    pacing.start(false);
    const last = started(pacing, false);
    pacing.succeeded(0);
    pacing.succeeded(0);
    expect(pacing.openRoom(state({ waiting: 0, mayStartShort: true }))).toBe(0);
    expect([last.resultSize, last.closesResult]).toEqual([2, true]);
  });

  it('drops once per batch after a throttle, and starts again from initialBatchSize after it', () => {
    const pacing = batchPacing(growth);
    const runBatch = (size: number) => {
      expect(pacing.openRoom(state())).toBe(size);
      for (let i = 0; i < size; i++) pacing.start(false);
      for (let i = 0; i < size; i++) pacing.succeeded(0);
    };
    runBatch(1);
    runBatch(2);
    runBatch(4);
    // A batch of 8 in which two tasks are throttled: the pace drops once, by the first.
    expect(pacing.openRoom(state())).toBe(8);
    for (let i = 0; i < 7; i++) pacing.start(false);
    const { drops } = pacing.start(false);
    expect(pacing.throttled(drops, 8)).toBe(true);
    expect(pacing.throttled(drops, 7)).toBe(false);
    // The rest of the batch still has to settle; its successes do not grow the dropped pace.
    for (let i = 0; i < 6; i++) pacing.succeeded(0);
    expect(pacing.wants(state())).toBe(1);
    // From 1 again, doubling up to the threshold, half of the 8 in flight at the drop, then one more per batch.
    runBatch(1);
    runBatch(2);
    runBatch(4);
    runBatch(5);
    runBatch(6);
  });

  it('drops again for a task started after the last drop', () => {
    const pacing = batchPacing(growth);
    pacing.openRoom(state());
    expect(pacing.start(false).drops).toBe(0);
    expect(pacing.throttled(0, 1)).toBe(true);
    pacing.openRoom(state());
    expect(pacing.start(false).drops).toBe(1);
    expect(pacing.throttled(1, 1)).toBe(true);
    expect(pacing.throttled(1, 1)).toBe(false);
  });
});
