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
  /** A run of the workload for `build`, made by that build's own copy of versus-workloads.mts. */
  run(workloads: Workloads, build: Build): WorkloadsModule.Run;
  /** The same tasks without the operator, the floor of what they cost (`Promise.all`), from a copy of its own. */
  floor?: (workloads: Workloads) => () => Promise<unknown>;
}

export const FLOOR = 'Promise.all';

export const workloads: readonly Workload[] = [
  {
    name: 'sync-batch',
    what: `${format.count(SYNC_TASKS)} sync tasks, from(factories).pipe(slowStartBatch())`,
    warmupRounds: 2,
    rounds: 7,
    run: (w, build) => w.syncBatch(build, SYNC_TASKS),
  },
  {
    name: 'sync-window',
    what: `${format.count(SYNC_TASKS)} sync tasks, from(factories).pipe(slowStartBatch({ pacing: 'window' }))`,
    warmupRounds: 2,
    rounds: 7,
    run: (w, build) => w.syncWindow(build, SYNC_TASKS),
  },
  {
    name: 'slowStart-sync',
    what: `${format.count(SYNC_TASKS)} sync tasks, slowStart(factories)`,
    warmupRounds: 2,
    rounds: 7,
    run: (w, build) => w.slowStartSync(build, SYNC_TASKS),
  },
  {
    name: 'slowStart-sync-window',
    what: `${format.count(SYNC_TASKS)} sync tasks, slowStart(factories, { pacing: 'window' })`,
    warmupRounds: 2,
    rounds: 7,
    run: (w, build) => w.slowStartSyncWindow(build, SYNC_TASKS),
  },
  {
    name: 'promise',
    what: `${format.count(PROMISE_TASKS)} promise tasks async () => i, slowStart(tasks)`,
    warmupRounds: 3,
    rounds: 11,
    run: (w, build) => w.promise(build, PROMISE_TASKS),
    floor: (w) => w.promiseFloor(PROMISE_TASKS),
  },
  {
    name: 'promise-wide',
    what: `${format.count(WIDE_TASKS)} pending promise tasks, slowStart(tasks, { initialBatchSize: ${format.count(WIDE_TASKS)} })`,
    warmupRounds: 3,
    rounds: 9,
    run: (w, build) => w.promiseWide(build, WIDE_TASKS),
    floor: (w) => w.promiseWideFloor(WIDE_TASKS),
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
