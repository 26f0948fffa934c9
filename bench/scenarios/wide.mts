import { runChild } from '../child.mjs';
import { format, progress, type Scenario } from '../harness.mjs';

export const SIZES = [10_000, 20_000, 40_000, 80_000, 160_000];
/** mergeMap's cost grows with the square of the pending inners; beyond this it would take minutes. */
export const MERGE_MAP_MAX_SIZE = 80_000;
/** Above this, mergeMap takes seconds per run: one run and no warm-up. */
export const MERGE_MAP_SLOW_SIZE = 20_000;
/** slowStartBatch and the control warm up on at least this many tasks, in as many rounds as that takes. */
export const WARMUP_TASKS = 200_000;
/** Where heap per pending task is measured. */
export const HEAP_SIZE = 80_000;
const TARGET_DOUBLING = 2.5;

/** Medians over the timed runs of one side at one N. */
export interface SideMeasurement {
  ms: number;
  gcMs: number;
  outsideGcMs: number;
  /** Page faults of the process during a run, and CPU time spent in the kernel. */
  pageFaults: number;
  systemMs: number;
}

/** What wide-child.mts measures for one N. */
export interface WideMeasurement {
  size: number;
  /** Medians of the runs' total time and of the garbage-collection pauses within; the difference. */
  ours: SideMeasurement;
  control: SideMeasurement;
  mergeMapMs?: number;
  /** Bytes of heap per pending task, at N = HEAP_SIZE only. */
  heapPerPendingTask?: { ours: number; control: number; mergeMap: number };
}

/**
 * One batch of N promise tasks, all pending at once. After a few doublings this is what slow start runs,
 * so its cost must stay linear in N. `mergeMap` with N pending inners is not: each finished inner is
 * removed from an array of all the others (RxJS 7's `Subscription.remove`), which is quadratic.
 *
 * Holding N tasks pending also means holding N sets of objects alive, and once they outgrow V8's young
 * generation every collection has to copy them: a step in cost at some N that has nothing to do with
 * the algorithm. To tell the two apart, the runs record their garbage-collection pauses, and
 * `Promise.all` over the same tasks (no RxJS, no operator) runs beside ours as a control.
 */
export const wide: Scenario = {
  name: 'wide',
  title: 'Wide batches',
  async run() {
    const measured = await measureAllSizes();
    const at = (size: number): WideMeasurement => measured.get(size)!;
    const heap = at(HEAP_SIZE).heapPerPendingTask!;

    const figures = SIZES.map((size) => ({
      label: `N = ${format.count(size)}: slowStartBatch (of which GC pauses) / Promise.all (GC) / mergeMap`,
      value:
        `${format.ms(at(size).ours.ms)} (${format.ms(at(size).ours.gcMs)}) / ` +
        `${format.ms(at(size).control.ms)} (${format.ms(at(size).control.gcMs)}) / ` +
        (at(size).mergeMapMs === undefined ? 'not run' : format.ms(at(size).mergeMapMs!)),
    }));
    for (const size of SIZES) {
      figures.push({
        label: `N = ${format.count(size)}: page faults per run (kernel CPU time), slowStartBatch / Promise.all`,
        value:
          `${format.count(at(size).ours.pageFaults)} (${format.ms(at(size).ours.systemMs)}) / ` +
          `${format.count(at(size).control.pageFaults)} (${format.ms(at(size).control.systemMs)})`,
      });
    }
    const doublings = doublingsOf(SIZES);
    const growth = (time: (m: WideMeasurement) => number | undefined, previous: number, size: number): number | undefined => {
      const before = time(at(previous));
      const after = time(at(size));
      return before === undefined || after === undefined ? undefined : after / before;
    };
    const times = (ratio: number | undefined): string => (ratio === undefined ? 'not run' : `${format.ratio(ratio)}x`);
    for (const { previous, size } of doublings) {
      figures.push({
        label:
          `time growth ${format.count(previous)} -> ${format.count(size)}: ` +
          'slowStartBatch (outside GC pauses) / Promise.all / mergeMap',
        value:
          `${times(growth((m) => m.ours.ms, previous, size))} (${times(growth((m) => m.ours.outsideGcMs, previous, size))}) / ` +
          `${times(growth((m) => m.control.ms, previous, size))} / ${times(growth((m) => m.mergeMapMs, previous, size))}`,
      });
    }
    figures.push({
      label: `heap per pending task, N = ${format.count(HEAP_SIZE)}: slowStartBatch / Promise.all / mergeMap`,
      value: `${format.bytes(heap.ours)} / ${format.bytes(heap.control)} / ${format.bytes(heap.mergeMap)}`,
    });
    const controlSteepest = doublings
      .map(({ previous, size }) => ({ previous, size, ratio: growth((m) => m.control.ms, previous, size)! }))
      .reduce((steepest, doubling) => (doubling.ratio > steepest.ratio ? doubling : steepest));

    return {
      name: this.name,
      title: this.title,
      method:
        'N factories, each returning a promise that waits on one gate which opens when the last task is ' +
        'invoked, so that all N are pending at once. `from(factories).pipe(slowStartBatch({ initialBatchSize: N }))` ' +
        '(one batch of N), beside a control without RxJS, `Promise.all(factories.map(f => f()))`: warm-up ' +
        `rounds until ${format.count(WARMUP_TASKS)} tasks have run (at least one), then 7 timed rounds, the two ` +
        'alternating; garbage-collection pauses within each run are taken ' +
        "from Node's `gc` performance entries. Then `from(factories).pipe(mergeMap(f => f()))`, last so that " +
        `its garbage is not collected during the other runs: 1 warm-up and 3 timed rounds up to N = ` +
        `${format.count(MERGE_MAP_SLOW_SIZE)}, a single run at ${format.count(MERGE_MAP_SLOW_SIZE * 2)} and ` +
        `${format.count(MERGE_MAP_MAX_SIZE)}, none at ${format.count(SIZES[SIZES.length - 1]!)}: its time ` +
        'grows with the square of N, and there one run would take most of the time budget of the whole ' +
        'suite. Each N runs in a process of its own, so that no size collects the garbage of another, and ' +
        'in two passes, smallest to largest and back, whose medians are averaged (for slowStartBatch and the ' +
        'control), so that a load that rises or falls during the scenario does not bend the growth. Heap ' +
        `per pending task: heap after full collections with all ${format.count(HEAP_SIZE)} tasks pending, ` +
        'minus the heap before, divided by N.',
      figures,
      targets: doublings.map(({ previous, size }) => {
        const ratio = growth((m) => m.ours.ms, previous, size)!;
        const met = ratio <= TARGET_DOUBLING;
        const note =
          `garbage-collection pauses took ${format.ms(at(previous).ours.gcMs)} of ${format.ms(at(previous).ours.ms)} ` +
          `at N = ${format.count(previous)} and ${format.ms(at(size).ours.gcMs)} of ${format.ms(at(size).ours.ms)} ` +
          `at N = ${format.count(size)}; outside the pauses the time grew ` +
          `${times(growth((m) => m.ours.outsideGcMs, previous, size))}, with page faults per run going from ` +
          `${format.count(at(previous).ours.pageFaults)} to ${format.count(at(size).ours.pageFaults)} (kernel time ` +
          `${format.ms(at(previous).ours.systemMs)} to ${format.ms(at(size).ours.systemMs)}): memory the heap takes ` +
          'afresh from the kernel in every run, as it grows to hold N pending tasks and shrinks again after. ' +
          'The control, Promise.all over the same ' +
          `tasks without RxJS, grew ${times(growth((m) => m.control.ms, previous, size))} at this doubling and ` +
          `${format.ratio(controlSteepest.ratio)}x at its steepest (${format.count(controlSteepest.previous)} -> ` +
          `${format.count(controlSteepest.size)}). ` +
          (controlSteepest.ratio > TARGET_DOUBLING
            ? 'So on this machine even code without the operator grows faster than the target at some N: the ' +
              'cost of each pending task rises as the set of pending tasks grows, and garbage-collection pauses ' +
              `are most of that rise at the larger N. The operator holds ${format.bytes(heap.ours)} of heap per ` +
              `pending task against the control's ${format.bytes(heap.control)} (mergeMap: ` +
              `${format.bytes(heap.mergeMap)}), so its rise comes at a smaller N.`
            : "The control stays within the target, so the miss is the operator's.");
        return {
          description: `slowStartBatch time growth, N = ${format.count(previous)} -> ${format.count(size)}`,
          measured: `${format.ratio(ratio)}x`,
          limit: `<= ${TARGET_DOUBLING}x`,
          met,
          ...(met ? {} : { note }),
        };
      }),
    };
  },
};

/** Each size after the first with the one before it. */
function doublingsOf(sizes: readonly number[]): { previous: number; size: number }[] {
  return sizes.slice(1).map((size, i) => ({ previous: sizes[i]!, size }));
}

/**
 * Runs every size in a process of its own, twice: smallest to largest, then largest to smallest, and
 * averages the two. The sizes can not share a process, so they can not alternate round by round as
 * the sides of a comparison do; the two passes in opposite orders cancel a load on the machine that
 * rises or falls steadily while they run. mergeMap and the heap are measured in the first pass only.
 */
async function measureAllSizes(): Promise<Map<number, WideMeasurement>> {
  const first = new Map<number, WideMeasurement>();
  for (const size of SIZES) {
    progress(`N = ${format.count(size)}, pass 1...`);
    first.set(size, await runChild<WideMeasurement>('wide-child.mts', [String(size)]));
  }
  const averaged = new Map<number, WideMeasurement>();
  for (const size of [...SIZES].reverse()) {
    progress(`N = ${format.count(size)}, pass 2...`);
    const second = await runChild<WideMeasurement>('wide-child.mts', [String(size), '--ours-and-control-only']);
    const one = first.get(size)!;
    averaged.set(size, { ...one, ours: averageOf(one.ours, second.ours), control: averageOf(one.control, second.control) });
  }
  return averaged;
}

function averageOf(a: SideMeasurement, b: SideMeasurement): SideMeasurement {
  const mean = (x: number, y: number): number => (x + y) / 2;
  return {
    ms: mean(a.ms, b.ms),
    gcMs: mean(a.gcMs, b.gcMs),
    outsideGcMs: mean(a.outsideGcMs, b.outsideGcMs),
    pageFaults: mean(a.pageFaults, b.pageFaults),
    systemMs: mean(a.systemMs, b.systemMs),
  };
}
