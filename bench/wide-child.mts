/**
 * One size of the wide-batches scenario (scenarios/wide.mts), in a process of its own: the heap that
 * N pending tasks leave behind would otherwise be collected during the runs of the next size, and the
 * figures of one size would depend on which sizes ran before it.
 */
import { from, mergeMap } from 'rxjs';
import { reportToParent } from './child.mjs';
import { gatedTasks } from './gated-tasks.mjs';
import { compare, drain, expectEqual, format, median, progress, type Comparison, type Side } from './harness.mjs';
import { HEAP_SIZE, MERGE_MAP_MAX_SIZE, MERGE_MAP_SLOW_SIZE, WARMUP_TASKS, type WideMeasurement } from './scenarios/wide.mjs';
import { slowStartBatch } from './subject.mjs';

const size = Number(process.argv[2]);
/** Only slowStartBatch and the control: for the second pass (see scenarios/wide.mts). */
const oursAndControlOnly = process.argv.includes('--ours-and-control-only');
if (!Number.isInteger(size) || size < 1) throw new Error(`wide-child.mts: expected a size, got ${String(process.argv[2])}`);

const tasks = gatedTasks(size);
const ours: Side = {
  name: 'ours',
  run: async () => {
    tasks.reset();
    let done = 0;
    await drain(from(tasks.factories).pipe(slowStartBatch({ initialBatchSize: size })), (result) => {
      done += result.size;
    });
    expectEqual(done, size, 'tasks reported by slowStartBatch');
    expectEqual(tasks.invoked(), size, 'tasks invoked by slowStartBatch');
  },
};
const control: Side = {
  name: 'control',
  run: async () => {
    tasks.reset();
    const values = await Promise.all(tasks.factories.map((factory) => factory()));
    expectEqual(values.length, size, 'values from Promise.all');
  },
};
const mergeMapSide: Side = {
  name: 'mergeMap',
  run: async () => {
    tasks.reset();
    const values = await drain(from(tasks.factories).pipe(mergeMap((factory) => factory())));
    expectEqual(values, size, 'values emitted by mergeMap');
  },
};
const onSample = (side: Side, round: number, ms: number): void =>
  progress(`${format.count(size)} ${side.name} round ${round}: ${format.ms(ms)}`);

// Warm up on at least WARMUP_TASKS tasks whatever N is: at N = 10,000 a single warm-up run leaves
// the timed runs in code that V8 has not finished optimising.
const warmupRounds = Math.max(1, Math.ceil(WARMUP_TASKS / size));
const ROUNDS = 7;
const oursUsage = withResourceUsage(ours);
const controlUsage = withResourceUsage(control);
const timed = await compare([oursUsage.side, controlUsage.side], { warmupRounds, rounds: ROUNDS, measureGc: true, onSample });
// mergeMap last, so that the garbage it leaves is not collected during the other runs.
let mergeMapMs: number | undefined;
if (size <= MERGE_MAP_MAX_SIZE && !oursAndControlOnly) {
  const slow = size > MERGE_MAP_SLOW_SIZE;
  const theirs = await compare([mergeMapSide], { warmupRounds: slow ? 0 : 1, rounds: slow ? 1 : 3, onSample });
  mergeMapMs = theirs.medians.get('mergeMap');
}

const result: WideMeasurement = {
  size,
  ours: { ...summary(timed, 'ours'), ...oursUsage.medians(ROUNDS) },
  control: { ...summary(timed, 'control'), ...controlUsage.medians(ROUNDS) },
  ...(mergeMapMs === undefined ? {} : { mergeMapMs }),
  ...(size === HEAP_SIZE && !oursAndControlOnly ? { heapPerPendingTask: await measureHeapPerPendingTask() } : {}),
};
reportToParent(result);

/**
 * Wraps a side to count, per run, the page faults of the process and its CPU time in the kernel:
 * memory that V8 gives back to the system after a collection and takes again in the next run costs a
 * fault per page, which is slow on a virtual machine and shows up nowhere else.
 */
function withResourceUsage(side: Side) {
  const faults: number[] = [];
  const systemMs: number[] = [];
  return {
    side: {
      ...side,
      run: async () => {
        const before = process.resourceUsage();
        await side.run();
        const after = process.resourceUsage();
        faults.push(after.minorPageFault + after.majorPageFault - before.minorPageFault - before.majorPageFault);
        systemMs.push((after.systemCPUTime - before.systemCPUTime) / 1000);
      },
    },
    /** Medians over the last `rounds` runs (the timed ones). */
    medians: (rounds: number) => ({
      pageFaults: median(faults.slice(-rounds)),
      systemMs: median(systemMs.slice(-rounds)),
    }),
  };
}

function summary(comparison: Comparison, name: string): Pick<WideMeasurement['ours'], 'ms' | 'gcMs' | 'outsideGcMs'> {
  const ms = median(comparison.samples.get(name)!);
  const gcMs = median(comparison.gcSamples.get(name)!);
  // The difference of the two medians, so that the three figures printed side by side add up.
  return { ms, gcMs, outsideGcMs: ms - gcMs };
}

async function measureHeapPerPendingTask(): Promise<NonNullable<WideMeasurement['heapPerPendingTask']>> {
  return {
    ours: await heapPerPendingTask((factories) =>
      from(factories)
        .pipe(slowStartBatch({ initialBatchSize: size }))
        .subscribe(),
    ),
    control: await heapPerPendingTask((factories) => {
      void Promise.all(factories.map((factory) => factory()));
      return { unsubscribe() {} };
    }),
    mergeMap: await heapPerPendingTask((factories) =>
      from(factories)
        .pipe(mergeMap((factory) => factory()))
        .subscribe(),
    ),
  };
}

/**
 * Heap held per pending task: `subscribe` makes all the tasks pending on a gate that stays closed, and
 * the heap is compared, after full collections, with the heap before. The factories exist before and
 * after, so only the tasks and what runs them are counted.
 */
async function heapPerPendingTask(subscribe: (factories: Array<() => Promise<number>>) => { unsubscribe(): void }): Promise<number> {
  const closedGate = gatedTasks(size, { openWhenAllInvoked: false });
  closedGate.reset();
  const before = heapAfterCollection();
  const subscription = subscribe(closedGate.factories);
  const during = heapAfterCollection();
  expectEqual(closedGate.invoked(), size, 'tasks pending');
  subscription.unsubscribe();
  closedGate.open();
  await new Promise((resolve) => setImmediate(resolve));
  return (during - before) / size;
}

function heapAfterCollection(): number {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (!gc) throw new Error('wide-child.mts needs node --expose-gc');
  gc();
  gc();
  return process.memoryUsage().heapUsed;
}
