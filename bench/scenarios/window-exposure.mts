import { map, timer, VirtualTimeScheduler, type Observable } from 'rxjs';
import { format, progress, type Figure, type Scenario, type TargetResult } from '../harness.mjs';
import { slowStart } from '../subject.mjs';
import { logNormalLatencies, runVirtual } from '../virtual-time.mjs';

const TASKS = 5_000;
const QUOTAS = [20, 100, 1_000] as const;
const MAX_BATCHES = [256, Infinity] as const;
const MEDIAN_MS = 50;
const SIGMA = 1;
const SEED = 12;
const WINDOW_VS_BATCH = 2;

type Pacing = 'batch' | 'window';

interface Exposure {
  /** Calls the server refused: call number > quota, counted when the call is made. */
  failed: number;
  calls: number;
  /** Most calls in flight at once. */
  peakInFlight: number;
  /** Calls made after the first refusal had come back. */
  callsAfterFirstFailure: number;
}

/** One run against a fresh server that refuses every call past `quota`. */
function exposure(pacing: Pacing, quota: number, maxBatchSize: number, latencies: readonly number[]): Exposure {
  const scheduler = new VirtualTimeScheduler();
  let calls = 0;
  let failed = 0;
  let inFlight = 0;
  let peakInFlight = 0;
  let firstFailureSeen = false;
  let callsAfterFirstFailure = 0;
  const tasks: Array<() => Observable<number>> = latencies.map((latency, i) => () => {
    const call = ++calls;
    if (firstFailureSeen) callsAfterFirstFailure++;
    inFlight++;
    peakInFlight = Math.max(peakInFlight, inFlight);
    return timer(latency, scheduler).pipe(
      map(() => {
        inFlight--;
        if (call > quota) {
          failed++;
          firstFailureSeen = true;
          throw new Error(`quota of ${quota} calls exceeded (call ${call})`);
        }
        return i;
      }),
    );
  });
  const run = runVirtual(scheduler, () => slowStart(tasks, pacing === 'window' ? { pacing: 'window', maxBatchSize } : { maxBatchSize }));
  if (run.completed) throw new Error(`${pacing} pacing, quota ${quota}: the run completed though the server refused calls`);
  if (inFlight !== 0) throw new Error(`${pacing} pacing, quota ${quota}: ${inFlight} calls still in flight when the run ended`);
  return { failed, calls, peakInFlight, callsAfterFirstFailure };
}

const maxLabel = (max: number): string => (max === Infinity ? 'Infinity' : String(max));

/**
 * What a run costs a server that refuses every call past a quota: the calls that fail before the run
 * stops. Batch pacing stops at the end of the first failing batch; window pacing must not expose the
 * server much more although it does not wait for batches.
 */
export const windowExposure: Scenario = {
  name: 'window-exposure',
  title: 'Window pacing, exposure to a server past its quota',
  async run() {
    const latencies = logNormalLatencies(TASKS, { median: MEDIAN_MS, sigma: SIGMA, seed: SEED });
    const figures: Figure[] = [];
    const targets: TargetResult[] = [];
    for (const maxBatchSize of MAX_BATCHES) {
      for (const quota of QUOTAS) {
        const batch = exposure('batch', quota, maxBatchSize, latencies);
        const window = exposure('window', quota, maxBatchSize, latencies);
        const where = `quota ${format.count(quota)}, maxBatchSize ${maxLabel(maxBatchSize)}`;
        progress(`${where}: failed calls batch ${batch.failed}, window ${window.failed}`);
        figures.push(
          { label: `${where}: failed calls, batch pacing`, value: format.count(batch.failed) },
          { label: `${where}: failed calls, window pacing`, value: format.count(window.failed) },
          {
            label: `${where}: calls, peak in flight, calls after the first refusal (batch; window)`,
            value:
              `${batch.calls}, ${batch.peakInFlight}, ${batch.callsAfterFirstFailure}; ` +
              `${window.calls}, ${window.peakInFlight}, ${window.callsAfterFirstFailure}`,
          },
        );
        const ratio = window.failed / batch.failed;
        targets.push({
          description: `window / batch pacing failed calls, ${where}`,
          measured: `${window.failed} / ${batch.failed} = ${format.ratio(ratio)}`,
          limit: `<= ${WINDOW_VS_BATCH}`,
          met: window.failed <= WINDOW_VS_BATCH * batch.failed,
        });
        if (maxBatchSize !== Infinity) {
          targets.push({
            description: `window pacing failed calls, ${where}`,
            measured: format.count(window.failed),
            limit: `<= ${maxBatchSize}`,
            met: window.failed <= maxBatchSize,
          });
        }
      }
    }
    return {
      name: this.name,
      title: this.title,
      method:
        `${format.count(TASKS)} tasks from one array, each a call to a simulated server on RxJS's ` +
        `\`VirtualTimeScheduler\`: the call takes a log-normal latency (median ${MEDIAN_MS} ms, σ ${SIGMA}, PRNG ` +
        `seeded with ${SEED}, the same per task index on every side) and fails if its number, counted when it ` +
        `is made, is past the quota (${QUOTAS.join(', ')} calls). \`slowStart(tasks, { maxBatchSize })\` ` +
        `(batch pacing) and \`slowStart(tasks, { pacing: 'window', maxBatchSize })\`, with maxBatchSize ` +
        `${MAX_BATCHES.map(maxLabel).join(' and ')}. A failed call is one the server refused; every run ends ` +
        'with the stream erroring.',
      figures,
      targets,
    };
  },
};
