/**
 * `npm run bench:instructions -- OTHER_CHECKOUT [--tasks N] [--rounds N] [--only NAME,...]`: the
 * instructions each task of the per-task workloads of bench:versus costs, this checkout's build ("new",
 * built afresh) against another checkout's ("old", whose dist/ must be built), counted by valgrind's
 * callgrind (Debian's `valgrind`, on every machine of this project's kind).
 *
 * Why count instructions: timed, the two builds' ratio moves with how V8 compiled each of them in that
 * process, and with what else the machine runs (see versus.mts). A count is the same from one run to the
 * next, whatever else runs: Node runs with `--single-threaded --predictable`, so that no compiler or
 * collector thread runs beside the code and the tiers are reached at the same points. It is not a time:
 * a cache miss or a mispredicted branch costs no instruction more. It answers another question than
 * bench:versus: how much more work a task does, not how long it takes.
 *
 * Each figure comes from two processes: one runs the warm-up rounds, the other the same and `--rounds`
 * more of one build; the difference, divided by those rounds' tasks, is what a task costs once warm.
 * The builds are counted twice: each alone in its processes, and beside the other build (both loaded,
 * both warmed, as in bench:versus's shared processes).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import ts from 'typescript';
import { loadBuild } from './build.mjs';
import { benchDir, repoRoot } from './child.mjs';
import { commandLine, readArguments } from './command-line.mjs';
import { format, progress } from './harness.mjs';
import { textTable } from './report.mjs';
import { workloads } from './versus-plan.mjs';

const DEFAULT_TASKS = 10_000;
const DEFAULT_ROUNDS = 3;
const WARMUP_ROUNDS = 3;
const MAX_TASKS = 200_000;
const MAX_ROUNDS = 20;
/** Bounds each process under valgrind, which runs Node about fifty times slower. */
const PROCESS_TIMEOUT_MS = 20 * 60_000;

const usage = `Usage: npm run bench:instructions -- OTHER_CHECKOUT [--tasks N] [--rounds N] [--only NAME,...]

Builds this checkout (npm run build) and counts, under valgrind's callgrind, the instructions a task of each
per-task workload costs once warm, in this build ("new") and in OTHER_CHECKOUT/dist ("old").

  --tasks N    tasks a round (1,000 to ${format.count(MAX_TASKS)}; default ${format.count(DEFAULT_TASKS)})
  --rounds N   rounds counted, after ${WARMUP_ROUNDS} of warm-up (1 to ${MAX_ROUNDS}; default ${DEFAULT_ROUNDS})
  --only NAMES run only these, comma-separated: ${workloads.map((workload) => workload.name).join(', ')}`;

const line = commandLine('bench:instructions', usage);

function parseArguments(args: readonly string[]) {
  let tasks = DEFAULT_TASKS;
  let rounds = DEFAULT_ROUNDS;
  let only: string[] | undefined;
  const other = readArguments(line, usage, args, {
    '--tasks': (value) => (tasks = line.wholeNumber('--tasks', value, 1_000, MAX_TASKS)),
    '--rounds': (value) => (rounds = line.wholeNumber('--rounds', value, 1, MAX_ROUNDS)),
    '--only': (value) =>
      (only = line.names(
        '--only',
        value,
        workloads.map((workload) => workload.name),
      )),
  });
  return { other, tasks, rounds, only };
}

/**
 * The bench's modules as plain JavaScript in a folder of their own: under valgrind, `--import tsx` would
 * compile them in every process, for ten times the instructions of the rounds themselves.
 */
function transpileBench(): string {
  const dir = mkdtempSync(join(tmpdir(), 'bench-instructions-'));
  for (const file of readdirSync(benchDir).filter((name) => name.endsWith('.mts'))) {
    const { outputText } = ts.transpileModule(readFileSync(join(benchDir, file), 'utf8'), {
      compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022, verbatimModuleSyntax: false },
      fileName: file,
    });
    writeFileSync(join(dir, file.replace(/\.mts$/, '.mjs')), outputText);
  }
  return dir;
}

/** The instructions one process executes: `builds` each as `DIR:EXTRA_ROUNDS`, loaded in that order. */
function count(childDir: string, workload: string, tasks: number, builds: readonly string[]): number {
  const child = spawnSync(
    'valgrind',
    [
      '--tool=callgrind',
      '--callgrind-out-file=/dev/null',
      process.execPath,
      '--single-threaded',
      '--predictable',
      join(childDir, 'instructions-child.mjs'),
      workload,
      String(tasks),
      String(WARMUP_ROUNDS),
      ...builds,
    ],
    { cwd: repoRoot, encoding: 'utf8', timeout: PROCESS_TIMEOUT_MS },
  );
  if (child.error) throw new Error(`valgrind could not run (${child.error.message}): on Debian, apt-get install valgrind`);
  const collected = /Collected : (\d+)/.exec(child.stderr);
  if (child.status !== 0 || collected === null) {
    throw new Error(`${workload} ${builds.join(' ')} exited with ${child.signal ?? `code ${child.status}`}:\n${child.stderr}`);
  }
  return Number(collected[1]);
}

const { other, tasks, rounds, only } = parseArguments(process.argv.slice(2));
console.log('Building this checkout (npm run build)...');
const built = spawnSync(process.execPath, ['scripts/build.mjs'], { cwd: repoRoot, stdio: 'inherit' });
if (built.status !== 0) throw new Error(`the build of this checkout failed (${built.signal ?? `exit ${built.status}`})`);
const builds = { new: loadBuild(repoRoot), old: loadBuild(other) };
if (builds.new.dir === builds.old.dir) line.fail('the other checkout is this one');
for (const which of ['new', 'old'] as const) console.log(`${which}: ${builds[which].dir} at ${builds[which].commit}`);
console.log(`Node ${process.version}; ${format.count(tasks)} tasks a round, ${WARMUP_ROUNDS} warm-up rounds, ${rounds} counted\n`);

const childDir = transpileBench();
const rows: string[][] = [];
try {
  for (const workload of workloads) {
    if (only !== undefined && !only.includes(workload.name)) continue;
    const perTask = (withRounds: number, without: number): number => (withRounds - without) / (rounds * tasks);
    const of = (which: 'new' | 'old', extra: number): string => `${builds[which].dir}:${extra}`;
    progress(`> ${workload.name}: each build alone`);
    const aloneNew = perTask(
      count(childDir, workload.name, tasks, [of('new', rounds)]),
      count(childDir, workload.name, tasks, [of('new', 0)]),
    );
    const aloneOld = perTask(
      count(childDir, workload.name, tasks, [of('old', rounds)]),
      count(childDir, workload.name, tasks, [of('old', 0)]),
    );
    progress(`> ${workload.name}: both builds loaded`);
    const warm = count(childDir, workload.name, tasks, [of('new', 0), of('old', 0)]);
    const besideNew = perTask(count(childDir, workload.name, tasks, [of('new', rounds), of('old', 0)]), warm);
    const besideOld = perTask(count(childDir, workload.name, tasks, [of('new', 0), of('old', rounds)]), warm);
    rows.push([
      workload.name,
      format.count(Math.round(aloneNew)),
      format.count(Math.round(aloneOld)),
      format.ratio(aloneNew / aloneOld),
      format.count(Math.round(besideNew)),
      format.count(Math.round(besideOld)),
      format.ratio(besideNew / besideOld),
    ]);
  }
} finally {
  rmSync(childDir, { recursive: true, force: true });
}
console.log(`\nnew = ${builds.new.commit} (${builds.new.dir}), old = ${builds.old.commit} (${builds.old.dir})`);
console.log(textTable(['workload', 'alone: new', 'old', 'new/old', 'beside: new', 'old', 'new/old'], rows).join('\n'));
console.log(
  '\nInstructions a task, once warm: each build alone in its processes, and beside the other build (both loaded ' +
    'and warmed, as in bench:versus). A count, not a time (see the top of bench/instructions.mts).',
);
