/**
 * One timing process of bench:versus (versus.mts): `versus-child.mts NEW_DIR OLD_DIR new|old [ROUNDS]
 * [NAME,...]` loads both builds, the one named third first, and runs the workloads, both builds in turn
 * round by round (A B, B A, ...) after warm-up, and the floor beside them where there is one. With
 * `new-alone` or `old-alone` third, it loads that build only, and runs it beside the floor. It reports
 * every sample (see child.mts for the protocol); the parent pools the processes.
 */
import { loadBuild, type Build } from './build.mjs';
import { reportToParent } from './child.mjs';
import { compare, format, median, progress, type Side } from './harness.mjs';
import type { Round } from './idle-run.mjs';
import {
  FLOOR,
  GAP_ROUNDS,
  GAP_WARMUP_ROUNDS,
  workloads,
  type ProcessResult,
  type Which,
  type Workload,
  type WorkloadSamples,
  type Workloads,
} from './versus-plan.mjs';

const [newDir, oldDir, first, roundsArgument, onlyArgument] = [2, 3, 4, 5, 6].map((index) => process.argv.at(index));
const modes = ['new', 'old', 'new-alone', 'old-alone'] as const;
const mode = modes.find((candidate) => candidate === first);
if (!newDir || !oldDir || mode === undefined) {
  throw new Error('usage: versus-child.mts NEW_DIR OLD_DIR new|old|new-alone|old-alone [ROUNDS] [NAME,...]');
}
const rounds = roundsArgument && roundsArgument !== '-' ? Number(roundsArgument) : undefined;
const only = onlyArgument?.split(',');
const selected = (name: string): boolean => only === undefined || only.includes(name);

/** The builds this process loads, in the order it loads them. */
const order: readonly Which[] = { new: ['new', 'old'], old: ['old', 'new'], 'new-alone': ['new'], 'old-alone': ['old'] }[mode] as Which[];
const builds = {} as Record<Which, Build>;
for (const which of order) builds[which] = loadBuild(which === 'new' ? newDir : oldDir);

/**
 * A copy of versus-workloads.mts for each build, and one for the floor: the tasks, the factories and the
 * subscriber of one build are then none of the other's (see versus-workloads.mts).
 */
const copyOfWorkloads = async (name: string): Promise<Workloads> =>
  (await import(new URL(`./versus-workloads.mjs?build=${name}`, import.meta.url).href)) as Workloads;
const copies = {} as Record<Which | 'floor', Workloads>;
for (const which of order) copies[which] = await copyOfWorkloads(which);
copies.floor = await copyOfWorkloads('floor');

async function runWorkload(workload: Workload): Promise<WorkloadSamples | string> {
  const sides: Side[] = [];
  for (const which of order) {
    const run = workload.run(copies[which], builds[which], workload.tasks);
    if (typeof run !== 'function') return `${workload.name}: not run, the ${which} build refuses it: ${run.unsupported}`;
    sides.push({ name: which, run });
  }
  const floorRun = workload.floor?.(copies.floor, workload.tasks);
  if (floorRun) sides.push({ name: FLOOR, run: floorRun });
  const comparison = await compare(sides, {
    warmupRounds: workload.warmupRounds,
    rounds: rounds ?? workload.rounds,
    onSample: (side, round, ms) => progress(`${workload.name} ${side.name} round ${round}: ${format.ms(ms)}`),
  });
  const of = (samples: Map<string, number[]>) => ({
    ...(order.includes('new') ? { new: samples.get('new') ?? [] } : {}),
    ...(order.includes('old') ? { old: samples.get('old') ?? [] } : {}),
    ...(floorRun ? { floor: samples.get(FLOOR) ?? [] } : {}),
  });
  return { name: workload.name, ms: of(comparison.samples), cpuMs: of(comparison.cpuSamples) };
}

/** The idle scenario's ten batches of 10 ms timers through each build's slowStart, the builds alternating. */
async function runGap(): Promise<{ new: Round[]; old: Round[] }> {
  const measured = { new: [] as Round[], old: [] as Round[] };
  const runs = { new: copies.new.gap(builds.new), old: copies.old.gap(builds.old) };
  const timedRounds = rounds ?? GAP_ROUNDS;
  for (let round = -GAP_WARMUP_ROUNDS; round < timedRounds; round++) {
    for (const which of round % 2 === 0 ? order : [...order].reverse()) {
      const result = await runs[which]();
      progress(`gap ${which} round ${round}: ${format.ms(result.totalMs)}, median gap ${format.us(median(result.gapsMs))}`);
      if (round >= 0) measured[which].push(result);
    }
  }
  return measured;
}

const result: ProcessResult = { loaded: order, workloads: [], skipped: [] };
for (const workload of workloads) {
  if (!selected(workload.name)) continue;
  progress(`> ${workload.name}: ${workload.what}`);
  const samples = await runWorkload(workload);
  if (typeof samples === 'string') result.skipped.push(samples);
  else result.workloads.push(samples);
}
if (selected('gap') && order.length === 2) {
  progress('> gap: the idle scenario');
  result.gap = await runGap();
}
reportToParent(result);
