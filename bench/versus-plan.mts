/**
 * What bench:versus runs (versus.mts, the parent, and versus-child.mts, the processes that time), and what
 * a timing process reports. Only types of versus-workloads.mts are imported: the workloads' code is loaded
 * by each timing process, once per build.
 */
import type { Build } from './build.mjs';
import type { Round } from './idle-run.mjs';
import { format } from './harness.mjs';
import type * as WorkloadsModule from './versus-workloads.mjs';

export const SYNC_TASKS = 1_000_000;
export const PROMISE_TASKS = 100_000;
export const WIDE_TASKS = 80_000;
export const GAP_WARMUP_ROUNDS = 2;
export const GAP_ROUNDS = 7;
/** The most timed rounds `--rounds` may ask for, and the most processes `--processes`: every loop is bounded. */
export const MAX_ROUNDS = 50;
export const MAX_PROCESSES = 20;

export type Workloads = typeof WorkloadsModule;
export type Which = 'new' | 'old';

export interface Workload {
  name: string;
  what: string;
  warmupRounds: number;
  /** Timed rounds in each process. */
  rounds: number;
  /** How many tasks a run has, unless told otherwise (bench:instructions runs fewer). */
  tasks: number;
  /** A run of `tasks` tasks for `build`, made by that build's own copy of versus-workloads.mts. */
  run(workloads: Workloads, build: Build, tasks: number): WorkloadsModule.Run;
  /** The same tasks without the operator, the floor of what they cost (`Promise.all`), from a copy of its own. */
  floor?: (workloads: Workloads, tasks: number) => () => Promise<unknown>;
}

export const FLOOR = 'Promise.all';

export const workloads: readonly Workload[] = [
  {
    name: 'sync-batch',
    what: `${format.count(SYNC_TASKS)} sync tasks, from(factories).pipe(slowStartBatch())`,
    warmupRounds: 2,
    rounds: 7,
    tasks: SYNC_TASKS,
    run: (w, build, tasks) => w.syncBatch(build, tasks),
  },
  {
    name: 'sync-window',
    what: `${format.count(SYNC_TASKS)} sync tasks, from(factories).pipe(slowStartBatch({ pacing: 'window' }))`,
    warmupRounds: 2,
    rounds: 7,
    tasks: SYNC_TASKS,
    run: (w, build, tasks) => w.syncWindow(build, tasks),
  },
  {
    name: 'slowStart-sync',
    what: `${format.count(SYNC_TASKS)} sync tasks, slowStart(factories)`,
    warmupRounds: 2,
    rounds: 7,
    tasks: SYNC_TASKS,
    run: (w, build, tasks) => w.slowStartSync(build, tasks),
  },
  {
    name: 'slowStart-sync-window',
    what: `${format.count(SYNC_TASKS)} sync tasks, slowStart(factories, { pacing: 'window' })`,
    warmupRounds: 2,
    rounds: 7,
    tasks: SYNC_TASKS,
    run: (w, build, tasks) => w.slowStartSyncWindow(build, tasks),
  },
  {
    name: 'promise',
    what: `${format.count(PROMISE_TASKS)} promise tasks async () => i, slowStart(tasks)`,
    warmupRounds: 3,
    rounds: 11,
    tasks: PROMISE_TASKS,
    run: (w, build, tasks) => w.promise(build, tasks),
    floor: (w, tasks) => w.promiseFloor(tasks),
  },
  {
    name: 'promise-wide',
    what: `${format.count(WIDE_TASKS)} pending promise tasks, slowStart(tasks, { initialBatchSize: ${format.count(WIDE_TASKS)} })`,
    warmupRounds: 3,
    rounds: 9,
    tasks: WIDE_TASKS,
    run: (w, build, tasks) => w.promiseWide(build, tasks),
    floor: (w, tasks) => w.promiseWideFloor(tasks),
  },
];

/** Every name `--only` takes: the workloads above, the gap between batches, and the heap (in processes of its own). */
export const workloadNames: readonly string[] = [...workloads.map((workload) => workload.name), 'gap', 'heap'];

/** Milliseconds per timed round, wall-clock and CPU, of each build the process loaded and of the floor. */
export interface WorkloadSamples {
  name: string;
  ms: { new?: number[]; old?: number[]; floor?: number[] };
  cpuMs: { new?: number[]; old?: number[]; floor?: number[] };
}

/** What one timing process (versus-child.mts) reports. */
export interface ProcessResult {
  /** The builds it loaded, in the order it loaded them: both, or one alone beside the floor. */
  loaded: readonly Which[];
  workloads: WorkloadSamples[];
  /** Workloads a build refused, with why. */
  skipped: string[];
  gap?: { new: Round[]; old: Round[] };
}
