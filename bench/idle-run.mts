/**
 * One run of the idle scenario's ten batches (scenarios/idle.mts), through any runner: the gaps between
 * batches are measured here, so that bench:versus measures them the same way for two builds.
 */
import { performance } from 'node:perf_hooks';
import type { TaskContext } from './subject.mjs';

export const TASKS = 1023; // 1 + 2 + 4 + ... + 512: exactly ten full batches with the default options
export const BATCHES = 10;
export const TASK_MS = 10;

/** One run of the ten batches, by either runner. */
export interface Round {
  totalMs: number;
  /** From each batch's last settlement to the next batch's first invocation. */
  gapsMs: number[];
  /** From each batch's first invocation to its last settlement: the timers' own share of the time. */
  batchSpansMs: number[];
}

export type Runner = (tasks: Array<(context: TaskContext) => Promise<number>>) => Promise<void>;

/** One run of the ten batches through `runner`, each task a real timer of TASK_MS. */
export async function runOnce(runner: Runner): Promise<Round> {
  const firstInvocation = new Array<number>(BATCHES).fill(Infinity);
  const lastSettlement = new Array<number>(BATCHES).fill(-Infinity);
  const tasks = Array.from(
    { length: TASKS },
    (_, i) =>
      ({ batch }: TaskContext) =>
        new Promise<number>((resolve) => {
          firstInvocation[batch] = Math.min(firstInvocation[batch]!, performance.now());
          setTimeout(() => {
            lastSettlement[batch] = Math.max(lastSettlement[batch]!, performance.now());
            resolve(i);
          }, TASK_MS);
        }),
  );

  const start = performance.now();
  await runner(tasks);
  const totalMs = performance.now() - start;

  const gapsMs: number[] = [];
  const batchSpansMs: number[] = [];
  for (let batch = 0; batch < BATCHES; batch++) {
    batchSpansMs.push(lastSettlement[batch]! - firstInvocation[batch]!);
    if (batch + 1 < BATCHES) gapsMs.push(firstInvocation[batch + 1]! - lastSettlement[batch]!);
  }
  return { totalMs, gapsMs, batchSpansMs };
}
