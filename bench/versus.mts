/**
 * `npm run bench:versus -- OTHER_CHECKOUT [--processes N] [--alone N] [--rounds N] [--only NAME,...] [--compilation WHERE]`: this
 * checkout's build ("new", built afresh into dist/) against the build of another checkout ("old", whose
 * dist/ must be built), side by side, on the per-task workloads of the suite.
 *
 * Each timing process (versus-child.mts) loads BOTH builds, each from its own `dist/cjs/index.js` with the
 * rxjs its checkout installed, and runs every workload with the builds in turn, A B, B A, ... after
 * warm-up rounds: both run under the same load in a round, so the per-round ratio new / old holds on a
 * noisy machine where the medians alone would not. Several such processes run one after the other, half of
 * them loading the new build first: measured here, one process could time one copy of a build a steady 20
 * to 40 % slower than an identical copy beside it, in either direction from one process to the next (V8
 * compiles the two copies apart, and not always alike), so the ratios are pooled over the processes, and
 * each process's median is printed too.
 *
 * Beside each other, the two builds also share a heap: garbage one build leaves is partly collected during
 * the other's rounds. When one build makes far more work for the collector (here, 9bd12c4's promise tasks
 * against fad45bd's), that narrows their ratio to almost nothing. And which other code ran in the process
 * before changes how V8 compiles what runs next: measured here, 98ec48f's window pacing beside a189603's
 * (with its task context) took 1.02 times as long when it was the only workload of its processes, and 1.2
 * to 1.3 times when the batch pacing of both builds had run before it. So every workload then runs again,
 * each build alone in processes of its own, the builds alternating, beside the floor (`Promise.all`) where
 * there is one: a second table prints the ratio of the builds' ratios to the floor, or, without a floor,
 * the ratios of each pair of processes.
 *
 * The timing processes run V8's optimising compiler on their main thread (`--no-concurrent-recompilation`)
 * unless `--compilation concurrent`. On its own thread, as Node runs by default, it finishes a function's
 * optimised code while the run goes on, and which rounds and which functions get it first varies from one
 * process to the next: measured here on two cores, one build alone, 1,000,000 synchronous tasks through
 * `slowStartBatch()`, four processes took medians of 530 to 563 ms, and with the compiler on the main
 * thread 479 to 496 ms. That spread of a build against itself is wider than the differences bench:versus
 * is there to find; each build gets the same compiler either way.
 *
 * The heap of 10,000,000 factories needs a process of its own per measurement (memory-child.mts): those
 * run last, the builds alternating.
 */
import { spawnSync } from 'node:child_process';
import { loadavg } from 'node:os';
import { loadBuild } from './build.mjs';
import { repoRoot, runChild } from './child.mjs';
import { commandLine, readArguments } from './command-line.mjs';
import { expectEqual, format, median, progress } from './harness.mjs';
import { BATCHES, TASK_MS, TASKS as IDLE_TASKS, type Round } from './idle-run.mjs';
import { GENERATOR_MAX_BATCH, GENERATOR_TASKS, type GeneratorMeasurement } from './memory-shared.mjs';
import { textTable } from './report.mjs';
import {
  MAX_PROCESSES,
  MAX_ROUNDS,
  workloadNames,
  workloads,
  type ProcessResult,
  type Which,
  type WorkloadSamples,
} from './versus-plan.mjs';

const DEFAULT_PROCESSES = 4;
const DEFAULT_ALONE_PROCESSES = 3;
const HEAP_RUNS = 3;

const usage = `Usage: npm run bench:versus -- OTHER_CHECKOUT [--processes N] [--alone N] [--rounds N] [--only NAME,...] [--compilation WHERE]

Builds this checkout (npm run build) and compares it ("new") with the build in OTHER_CHECKOUT/dist ("old"):
both builds loaded into each timing process, the workloads interleaved round by round, the ratios pooled
over the processes.

  --processes N  timing processes, half of them loading the new build first (1 to ${MAX_PROCESSES}; default ${DEFAULT_PROCESSES})
  --alone N      then N processes per build that load that build alone and run every workload, beside the
                 floor where there is one, the builds alternating (0 to ${MAX_PROCESSES}; default ${DEFAULT_ALONE_PROCESSES})
  --rounds N     timed rounds of every workload in each process (1 to ${MAX_ROUNDS}; default: per workload)
  --only NAMES   run only these, comma-separated: ${workloadNames.join(', ')}
  --compilation  where the timing processes run V8's optimising compiler: main-thread (the default:
                 the same code at the same point of every process) or concurrent (Node's default)`;

const COMPILATIONS = ['main-thread', 'concurrent'] as const;
type Compilation = (typeof COMPILATIONS)[number];
/** V8's flags for each `--compilation`. */
const compilerFlags: Record<Compilation, readonly string[]> = {
  'main-thread': ['--no-concurrent-recompilation'],
  concurrent: [],
};

interface Arguments {
  other: string;
  processes: number;
  alone: number;
  rounds: number | undefined;
  only: string[] | undefined;
  compilation: Compilation;
}

const line = commandLine('bench:versus', usage);

function parseArguments(args: readonly string[]): Arguments {
  let processes = DEFAULT_PROCESSES;
  let alone = DEFAULT_ALONE_PROCESSES;
  let rounds: number | undefined;
  let only: string[] | undefined;
  let compilation: Compilation = 'main-thread';
  const other = readArguments(line, usage, args, {
    '--processes': (value) => (processes = line.wholeNumber('--processes', value, 1, MAX_PROCESSES)),
    '--alone': (value) => (alone = line.wholeNumber('--alone', value, 0, MAX_PROCESSES)),
    '--rounds': (value) => (rounds = line.wholeNumber('--rounds', value, 1, MAX_ROUNDS)),
    '--only': (value) => (only = line.names('--only', value, workloadNames)),
    '--compilation': (value) => (compilation = line.oneOf('--compilation', value, COMPILATIONS)),
  });
  return { other, processes, alone, rounds, only, compilation };
}

/** One line of the report. */
interface Row {
  name: string;
  what: string;
  unit: (value: number) => string;
  newMedian: number;
  oldMedian: number;
  /** new / old, round by round, pooled over the processes. */
  ratios: number[];
  /** The median of the ratios within each process, in the order the processes ran. */
  perProcess?: number[];
  cpuRatio?: number;
  /** new / floor and old / floor, medians of the pooled per-round ratios, of wall-clock and of CPU times. */
  floor?: { newRatio: number; oldRatio: number; newCpuRatio: number; oldCpuRatio: number };
}

const pairwise = (top: readonly number[], bottom: readonly number[]): number[] => top.map((value, round) => value / bottom[round]);

type Series = 'new' | 'old' | 'floor';

/** One series of a workload's samples in one process: wall-clock or CPU milliseconds per round. */
const series = (samples: WorkloadSamples, clock: 'ms' | 'cpuMs', which: Series): number[] => samples[clock][which] ?? [];

/** One workload's samples in every process that ran it. */
const samplesOf = (name: string, results: readonly ProcessResult[]): WorkloadSamples[] =>
  results.flatMap((result) => result.workloads.filter((workload) => workload.name === name));

/** Per-round ratios of `top` to `bottom` within each process, pooled. */
const pooledRatios = (samples: readonly WorkloadSamples[], clock: 'ms' | 'cpuMs', top: Series, bottom: Series): number[] =>
  samples.flatMap((s) => pairwise(series(s, clock, top), series(s, clock, bottom)));

/** Pools one workload's samples over the processes that ran both builds into a row. */
function workloadRow(name: string, what: string, results: readonly ProcessResult[]): Row | undefined {
  const samples = samplesOf(name, results);
  if (samples.length === 0) return undefined;
  const floorRatio = (clock: 'ms' | 'cpuMs', which: Which): number => median(pooledRatios(samples, clock, which, 'floor'));
  return {
    name,
    what,
    unit: format.ms,
    newMedian: median(samples.flatMap((s) => series(s, 'ms', 'new'))),
    oldMedian: median(samples.flatMap((s) => series(s, 'ms', 'old'))),
    ratios: pooledRatios(samples, 'ms', 'new', 'old'),
    perProcess: samples.map((s) => median(pairwise(series(s, 'ms', 'new'), series(s, 'ms', 'old')))),
    cpuRatio: median(pooledRatios(samples, 'cpuMs', 'new', 'old')),
    ...(samples.every((s) => s.ms.floor !== undefined)
      ? {
          floor: {
            newRatio: floorRatio('ms', 'new'),
            oldRatio: floorRatio('ms', 'old'),
            newCpuRatio: floorRatio('cpuMs', 'new'),
            oldCpuRatio: floorRatio('cpuMs', 'old'),
          },
        }
      : {}),
  };
}

/** One line of the second report: each build alone in its processes, beside the floor where there is one. */
interface AloneRow {
  name: string;
  newMedian: number;
  oldMedian: number;
  /**
   * new / old: for a workload with a floor, the ratio of each build's median ratio to the floor in its
   * own processes; without one, the median of the ratios of each pair of processes (a new one, then an
   * old one, or the other way round), each process's median against the other's.
   */
  ratio: number;
  cpuRatio: number;
  /** With a floor, each build's median ratio to the floor within each of its processes; without, each pair's ratio. */
  perProcess: string;
}

/** The medians of each process's rounds, wall-clock or CPU, in the order the processes ran. */
const processMedians = (samples: readonly WorkloadSamples[], clock: 'ms' | 'cpuMs', which: Which): number[] =>
  samples.map((s) => median(series(s, clock, which)));

function aloneRow(name: string, results: readonly ProcessResult[]): AloneRow | undefined {
  const of = (which: Which): WorkloadSamples[] =>
    samplesOf(
      name,
      results.filter((result) => result.loaded.length === 1 && result.loaded[0] === which),
    );
  const newSamples = of('new');
  const oldSamples = of('old');
  if (newSamples.length === 0 || oldSamples.length === 0) return undefined;
  const medians = {
    newMedian: median(newSamples.flatMap((s) => series(s, 'ms', 'new'))),
    oldMedian: median(oldSamples.flatMap((s) => series(s, 'ms', 'old'))),
  };
  if (newSamples.every((s) => s.ms.floor !== undefined) && oldSamples.every((s) => s.ms.floor !== undefined)) {
    const floorRatio = (samples: readonly WorkloadSamples[], clock: 'ms' | 'cpuMs', which: Which): number =>
      median(pooledRatios(samples, clock, which, 'floor'));
    const perProcess = (samples: readonly WorkloadSamples[], which: Which): string =>
      samples.map((s) => format.ratio(median(pairwise(series(s, 'ms', which), series(s, 'ms', 'floor'))))).join(' ');
    return {
      name,
      ...medians,
      ratio: floorRatio(newSamples, 'ms', 'new') / floorRatio(oldSamples, 'ms', 'old'),
      cpuRatio: floorRatio(newSamples, 'cpuMs', 'new') / floorRatio(oldSamples, 'cpuMs', 'old'),
      perProcess: `new/floor ${perProcess(newSamples, 'new')}; old/floor ${perProcess(oldSamples, 'old')}`,
    };
  }
  const pairs = Math.min(newSamples.length, oldSamples.length);
  const pairRatios = (clock: 'ms' | 'cpuMs'): number[] =>
    pairwise(processMedians(newSamples, clock, 'new').slice(0, pairs), processMedians(oldSamples, clock, 'old').slice(0, pairs));
  return {
    name,
    ...medians,
    ratio: median(pairRatios('ms')),
    cpuRatio: median(pairRatios('cpuMs')),
    perProcess: `pairs ${pairRatios('ms').map(format.ratio).join(' ')}`,
  };
}

/** The gap between batches, and the total time of the ten batches, pooled over the processes. */
function gapRows(results: readonly ProcessResult[]): Row[] {
  const gaps = results.flatMap((result) => (result.gap ? [result.gap] : []));
  if (gaps.length === 0) return [];
  const row = (
    name: string,
    what: string,
    unit: (value: number) => string,
    value: (round: Round) => number,
    all?: (round: Round) => number[],
  ): Row => ({
    name,
    what,
    unit,
    // For the gap, every gap of every run, as the idle scenario reports it; the ratios compare each run's median.
    newMedian: median(gaps.flatMap((gap) => gap.new.flatMap(all ?? ((round) => [value(round)])))),
    oldMedian: median(gaps.flatMap((gap) => gap.old.flatMap(all ?? ((round) => [value(round)])))),
    ratios: gaps.flatMap((gap) => pairwise(gap.new.map(value), gap.old.map(value))),
    perProcess: gaps.map((gap) => median(pairwise(gap.new.map(value), gap.old.map(value)))),
  });
  return [
    row(
      'gap',
      `gap between batches: ${format.count(IDLE_TASKS)} tasks of ${TASK_MS} ms, slowStart(tasks); median of ${BATCHES - 1} per run`,
      format.us,
      (round) => median(round.gapsMs),
      (round) => round.gapsMs,
    ),
    row('gap-total', `the same ${BATCHES} batches, total time (at least ${BATCHES * TASK_MS} ms)`, format.ms, (round) => round.totalMs),
  ];
}

/** Peak heap over a generator of 10,000,000 factories, one child process per run, the builds alternating. */
async function heapRows(dirs: Record<Which, string>): Promise<Row[]> {
  const measured = { new: [] as GeneratorMeasurement[], old: [] as GeneratorMeasurement[] };
  for (let run = 0; run < HEAP_RUNS; run++) {
    for (const which of run % 2 === 0 ? (['new', 'old'] as const) : (['old', 'new'] as const)) {
      const result = await runChild<GeneratorMeasurement>('memory-child.mts', ['generator', '--build', dirs[which]]);
      expectEqual(result.tasks, GENERATOR_TASKS, `tasks run by the ${which} build`);
      progress(`heap ${which} run ${run}: peak ${format.mb(result.peakHeap)} in ${result.seconds.toFixed(1)} s`);
      measured[which].push(result);
    }
  }
  const row = (name: string, what: string, unit: (value: number) => string, value: (result: GeneratorMeasurement) => number): Row => ({
    name,
    what,
    unit,
    newMedian: median(measured.new.map(value)),
    oldMedian: median(measured.old.map(value)),
    ratios: pairwise(measured.new.map(value), measured.old.map(value)),
  });
  const generator = `slowStart(generator of ${format.count(GENERATOR_TASKS)}, { maxBatchSize: ${GENERATOR_MAX_BATCH} })`;
  return [
    row('heap', `peak heap, ${generator}, a process per run`, format.mb, (result) => result.peakHeap),
    row('heap-baseline', 'heap before that run, after collection', format.mb, (result) => result.baselineHeap),
    row(
      'heap-time',
      'time of that run',
      (seconds) => `${seconds.toFixed(2)} s`,
      (result) => result.seconds,
    ),
  ];
}

const loadAverage = (): string =>
  loadavg()
    .map((load) => load.toFixed(2))
    .join(', ');

const { other, processes, alone, rounds, only, compilation } = parseArguments(process.argv.slice(2));
const timingFlags = compilerFlags[compilation];
const compiler =
  compilation === 'main-thread' ? `V8 compiles on the main thread (${timingFlags.join(' ')})` : "V8 compiles concurrently (Node's default)";
const selected = (name: string): boolean => only === undefined || only.includes(name);

console.log('Building this checkout (npm run build)...');
const built = spawnSync(process.execPath, ['scripts/build.mjs'], { cwd: repoRoot, stdio: 'inherit' });
if (built.status !== 0) throw new Error(`the build of this checkout failed (${built.signal ?? `exit ${built.status}`})`);
const builds = { new: loadBuild(repoRoot), old: loadBuild(other) };
if (builds.new.dir === builds.old.dir) line.fail('the other checkout is this one');
for (const which of ['new', 'old'] as const) {
  const build = builds[which];
  console.log(`${which}: ${build.dir} at ${build.commit}, rxjs ${build.rxjsVersion}`);
}
console.log(`Node ${process.version}; load average ${loadAverage()}; timing processes: ${compiler}\n`);

const timed = workloads.filter((workload) => selected(workload.name)).map((workload) => workload.name);
if (selected('gap')) timed.push('gap');
const results: ProcessResult[] = [];
if (timed.length > 0) {
  for (let run = 0; run < processes; run++) {
    const first: Which = run % 2 === 0 ? 'new' : 'old';
    console.log(`> timing process ${run + 1} of ${processes}, ${first} build loaded first: ${timed.join(', ')}`);
    results.push(
      await runChild<ProcessResult>(
        'versus-child.mts',
        [builds.new.dir, builds.old.dir, first, String(rounds ?? '-'), timed.join(',')],
        timingFlags,
      ),
    );
  }
}
// Every per-task workload runs again with each build alone in its processes: beside the other build, V8
// compiled one build's code apart from the other's, and not alike (see the top of this file).
const aloneNames = workloads.filter((workload) => selected(workload.name)).map((workload) => workload.name);
if (aloneNames.length > 0) {
  for (let run = 0; run < 2 * alone; run++) {
    const which: Which = run % 2 === 0 ? 'new' : 'old';
    console.log(
      `> process ${run + 1} of ${2 * alone}, the ${which} build alone (beside the floor where there is one): ${aloneNames.join(', ')}`,
    );
    results.push(
      await runChild<ProcessResult>(
        'versus-child.mts',
        [builds.new.dir, builds.old.dir, `${which}-alone`, String(rounds ?? '-'), aloneNames.join(',')],
        timingFlags,
      ),
    );
  }
}
const together = results.filter((result) => result.loaded.length === 2);
const rows: Row[] = [];
for (const workload of workloads) {
  const row = workloadRow(workload.name, workload.what, together);
  if (row) rows.push(row);
}
rows.push(...gapRows(together));
if (selected('heap')) {
  console.log(`> heap: ${format.count(GENERATOR_TASKS)} factories from a generator, ${HEAP_RUNS} processes per build`);
  rows.push(...(await heapRows({ new: builds.new.dir, old: builds.old.dir })));
}

console.log(`\nnew = ${builds.new.commit} (${builds.new.dir}), old = ${builds.old.commit} (${builds.old.dir})`);
console.log(
  textTable(
    ['workload', 'new', 'old', 'new/old', 'min', 'max', 'n', 'cpu new/old', 'per process', 'floor: new/floor, old/floor (cpu)'],
    rows.map((row) => [
      row.name,
      row.unit(row.newMedian),
      row.unit(row.oldMedian),
      format.ratio(median(row.ratios)),
      format.ratio(Math.min(...row.ratios)),
      format.ratio(Math.max(...row.ratios)),
      String(row.ratios.length),
      row.cpuRatio === undefined ? '' : format.ratio(row.cpuRatio),
      row.perProcess ? row.perProcess.map(format.ratio).join(' ') : '',
      row.floor
        ? `${format.ratio(row.floor.newRatio)}, ${format.ratio(row.floor.oldRatio)} ` +
          `(${format.ratio(row.floor.newCpuRatio)}, ${format.ratio(row.floor.oldCpuRatio)})`
        : '',
    ]),
  ).join('\n'),
);
console.log(
  '\nnew and old: medians of every timed round. new/old: the median of the per-round ratios, pooled over the ' +
    'timing processes; min, max: their extremes; n: how many. cpu: the same of CPU times (less sensitive to other ' +
    'processes). per process: the median ratio within each timing process, the first loading the new build first. ' +
    `floor: each build's median per-round ratio to the same tasks through Promise.all, without the operator.`,
);
for (const row of rows) console.log(`  ${row.name}: ${row.what}`);
const aloneRows = aloneNames.flatMap((name) => aloneRow(name, results) ?? []);
if (aloneRows.length > 0) {
  console.log(`\nEach build alone in its processes (${alone} per build, alternating), beside the floor where there is one:`);
  console.log(
    textTable(
      ['workload', 'new', 'old', 'new/old', 'cpu', 'per process'],
      aloneRows.map((row) => [
        row.name,
        format.ms(row.newMedian),
        format.ms(row.oldMedian),
        format.ratio(row.ratio),
        format.ratio(row.cpuRatio),
        row.perProcess,
      ]),
    ).join('\n'),
  );
  console.log(
    "new, old: medians of every timed round. new/old, with a floor: (new/floor) / (old/floor), each build's median " +
      'per-round ratio to Promise.all over the same tasks in its own processes; alone, a build pays for all of its ' +
      "garbage, where beside the other build part of it is collected during the other build's rounds. Without a " +
      'floor: the median over pairs of processes (the builds alternate) of the ratio of their medians. cpu: the same ' +
      "of CPU times. per process: the floor ratios within each process, or each pair's ratio.",
  );
}
for (const line of new Set(results.flatMap((result) => result.skipped))) console.log(line);
console.log(`Load average at the end ${loadAverage()}; timing processes: ${compiler}`);
