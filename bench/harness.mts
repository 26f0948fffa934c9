/**
 * The measuring side of the suite: interleaved rounds, medians, and the shapes every scenario reports.
 *
 * Why not tinybench or mitata for the comparisons: both sample one task many times in a row, then the
 * next task. On a shared, noisy machine, load that comes and goes between the two blocks of samples ends up
 * in the ratio. Our samples are whole runs of 100,000 to 1,000,000 tasks (tens to hundreds of
 * milliseconds each), so we can afford to alternate the sides sample by sample instead, which puts both
 * sides under the same load and lets the medians be compared directly.
 */
import { performance, PerformanceObserver, type PerformanceEntry } from 'node:perf_hooks';
import type { Observable } from 'rxjs';

/** One figure in a scenario's table. */
export interface Figure {
  label: string;
  value: string;
}

/** One target from the issue, with what was measured against it. */
export interface TargetResult {
  /** What is promised, e.g. "slowStartBatch / mergeMap, 1,000,000 sync tasks". */
  description: string;
  /** The measured value, formatted. */
  measured: string;
  /** The bound, formatted, e.g. "<= 1.5". */
  limit: string;
  met: boolean;
  /** Why the target was missed, when the scenario can tell from what it measured. */
  note?: string;
}

export interface ScenarioResult {
  name: string;
  title: string;
  /** One paragraph: what runs on each side and how it is timed. */
  method: string;
  figures: Figure[];
  targets: TargetResult[];
  /** Wall-clock seconds the scenario took, for keeping the suite within its time budget. */
  seconds?: number;
}

export interface Scenario {
  name: string;
  title: string;
  run(): Promise<ScenarioResult>;
}

/** One contender in a comparison. `run` does a complete piece of work and resolves when it is done. */
export interface Side {
  name: string;
  run: () => Promise<unknown>;
  /** Timed rounds this side takes part in, when fewer than the comparison's (for sides that are slow). */
  rounds?: number;
  /** False to skip the warm-up rounds (for sides that are slow and already warm). */
  warmup?: boolean;
}

export interface ComparisonOptions {
  /** Untimed rounds first, so that both sides run JIT-compiled code when timing starts. */
  warmupRounds: number;
  rounds: number;
  /** Called after every run, warm-up included (`round` < 0); used to report progress. */
  onSample?: (side: Side, round: number, ms: number) => void;
  /** Also record how long the garbage collector paused each run (`Comparison.gcSamples`). */
  measureGc?: boolean;
}

export interface Comparison {
  /** Milliseconds per round, per side, in the order the sides were given. */
  samples: Map<string, number[]>;
  medians: Map<string, number>;
  /** With `measureGc`: milliseconds of garbage-collection pauses within each sample. */
  gcSamples: Map<string, number[]>;
  /**
   * CPU milliseconds (user + system, all threads of the process) per sample, and their medians. Less
   * sensitive than wall-clock time to other processes taking the CPU away, so a second opinion on a
   * shared machine.
   */
  cpuSamples: Map<string, number[]>;
  cpuMedians: Map<string, number>;
}

/**
 * Runs every side once per round, alternating the order from round to round (A B, B A, ...) so that
 * neither side always runs right after the other, or always pays for collecting the other's garbage.
 */
export async function compare(sides: Side[], options: ComparisonOptions): Promise<Comparison> {
  const samples = new Map<string, number[]>(sides.map((side) => [side.name, []]));
  const gcSamples = new Map<string, number[]>(sides.map((side) => [side.name, []]));
  const cpuSamples = new Map<string, number[]>(sides.map((side) => [side.name, []]));
  if (options.measureGc) watchGarbageCollection();
  const total = options.warmupRounds + options.rounds;
  for (let round = 0; round < total; round++) {
    const order = round % 2 === 0 ? sides : [...sides].reverse();
    for (const side of order) {
      const warmingUp = round < options.warmupRounds;
      if (warmingUp && side.warmup === false) continue;
      if (!warmingUp && round - options.warmupRounds >= (side.rounds ?? options.rounds)) continue;
      const start = performance.now();
      const cpuBefore = process.cpuUsage();
      const ms = await timeOnce(side.run);
      const cpu = process.cpuUsage(cpuBefore);
      options.onSample?.(side, round - options.warmupRounds, ms);
      if (warmingUp) continue;
      samples.get(side.name)!.push(ms);
      cpuSamples.get(side.name)!.push((cpu.user + cpu.system) / 1000);
      if (options.measureGc) gcSamples.get(side.name)!.push(await gcPausesBetween(start, start + ms));
    }
  }
  const medians = new Map([...samples].map(([name, values]) => [name, median(values)]));
  const cpuMedians = new Map([...cpuSamples].map(([name, values]) => [name, median(values)]));
  return { samples, medians, gcSamples, cpuSamples, cpuMedians };
}

/** Garbage-collection pauses seen so far, as reported by Node's `gc` performance entries. */
const gcPauses: { start: number; duration: number }[] = [];
let gcObserver: PerformanceObserver | undefined;

function watchGarbageCollection(): void {
  if (gcObserver) return;
  gcObserver = new PerformanceObserver((list) => recordGcPauses(list.getEntries()));
  gcObserver.observe({ entryTypes: ['gc'] });
}

function recordGcPauses(entries: readonly PerformanceEntry[]): void {
  for (const entry of entries) gcPauses.push({ start: entry.startTime, duration: entry.duration });
}

/** Milliseconds of garbage-collection pauses that started between `start` and `end`. */
async function gcPausesBetween(start: number, end: number): Promise<number> {
  // Node queues the entries when the event loop next turns, and calls observers later still:
  // let it turn once, then take what is queued.
  await new Promise((resolve) => setImmediate(resolve));
  recordGcPauses(gcObserver!.takeRecords());
  return gcPauses.filter((pause) => pause.start >= start && pause.start < end).reduce((sum, pause) => sum + pause.duration, 0);
}

/**
 * Times one run in milliseconds.
 *
 * No garbage collection is forced before a run: measured here, a `gc()` right before a 100,000-task
 * `mergeMap` run made that run take five times the CPU time it takes otherwise (measured with
 * `process.cpuUsage()`), which would swamp any difference between the sides.
 */
export async function timeOnce(run: () => Promise<unknown>): Promise<number> {
  const start = performance.now();
  await run();
  return performance.now() - start;
}

/**
 * The median, over the rounds, of `numerator`'s time divided by `denominator`'s in the same round.
 * Both ran under the same load, so a round where the machine was busy for both still gives a fair
 * ratio; a ratio of the two medians can instead take one median from a busy stretch and the other
 * from a quiet one. `cpu` uses CPU times instead of wall-clock times.
 */
export function medianRatio(comparison: Comparison, numerator: string, denominator: string, { cpu = false } = {}): number {
  const samples = cpu ? comparison.cpuSamples : comparison.samples;
  const top = samples.get(numerator)!;
  const bottom = samples.get(denominator)!;
  if (top.length !== bottom.length) throw new RangeError(`medianRatio(): ${numerator} and ${denominator} ran different rounds`);
  return median(top.map((value, round) => value / bottom[round]!));
}

/**
 * The figures of a comparison of two sides over the same `tasks`: each side's median and time per task,
 * the CPU-time ratio, and every sample.
 */
export function pairFigures(comparison: Comparison, ours: string, theirs: string, tasks: number): Figure[] {
  const oursMedian = comparison.medians.get(ours)!;
  const theirsMedian = comparison.medians.get(theirs)!;
  return [
    { label: `${ours}, median`, value: format.ms(oursMedian) },
    { label: `${theirs}, median`, value: format.ms(theirsMedian) },
    { label: `${ours} per task`, value: format.us(oursMedian / tasks) },
    { label: `${theirs} per task`, value: format.us(theirsMedian / tasks) },
    {
      label: 'CPU time ratio (second opinion: less sensitive to other processes)',
      value: format.ratio(medianRatio(comparison, ours, theirs, { cpu: true })),
    },
    { label: `${ours} samples (ms)`, value: format.samples(comparison.samples.get(ours)!) },
    { label: `${theirs} samples (ms)`, value: format.samples(comparison.samples.get(theirs)!) },
  ];
}

export function median(values: readonly number[]): number {
  if (values.length === 0) throw new RangeError('median() of no values');
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

/**
 * Subscribes and resolves with the number of values once the observable completes. Rejects on error,
 * so that a broken operator fails the benchmark instead of timing how fast it breaks.
 */
export function drain<T>(source: Observable<T>, onValue?: (value: T) => void): Promise<number> {
  return new Promise((resolve, reject) => {
    let count = 0;
    source.subscribe({
      next: (value) => {
        count++;
        onValue?.(value);
      },
      error: reject,
      complete: () => resolve(count),
    });
  });
}

/** Throws when a run did not do the work it was supposed to do. */
export function expectEqual(actual: number, expected: number, what: string): void {
  if (actual !== expected) throw new Error(`Sanity check failed: ${what} was ${actual}, expected ${expected}`);
}

export const format = {
  ms: (ms: number): string => (ms >= 100 ? ms.toFixed(0) : ms >= 10 ? ms.toFixed(1) : ms.toFixed(2)) + ' ms',
  us: (ms: number): string => (ms * 1000).toFixed(1) + ' µs',
  ratio: (ratio: number): string => ratio.toFixed(2),
  count: (n: number): string => Math.round(n).toLocaleString('en-US'),
  mb: (bytes: number): string => (bytes / 2 ** 20).toFixed(1) + ' MB',
  bytes: (bytes: number): string => bytes.toFixed(1) + ' B',
  samples: (values: readonly number[]): string => values.map((ms) => ms.toFixed(1)).join(', '),
};

/** Progress goes to stderr so that a scenario's stdout carries only its JSON result. */
export function progress(message: string): void {
  process.stderr.write(`  ${message}\n`);
}
