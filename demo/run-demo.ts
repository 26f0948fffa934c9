// Runs the simulated job with slow start and records what happened, task by task.
import { performance } from 'node:perf_hooks';
import { isSlowStartBatchError, slowStart } from '../src/index.js';
import type { TaskContext, TaskFactory } from '../src/index.js';
import type { DemoOptions, Pacing } from './args.js';
import type { RunRecord, TaskRecord } from './run-record.js';
import { createSimulatedApi, seededRandom } from './simulated-api.js';
import type { CallResult } from './simulated-api.js';

/** One settled batch, successful or not. */
export interface BatchReport {
  batch: number;
  startIndex: number;
  size: number;
  succeeded: number;
  failed: number;
  /** From the first task's start to the last task's end, in ms since the run started. */
  startMs: number;
  endMs: number;
  /** Successful tasks in all so far, this batch included. */
  successesSoFar: number;
  /** The failure that happened first in time, if the batch failed (SlowStartBatchError.cause). */
  cause?: unknown;
}

export interface DemoSummary {
  totalTasks: number;
  succeeded: number;
  failed: number;
  skipped: number;
  /** Calls the API received. */
  callsMade: number;
  /** Calls that firing every task at once would have made (all of them) minus the calls made. */
  callsSaved: number;
  /** Calls that would have failed had every task been fired at once: everything over the quota. */
  failedWithoutSlowStart: number;
  elapsedMs: number;
  /** Why the run stopped early, if it did (the first failure in time). */
  cause?: unknown;
}

export interface DemoResult {
  summary: DemoSummary;
  batches: BatchReport[];
  record: RunRecord;
}

/** Callbacks for live output; all optional. */
export interface DemoListener {
  onTaskStart?(task: { index: number; batch: number; startMs: number }): void;
  onTaskSettled?(task: TaskRecord): void;
  onBatchSettled?(batch: BatchReport): void;
}

/** The options of one run: with `--pacing both`, the demo makes one run per pacing. */
export type RunOptions = Omit<DemoOptions, 'pacing'> & { pacing: Pacing };

export function runDemo(options: RunOptions, listener: DemoListener = {}): Promise<DemoResult> {
  const api = createSimulatedApi({
    quota: options.quota,
    latencyMs: options.latency,
    random: seededRandom(options.seed),
    ...(options.spread === undefined ? {} : { spread: options.spread }),
  });
  const startedAt = performance.now();
  const elapsed = () => performance.now() - startedAt;

  // Indexed by TaskContext.index; filled in as factories are called.
  const tasks: (TaskRecord | undefined)[] = [];
  const batches: BatchReport[] = [];

  // Each factory is only called when slow start decides to run its task: the array itself
  // costs nothing, which is what lets slow start skip the tail after a failure.
  const factories: TaskFactory<CallResult>[] = Array.from(
    { length: options.tasks },
    () =>
      async ({ index, batch, signal }: TaskContext): Promise<CallResult> => {
        const startMs = elapsed();
        listener.onTaskStart?.({ index, batch, startMs });
        const settle = (outcome: TaskRecord['outcome']) => {
          const task: TaskRecord = { index, batch, startMs, endMs: elapsed(), outcome };
          tasks[index] = task;
          listener.onTaskSettled?.(task);
        };
        try {
          // The signal aborts if the run is torn down mid-batch; the simulated API then gives
          // up its timer at once instead of keeping the process alive.
          const result = await api.call(signal);
          settle('succeeded');
          return result;
        } catch (error) {
          settle('failed');
          throw error;
        }
      },
  );

  const batchTiming = (startIndex: number, size: number) => {
    const own = tasks.slice(startIndex, startIndex + size).filter((task) => task !== undefined);
    return {
      startMs: Math.min(...own.map((task) => task.startMs)),
      endMs: Math.max(...own.map((task) => task.endMs)),
    };
  };

  const finish = (cause: unknown, succeeded: number, skipped: number): DemoResult => {
    const invoked = tasks.filter((task) => task !== undefined);
    const summary: DemoSummary = {
      totalTasks: options.tasks,
      succeeded,
      failed: invoked.filter((task) => task.outcome === 'failed').length,
      skipped,
      callsMade: api.callsMade,
      callsSaved: options.tasks - api.callsMade,
      failedWithoutSlowStart: Math.max(0, options.tasks - options.quota),
      elapsedMs: elapsed(),
      ...(cause === undefined ? {} : { cause }),
    };
    const record: RunRecord = {
      pacing: options.pacing,
      totalTasks: options.tasks,
      tasks: invoked,
      skipped,
      subtitle: describeSettings(options),
    };
    return { summary, batches, record };
  };

  return new Promise<DemoResult>((resolve, reject) => {
    slowStart(factories, {
      initialBatchSize: options.initial,
      maxBatchSize: options.max,
      pacing: options.pacing,
    }).subscribe({
      next: (result) => {
        const report: BatchReport = {
          batch: result.batch,
          startIndex: result.startIndex,
          size: result.size,
          succeeded: result.size,
          failed: 0,
          successesSoFar: result.successes,
          ...batchTiming(result.startIndex, result.size),
        };
        batches.push(report);
        listener.onBatchSettled?.(report);
      },
      complete: () => resolve(finish(undefined, batches.at(-1)?.successesSoFar ?? 0, 0)),
      error: (error: unknown) => {
        if (!isSlowStartBatchError(error)) {
          // Not the batch failure the demo is about: a bug, reported as such by the CLI.
          reject(error);
          return;
        }
        const failed = error.results.filter((outcome) => outcome.status === 'rejected').length;
        const report: BatchReport = {
          batch: error.batch,
          startIndex: error.startIndex,
          size: error.size,
          succeeded: error.size - failed,
          failed,
          successesSoFar: error.successes,
          cause: error.cause,
          ...batchTiming(error.startIndex, error.size),
        };
        batches.push(report);
        listener.onBatchSettled?.(report);
        resolve(finish(error.cause, error.successes, error.skipped));
      },
    });
  });
}

export function describeSettings(
  options: Pick<DemoOptions, 'tasks' | 'quota' | 'initial' | 'max' | 'latency' | 'spread' | 'seed'> & { pacing: string },
): string {
  const max = options.max === Infinity ? 'no max batch' : `max batch ${options.max}`;
  // Batch pacing and uniform latencies are the defaults, and are left unsaid.
  const pacing = options.pacing === 'batch' ? '' : `${options.pacing} pacing, `;
  const latency =
    options.spread === undefined
      ? `latency ~${options.latency} ms`
      : `log-normal latency (median ${options.latency} ms, σ ${options.spread})`;
  return (
    `${pacing}${options.tasks} tasks, quota ${options.quota} calls, initial batch ${options.initial}, ${max}, ` +
    `${latency}, seed ${options.seed}`
  );
}
