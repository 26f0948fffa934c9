import { from, map, mergeMap, timer, VirtualTimeScheduler, type Observable } from 'rxjs';
import { format, progress, type Figure, type Scenario, type TargetResult } from '../harness.mjs';
import { slowStart } from '../subject.mjs';
import { logNormalLatencies, runVirtual, type VirtualRun } from '../virtual-time.mjs';

const TASKS = 10_000;
const MAX_BATCH = 256;
const MEDIAN_MS = 50;
const SEED = 11;
const SIGMAS = [0.25, 1, 1.5] as const;
/** window / fixed, per sigma; the ramp dominates at 0.25. */
const WINDOW_VS_FIXED: Record<(typeof SIGMAS)[number], number> = { 0.25: 1.25, 1: 1.15, 1.5: 1.15 };
const BATCH_VS_WINDOW_SIGMA = 1;
const BATCH_VS_WINDOW = 4;

type Side = 'batch' | 'window' | 'fixed';

/** One run of `TASKS` simulated tasks on a fresh virtual clock. */
function makespan(side: Side, latencies: readonly number[]): VirtualRun {
  const scheduler = new VirtualTimeScheduler();
  const tasks: Array<() => Observable<number>> = latencies.map((latency, i) => () => timer(latency, scheduler).pipe(map(() => i)));
  let tasksDone = 0;
  const run =
    side === 'fixed'
      ? runVirtual(
          scheduler,
          () => from(tasks).pipe(mergeMap((task) => task(), MAX_BATCH)),
          () => tasksDone++,
        )
      : runVirtual(
          scheduler,
          () => slowStart(tasks, side === 'window' ? { pacing: 'window', maxBatchSize: MAX_BATCH } : { maxBatchSize: MAX_BATCH }),
          (result) => (tasksDone += result.size),
        );
  if (!run.completed) throw new Error(`${side}: the run errored: ${String(run.error)}`);
  if (tasksDone !== TASKS) throw new Error(`Sanity check failed: ${side} reported ${tasksDone} tasks, expected ${TASKS}`);
  return run;
}

/**
 * How long a run takes when latencies are uneven: batch pacing waits for the slowest task of every batch,
 * window pacing starts the next task as soon as one settles, and a fixed concurrency with no ramp is the
 * floor. Virtual time: the figures are the simulated makespans, the same on every machine.
 */
export const windowMakespan: Scenario = {
  name: 'window-makespan',
  title: 'Window pacing, makespan with stragglers',
  async run() {
    const figures: Figure[] = [];
    const targets: TargetResult[] = [];
    for (const sigma of SIGMAS) {
      const latencies = logNormalLatencies(TASKS, { median: MEDIAN_MS, sigma, seed: SEED });
      const spans = {} as Record<Side, number>;
      for (const side of ['batch', 'window', 'fixed'] as const) {
        spans[side] = makespan(side, latencies).makespan;
        progress(`sigma ${sigma}, ${side}: ${format.ms(spans[side])} (virtual)`);
      }
      const windowVsFixed = spans.window / spans.fixed;
      const batchVsWindow = spans.batch / spans.window;
      figures.push(
        { label: `σ ${sigma}: batch pacing makespan`, value: format.ms(spans.batch) },
        { label: `σ ${sigma}: window pacing makespan`, value: format.ms(spans.window) },
        { label: `σ ${sigma}: fixed concurrency ${MAX_BATCH} makespan`, value: format.ms(spans.fixed) },
        { label: `σ ${sigma}: window / fixed`, value: format.ratio(windowVsFixed) },
        { label: `σ ${sigma}: batch / window`, value: format.ratio(batchVsWindow) },
      );
      const limit = WINDOW_VS_FIXED[sigma];
      targets.push({
        description: `window pacing / fixed concurrency ${MAX_BATCH} makespan, σ ${sigma}`,
        measured: format.ratio(windowVsFixed),
        limit: `<= ${limit}`,
        met: windowVsFixed <= limit,
      });
      if (sigma === BATCH_VS_WINDOW_SIGMA) {
        targets.push({
          description: `batch pacing / window pacing makespan, σ ${sigma}`,
          measured: format.ratio(batchVsWindow),
          limit: `>= ${BATCH_VS_WINDOW}`,
          met: batchVsWindow >= BATCH_VS_WINDOW,
        });
      }
    }
    return {
      name: this.name,
      title: this.title,
      method:
        `${format.count(TASKS)} tasks \`() => timer(latency, scheduler)\` from one array, on RxJS's ` +
        `\`VirtualTimeScheduler\`; latencies log-normal, median ${MEDIAN_MS} ms, σ ${SIGMAS.join(', ')}, drawn from a ` +
        `PRNG seeded with ${SEED} so every side sees the same latency for each task index. Sides: ` +
        `\`slowStart(tasks, { maxBatchSize: ${MAX_BATCH} })\` (batch pacing), ` +
        `\`slowStart(tasks, { pacing: 'window', maxBatchSize: ${MAX_BATCH} })\`, and ` +
        `\`from(tasks).pipe(mergeMap(f => f(), ${MAX_BATCH}))\` (fixed concurrency, no ramp). The makespan is ` +
        'the virtual clock once `scheduler.flush()` returns.',
      figures,
      targets,
    };
  },
};
