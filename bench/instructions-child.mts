/**
 * One process of bench:instructions (instructions.mts), run under valgrind's callgrind, which counts the
 * instructions it executes: `instructions-child.mts WORKLOAD TASKS WARMUP DIR:EXTRA [DIR:EXTRA]` loads
 * each build named (in that order, each with its own copy of versus-workloads.mts, as bench:versus does),
 * runs WARMUP rounds of the workload with every build in turn, then EXTRA more rounds of each build.
 * The parent subtracts the count of a process without extra rounds from one with them: what is left is
 * what those rounds alone cost, start-up, loading and warm-up taken out.
 */
import { loadBuild } from './build.mjs';
import { workloads, type Workloads } from './versus-plan.mjs';

const [name, tasksArgument, warmupArgument, ...buildArguments] = process.argv.slice(2);
const workload = workloads.find((candidate) => candidate.name === name);
const tasks = Number(tasksArgument);
const warmup = Number(warmupArgument);
const builds = buildArguments.map((argument) => {
  const at = argument.lastIndexOf(':');
  return { dir: argument.slice(0, at), extra: Number(argument.slice(at + 1)) };
});
if (
  workload === undefined ||
  !Number.isSafeInteger(tasks) ||
  !Number.isSafeInteger(warmup) ||
  builds.length === 0 ||
  builds.some(({ extra }) => !Number.isSafeInteger(extra))
) {
  throw new Error('usage: instructions-child.mts WORKLOAD TASKS WARMUP DIR:EXTRA [DIR:EXTRA]');
}

const runs = [];
for (const [index, { dir, extra }] of builds.entries()) {
  const build = loadBuild(dir);
  const copy = (await import(new URL(`./versus-workloads.mjs?build=${index}`, import.meta.url).href)) as Workloads;
  const run = workload.run(copy, build, tasks);
  if (typeof run !== 'function') throw new Error(`${dir} refuses ${workload.name}: ${run.unsupported}`);
  runs.push({ run, extra });
}
for (let round = 0; round < warmup; round++) for (const { run } of runs) await run();
for (const { run, extra } of runs) for (let round = 0; round < extra; round++) await run();
