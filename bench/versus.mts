/**
 * `npm run bench:versus -- OTHER_CHECKOUT [--rounds N] [--only NAME,...]`: this checkout's build ("new",
 * built afresh into dist/) against the build of another checkout ("old", whose dist/ must be built), side by
 * side in ONE process, on the per-task workloads of the suite. Every workload runs both builds in turn,
 * A B, B A, ... after warm-up rounds, and prints each build's median and the median of the per-round
 * ratios new / old, with their least and greatest. Both builds run under the same load in a round, so the
 * ratio holds on a noisy machine where the medians alone would not.
 *
 * Each build is loaded from its own `dist/cjs/index.js` with the rxjs its checkout installed, and every
 * task of a build is made with that rxjs: the two share no code but this file's. The heap of 10,000,000
 * factories needs a process of its own per measurement (memory-child.mts), so it runs in child processes,
 * the builds alternating.
 */
import { spawnSync } from 'node:child_process';
import { loadavg } from 'node:os';
import type { Observable } from 'rxjs';
import { loadBuild, type Build } from './build.mjs';
import { repoRoot, runChild } from './child.mjs';
import { gatedTasks } from './gated-tasks.mjs';
import { compare, drain, expectEqual, format, median, progress, type Comparison, type Side } from './harness.mjs';
import { BATCHES, runOnce, TASK_MS, TASKS as IDLE_TASKS, type Round } from './idle-run.mjs';
import { GENERATOR_MAX_BATCH, GENERATOR_TASKS, type GeneratorMeasurement } from './memory-shared.mjs';
import { textTable } from './report.mjs';

const SYNC_TASKS = 1_000_000;
const PROMISE_TASKS = 100_000;
const WIDE_TASKS = 80_000;
const GAP_WARMUP_ROUNDS = 2;
const GAP_ROUNDS = 9;
const HEAP_RUNS = 3;
/** The most timed rounds `--rounds` may ask for: every loop here is bounded. */
const MAX_ROUNDS = 50;

const usage = `Usage: npm run bench:versus -- OTHER_CHECKOUT [--rounds N] [--only NAME,...]

Builds this checkout (npm run build) and compares it ("new") with the build in OTHER_CHECKOUT/dist ("old"),
both loaded into one process, the workloads interleaved round by round.

  --rounds N   timed rounds of every workload (1 to ${MAX_ROUNDS}); the default is the suite's, per workload
  --only NAMES run only these workloads, comma-separated`;

interface Arguments {
  other: string;
  rounds: number | undefined;
  only: string[] | undefined;
}

function parseArguments(args: readonly string[]): Arguments {
  let other: string | undefined;
  let rounds: number | undefined;
  let only: string[] | undefined;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (arg === '--help' || arg === '-h') {
      console.log(usage);
      process.exit(0);
    } else if (arg === '--rounds') {
      rounds = Number(args[++i]);
      if (!Number.isInteger(rounds) || rounds < 1 || rounds > MAX_ROUNDS) fail(`--rounds takes a whole number from 1 to ${MAX_ROUNDS}`);
    } else if (arg === '--only') {
      only = (args[++i] ?? '').split(',').filter((name) => name !== '');
    } else if (arg.startsWith('-') || other !== undefined) {
      fail(`unexpected argument ${arg}`);
    } else {
      other = arg;
    }
  }
  if (other === undefined) fail('name the other checkout');
  return { other, rounds, only };
}

function fail(message: string): never {
  console.error(`bench:versus: ${message}\n\n${usage}`);
  process.exit(2);
}

/** A complete run of a workload by one build, or why that build cannot run it (an option it lacks). */
type Run = (() => Promise<unknown>) | { unsupported: string };

interface Workload {
  name: string;
  what: string;
  warmupRounds: number;
  rounds: number;
  run(build: Build): Run;
  /** The same tasks without the operator, the floor of what they cost (`Promise.all`). */
  floor?: () => () => Promise<unknown>;
}

/** One line of the report. */
interface Row {
  name: string;
  what: string;
  unit: (value: number) => string;
  newMedian: number;
  oldMedian: number;
  /** new / old, round by round. */
  ratios: number[];
  cpuRatio?: number;
  /** new / floor and old / floor, medians of the per-round ratios, of wall-clock and of CPU times. */
  floor?: { name: string; newRatio: number; oldRatio: number; newCpuRatio: number; oldCpuRatio: number };
}

const counted = (tasks: number, what: string, source: () => Observable<{ size: number }>) => async () => {
  let done = 0;
  await drain(source(), (result) => (done += result.size));
  expectEqual(done, tasks, what);
};

/** Undefined when `attempt` runs; otherwise what it threw, e.g. the TypeError of an option an old build lacks. */
function refusal(attempt: () => unknown): string | undefined {
  try {
    attempt();
    return undefined;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}

const syncFactories = ({ rxjs }: Build): Array<() => Observable<number>> => Array.from({ length: SYNC_TASKS }, (_, i) => () => rxjs.of(i));

const syncWorkloads: Workload[] = [
  {
    name: 'sync-batch',
    what: `${format.count(SYNC_TASKS)} sync tasks, from(factories).pipe(slowStartBatch())`,
    warmupRounds: 2,
    rounds: 11,
    run: (build) => {
      const factories = syncFactories(build);
      return counted(SYNC_TASKS, 'tasks reported by slowStartBatch()', () => build.rxjs.from(factories).pipe(build.api.slowStartBatch()));
    },
  },
  {
    name: 'sync-window',
    what: `${format.count(SYNC_TASKS)} sync tasks, from(factories).pipe(slowStartBatch({ pacing: 'window' }))`,
    warmupRounds: 2,
    rounds: 11,
    run: (build) => {
      const unsupported = refusal(() => build.api.slowStartBatch({ pacing: 'window' }));
      if (unsupported !== undefined) return { unsupported };
      const factories = syncFactories(build);
      return counted(SYNC_TASKS, 'tasks reported by slowStartBatch(window)', () =>
        build.rxjs.from(factories).pipe(build.api.slowStartBatch({ pacing: 'window' })),
      );
    },
  },
  {
    name: 'slowStart-sync',
    what: `${format.count(SYNC_TASKS)} sync tasks, slowStart(factories)`,
    warmupRounds: 2,
    rounds: 11,
    run: (build) => {
      const factories = syncFactories(build);
      return counted(SYNC_TASKS, 'tasks reported by slowStart()', () => build.api.slowStart(factories));
    },
  },
  {
    name: 'slowStart-sync-window',
    what: `${format.count(SYNC_TASKS)} sync tasks, slowStart(factories, { pacing: 'window' })`,
    warmupRounds: 2,
    rounds: 11,
    run: (build) => {
      const unsupported = refusal(() => build.api.slowStart([], { pacing: 'window' }));
      if (unsupported !== undefined) return { unsupported };
      const factories = syncFactories(build);
      return counted(SYNC_TASKS, 'tasks reported by slowStart(window)', () => build.api.slowStart(factories, { pacing: 'window' }));
    },
  },
];

const promiseFactories = (): Array<() => Promise<number>> => Array.from({ length: PROMISE_TASKS }, (_, i) => async () => i);

const promiseWorkloads: Workload[] = [
  {
    name: 'promise',
    what: `${format.count(PROMISE_TASKS)} promise tasks async () => i, slowStart(tasks)`,
    warmupRounds: 3,
    rounds: 15,
    run: (build) => {
      const tasks = promiseFactories();
      return counted(PROMISE_TASKS, 'tasks reported by slowStart()', () => build.api.slowStart(tasks));
    },
    floor: () => {
      const tasks = promiseFactories();
      return async () => expectEqual((await Promise.all(tasks.map((task) => task()))).length, PROMISE_TASKS, 'values of Promise.all');
    },
  },
  {
    name: 'promise-wide',
    what: `${format.count(WIDE_TASKS)} pending promise tasks, slowStart(tasks, { initialBatchSize: ${format.count(WIDE_TASKS)} })`,
    warmupRounds: 3,
    rounds: 11,
    run: (build) => {
      const tasks = gatedTasks(WIDE_TASKS);
      const run = counted(WIDE_TASKS, 'tasks reported by slowStart()', () =>
        build.api.slowStart(tasks.factories, { initialBatchSize: WIDE_TASKS }),
      );
      return async () => {
        tasks.reset();
        await run();
      };
    },
    floor: () => {
      const tasks = gatedTasks(WIDE_TASKS);
      return async () => {
        tasks.reset();
        expectEqual((await Promise.all(tasks.factories.map((factory) => factory()))).length, WIDE_TASKS, 'values of Promise.all');
      };
    },
  },
];

const pairwise = (top: readonly number[], bottom: readonly number[]): number[] => top.map((value, round) => value / bottom[round]);

async function runWorkload(
  workload: Workload,
  builds: { new: Build; old: Build },
  roundsOverride: number | undefined,
): Promise<Row | string> {
  const newRun = workload.run(builds.new);
  const oldRun = workload.run(builds.old);
  if (typeof newRun !== 'function') return `${workload.name}: not run, the new build refuses it: ${newRun.unsupported}`;
  if (typeof oldRun !== 'function') return `${workload.name}: not run, the old build refuses it: ${oldRun.unsupported}`;
  const floorRun = workload.floor?.();
  const floorName = 'Promise.all';
  const sides: Side[] = [
    { name: 'new', run: newRun },
    { name: 'old', run: oldRun },
    ...(floorRun ? [{ name: floorName, run: floorRun }] : []),
  ];
  const comparison: Comparison = await compare(sides, {
    warmupRounds: workload.warmupRounds,
    rounds: roundsOverride ?? workload.rounds,
    onSample: (side, round, ms) => progress(`${workload.name} ${side.name} round ${round}: ${format.ms(ms)}`),
  });
  const samples = (name: string): number[] => comparison.samples.get(name) ?? [];
  const cpu = (name: string): number[] => comparison.cpuSamples.get(name) ?? [];
  return {
    name: workload.name,
    what: workload.what,
    unit: format.ms,
    newMedian: median(samples('new')),
    oldMedian: median(samples('old')),
    ratios: pairwise(samples('new'), samples('old')),
    cpuRatio: median(pairwise(cpu('new'), cpu('old'))),
    ...(floorRun
      ? {
          floor: {
            name: floorName,
            newRatio: median(pairwise(samples('new'), samples(floorName))),
            oldRatio: median(pairwise(samples('old'), samples(floorName))),
            newCpuRatio: median(pairwise(cpu('new'), cpu(floorName))),
            oldCpuRatio: median(pairwise(cpu('old'), cpu(floorName))),
          },
        }
      : {}),
  };
}

/** The idle scenario's ten batches of 10 ms timers, through each build's slowStart, alternating. */
async function runGap(builds: { new: Build; old: Build }, roundsOverride: number | undefined): Promise<Row[]> {
  const rounds = roundsOverride ?? GAP_ROUNDS;
  const measured = { new: [] as Round[], old: [] as Round[] };
  for (let round = -GAP_WARMUP_ROUNDS; round < rounds; round++) {
    const order = round % 2 === 0 ? (['new', 'old'] as const) : (['old', 'new'] as const);
    for (const which of order) {
      const { slowStart } = builds[which].api;
      const result = await runOnce(async (tasks) => expectEqual(await drain(slowStart(tasks)), BATCHES, 'batches emitted'));
      progress(`gap ${which} round ${round}: ${format.ms(result.totalMs)}, median gap ${format.us(median(result.gapsMs))}`);
      if (round >= 0) measured[which].push(result);
    }
  }
  const gaps = (which: 'new' | 'old'): number[] => measured[which].map((result) => median(result.gapsMs));
  const totals = (which: 'new' | 'old'): number[] => measured[which].map((result) => result.totalMs);
  return [
    {
      name: 'gap',
      what: `gap between batches: ${format.count(IDLE_TASKS)} tasks of ${TASK_MS} ms, slowStart(tasks); median of ${BATCHES - 1} per run`,
      unit: format.us,
      // Every gap of every run, as the idle scenario reports it; the ratios compare each run's median.
      newMedian: median(measured.new.flatMap((result) => result.gapsMs)),
      oldMedian: median(measured.old.flatMap((result) => result.gapsMs)),
      ratios: pairwise(gaps('new'), gaps('old')),
    },
    {
      name: 'gap-total',
      what: `the same ${BATCHES} batches, total time (at least ${BATCHES * TASK_MS} ms)`,
      unit: format.ms,
      newMedian: median(totals('new')),
      oldMedian: median(totals('old')),
      ratios: pairwise(totals('new'), totals('old')),
    },
  ];
}

/** Peak heap over a generator of 10,000,000 factories, one child process per run, the builds alternating. */
async function runHeap(builds: { new: Build; old: Build }): Promise<Row[]> {
  const measured = { new: [] as GeneratorMeasurement[], old: [] as GeneratorMeasurement[] };
  for (let run = 0; run < HEAP_RUNS; run++) {
    const order = run % 2 === 0 ? (['new', 'old'] as const) : (['old', 'new'] as const);
    for (const which of order) {
      const result = await runChild<GeneratorMeasurement>('memory-child.mts', ['generator', '--build', builds[which].dir]);
      expectEqual(result.tasks, GENERATOR_TASKS, `tasks run by the ${which} build`);
      progress(`heap ${which} run ${run}: peak ${format.mb(result.peakHeap)} in ${result.seconds.toFixed(1)} s`);
      measured[which].push(result);
    }
  }
  const values = (which: 'new' | 'old', value: (result: GeneratorMeasurement) => number): number[] => measured[which].map(value);
  const row = (name: string, what: string, unit: (value: number) => string, value: (result: GeneratorMeasurement) => number): Row => ({
    name,
    what,
    unit,
    newMedian: median(values('new', value)),
    oldMedian: median(values('old', value)),
    ratios: pairwise(values('new', value), values('old', value)),
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

const { other, rounds, only } = parseArguments(process.argv.slice(2));
const names = [...syncWorkloads, ...promiseWorkloads].map((workload) => workload.name).concat('gap', 'heap');
const unknown = (only ?? []).filter((name) => !names.includes(name));
if (unknown.length > 0) fail(`unknown workload ${unknown.join(', ')}; workloads: ${names.join(', ')}`);
const selected = (name: string): boolean => only === undefined || only.includes(name);

console.log('Building this checkout (npm run build)...');
const built = spawnSync(process.execPath, ['scripts/build.mjs'], { cwd: repoRoot, stdio: 'inherit' });
if (built.status !== 0) throw new Error(`the build of this checkout failed (${built.signal ?? `exit ${built.status}`})`);
const builds = { new: loadBuild(repoRoot), old: loadBuild(other) };
if (builds.new.dir === builds.old.dir) fail('the other checkout is this one');
for (const which of ['new', 'old'] as const) {
  const build = builds[which];
  console.log(`${which}: ${build.dir} at ${build.commit}, rxjs ${build.rxjsVersion}`);
}
console.log(
  `Node ${process.version}; load average ${loadavg()
    .map((load) => load.toFixed(2))
    .join(', ')}\n`,
);

const rows: Row[] = [];
const skipped: string[] = [];
for (const workload of [...syncWorkloads, ...promiseWorkloads]) {
  if (!selected(workload.name)) continue;
  console.log(`> ${workload.name}: ${workload.what}`);
  const row = await runWorkload(workload, builds, rounds);
  if (typeof row === 'string') skipped.push(row);
  else rows.push(row);
}
if (selected('gap')) {
  console.log('> gap: the idle scenario, both builds');
  rows.push(...(await runGap(builds, rounds)));
}
if (selected('heap')) {
  console.log(`> heap: ${format.count(GENERATOR_TASKS)} factories from a generator, ${HEAP_RUNS} processes per build`);
  rows.push(...(await runHeap(builds)));
}

console.log(`\nnew = ${builds.new.commit} (${builds.new.dir}), old = ${builds.old.commit} (${builds.old.dir})`);
console.log(
  textTable(
    ['workload', 'new', 'old', 'new/old', 'min', 'max', 'runs', 'cpu new/old', 'floor: new/floor, old/floor'],
    rows.map((row) => [
      row.name,
      row.unit(row.newMedian),
      row.unit(row.oldMedian),
      format.ratio(median(row.ratios)),
      format.ratio(Math.min(...row.ratios)),
      format.ratio(Math.max(...row.ratios)),
      String(row.ratios.length),
      row.cpuRatio === undefined ? '' : format.ratio(row.cpuRatio),
      row.floor
        ? `${row.floor.name}: ${format.ratio(row.floor.newRatio)}, ${format.ratio(row.floor.oldRatio)} ` +
          `(cpu ${format.ratio(row.floor.newCpuRatio)}, ${format.ratio(row.floor.oldCpuRatio)})`
        : '',
    ]),
  ).join('\n'),
);
console.log(
  '\nnew and old are medians; new/old is the median of the per-round ratios, min and max their extremes; cpu, the same ' +
    'of CPU times (less sensitive to other processes); floor, the median per-round ratio of each build to the same tasks without the operator.',
);
for (const row of rows) console.log(`  ${row.name}: ${row.what}`);
for (const line of skipped) console.log(line);
console.log(
  `Load average at the end ${loadavg()
    .map((load) => load.toFixed(2))
    .join(', ')}`,
);
