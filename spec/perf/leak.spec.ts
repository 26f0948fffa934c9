/**
 * A long-lived subscription must not keep anything per task: 200,000 tasks pushed through one open
 * `Subject` leave the heap where it was.
 *
 * Uses V8's `gc()` (see spec/support/gc.ts) and `process.memoryUsage()`.
 */
import { Subject, from, of } from 'rxjs';
import { slowStartBatch, type TaskFactory } from '../../src/index.js';
import { exposedGc } from '../support/gc.js';

const TASKS = 200_000;
/** "Within a few MB": retaining even 16 bytes per task would exceed it (200,000 * 16 B = 3.2 MB). */
const ALLOWED_GROWTH = 2 * 1024 * 1024;

const gc = exposedGc();
const collectGarbage = () => {
  // Several passes, so that objects freed by finalizers of the previous pass go too.
  for (let i = 0; i < 4; i++) gc();
};

const heapAfterGc = () => {
  collectGarbage();
  return process.memoryUsage().heapUsed;
};

describe('memory over a long-lived source', () => {
  it(`keeps nothing per task after ${TASKS.toLocaleString('en')} tasks through an open Subject`, async () => {
    const source = new Subject<TaskFactory<number>>();
    let emitted = 0;
    let succeeded = 0;
    let failed: unknown;
    // Small batches (at most 8) and a mix of synchronous observables and promises, each task reading its
    // signal so that its AbortController is made too.
    const subscription = source.pipe(slowStartBatch({ initialBatchSize: 2, maxBatchSize: 8 })).subscribe({
      next: (result) => {
        emitted++;
        succeeded = result.successes;
      },
      error: (error: unknown) => (failed = error),
    });
    let next = 0;
    const task = (i: number): TaskFactory<number> =>
      i % 4 === 0 ? ({ signal }) => Promise.resolve(signal.aborted ? -1 : i) : ({ signal }) => of(signal.aborted ? -1 : i);
    /** Pushes `count` tasks, letting promise tasks settle every 1,000 tasks. */
    const push = async (count: number) => {
      for (const end = next + count; next < end;) {
        for (const stop = Math.min(end, next + 1_000); next < stop; next++) source.next(task(next));
        await new Promise((resolve) => setImmediate(resolve));
      }
    };

    await push(20_000); // warms up the code paths, so the JIT's own allocations are not counted
    const before = heapAfterGc();
    await push(TASKS);
    const after = heapAfterGc();

    expect(failed).toBeUndefined();
    expect(subscription.closed).toBe(false);
    // Every task ran but the few waiting for a full batch of 8 (the source is still open).
    expect(next - succeeded).toBeGreaterThanOrEqual(0);
    expect(next - succeeded).toBeLessThan(8);
    expect(emitted).toBeGreaterThan(TASKS / 8);
    expect(after - before).toBeLessThan(ALLOWED_GROWTH);
    subscription.unsubscribe();
  }, 60_000);

  it('detects retention: the same measurement sees 200,000 retained factories', () => {
    // A control for the measurement above: keeping every factory (as a buggy queue would) is caught.
    const retained: TaskFactory<number>[] = [];
    const before = heapAfterGc();
    from(Array.from({ length: TASKS }, (_, i) => () => of(i))).subscribe((f) => retained.push(f));
    const after = heapAfterGc();
    expect(after - before).toBeGreaterThan(ALLOWED_GROWTH);
    expect(retained).toHaveLength(TASKS);
  });
});
