// Runs the simulated job with slow start and records what happened, task by task.
import { performance } from 'node:perf_hooks';
import { isSlowStartBatchError, retryAfter, slowStart } from '../src/index.js';
import type { RetryOptions, TaskContext, TaskFactory } from '../src/index.js';
import type { DemoOptions, Pacing, RetryDemoOptions } from './args.js';
import type { PauseRecord, RunRecord, TaskRecord } from './run-record.js';
import { createSimulatedApi, is429, seededRandom } from './simulated-api.js';
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
  /** Calls answered 429 (over the quota, or over the rate with `--retry`). */
  throttled: number;
  /** Calls that were a retry of a task (attempt 2 or later). */
  retries: number;
  /** The pauses after throttles, with the drops of the pace (with `--retry`). */
  pauses: PauseRecord[];
  /** From the start of the run to the end of its last call, in ms. */
  makespanMs: number;
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
  /** With `--retry`: a pause after a throttle has ended (the next call is starting). */
  onPause?(pause: PauseRecord): void;
}

/** The options of one run: with `--pacing both`, the demo makes one run per pacing. */
export type RunOptions = Omit<DemoOptions, 'pacing'> & { pacing: Pacing };

/**
 * The backoff before retry `attempt`: 250 ms, doubling, at most 8 s. The library's default has a
 * random jitter; a fixed one lets a seed repeat a run. The server's Retry-After (whole seconds) is
 * longer anyway, and the pause is the longer of the two.
 */
export function demoBackoffMs(attempt: number): number {
  return Math.min(8000, 250 * 2 ** (attempt - 1));
}

/** The `retry` option the demo passes with `--retry`: 429s are throttles, with the server's Retry-After. */
export function demoRetryOptions(retry: RetryDemoOptions): RetryOptions {
  return {
    when: (error) => (is429(error) ? (retryAfter(error) ?? true) : false),
    maxAttempts: retry.attempts,
    delay: demoBackoffMs,
  };
}

export function runDemo(options: RunOptions, listener: DemoListener = {}): Promise<DemoResult> {
  const startedAt = performance.now();
  const elapsed = () => performance.now() - startedAt;
  const { retry } = options;
  const api = createSimulatedApi({
    // With --retry the API limits the rate instead of having a quota.
    quota: retry === undefined ? options.quota : Infinity,
    latencyMs: options.latency,
    random: seededRandom(options.seed),
    ...(options.spread === undefined ? {} : { spread: options.spread }),
    ...(retry === undefined ? {} : { rateLimit: { perSecond: retry.rate, burst: retry.burst }, now: elapsed }),
  });

  // Indexed by TaskContext.index, one entry per try; filled in as factories are called.
  const tasks: (TaskRecord[] | undefined)[] = [];
  const batches: BatchReport[] = [];
  const pauses: PauseRecord[] = [];
  // What the demo sees of the pace (§10): a throttle drops it unless it dropped since that call started.
  let drops = 0;
  let inFlight = 0;
  let pause: PauseRecord | undefined;

  // Each factory is only called when slow start decides to run its task: the array itself
  // costs nothing, which is what lets slow start skip the tail after a failure.
  const factories: TaskFactory<CallResult>[] = Array.from(
    { length: options.tasks },
    () =>
      async ({ index, batch, signal, attempt }: TaskContext): Promise<CallResult> => {
        const startMs = elapsed();
        if (pause !== undefined) {
          // The first call after a throttle ends the pause.
          pause.endMs = startMs;
          pauses.push(pause);
          listener.onPause?.(pause);
          pause = undefined;
        }
        const dropsAtStart = drops;
        inFlight++;
        listener.onTaskStart?.({ index, batch, startMs });
        const settle = (outcome: TaskRecord['outcome']) => {
          const task: TaskRecord = { index, batch, startMs, endMs: elapsed(), outcome, attempt };
          (tasks[index] ??= []).push(task);
          inFlight--;
          listener.onTaskSettled?.(task);
        };
        try {
          // The signal aborts if the run is torn down mid-batch; the simulated API then gives
          // up its timer at once instead of keeping the process alive.
          const result = await api.call(signal);
          settle('succeeded');
          return result;
        } catch (error) {
          if (retry !== undefined && is429(error) && attempt < retry.attempts) {
            noteThrottle(error, dropsAtStart);
            settle('throttled');
          } else {
            settle('failed');
          }
          throw error;
        }
      },
  );

  function noteThrottle(error: unknown, dropsAtStart: number): void {
    const atMs = elapsed();
    pause ??= { startMs: atMs, endMs: atMs, throttles: 0, retryAfterMs: 0 };
    pause.throttles++;
    pause.retryAfterMs = Math.max(pause.retryAfterMs, retryAfter(error) ?? 0);
    if (dropsAtStart === drops) {
      drops++;
      // The library's rule (§10): half of what was in flight, at least the initial size, at most the maximum.
      const threshold = Math.min(options.max, Math.max(options.initial, Math.floor(inFlight / 2)));
      pause.drop ??= { atMs, inFlight, threshold };
    }
  }

  const batchTiming = (startIndex: number, size: number) => {
    const own = tasks.slice(startIndex, startIndex + size).flatMap((tries) => tries ?? []);
    return {
      startMs: Math.min(...own.map((task) => task.startMs)),
      endMs: Math.max(...own.map((task) => task.endMs)),
    };
  };

  const finish = (cause: unknown, succeeded: number, skipped: number): DemoResult => {
    const invoked = tasks.flatMap((tries) => tries ?? []);
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
      throttled: api.callsRejected,
      retries: invoked.filter((task) => (task.attempt ?? 1) > 1).length,
      pauses,
      makespanMs: Math.max(0, ...invoked.map((task) => task.endMs)),
    };
    const record: RunRecord = {
      pacing: options.pacing,
      totalTasks: options.tasks,
      tasks: invoked,
      skipped,
      subtitle: describeSettings(options),
      ...(retry === undefined ? {} : { pauses }),
    };
    return { summary, batches, record };
  };

  return new Promise<DemoResult>((resolve, reject) => {
    slowStart(factories, {
      initialBatchSize: options.initial,
      maxBatchSize: options.max,
      pacing: options.pacing,
      ...(retry === undefined ? {} : { retry: demoRetryOptions(retry) }),
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
        pause = undefined; // a run that stops starts nothing more: a pause in progress has no end
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
  options: Pick<DemoOptions, 'tasks' | 'quota' | 'initial' | 'max' | 'latency' | 'spread' | 'seed'> & {
    pacing: string;
    retry?: RetryDemoOptions | undefined;
  },
): string {
  const max = options.max === Infinity ? 'no max batch' : `max batch ${options.max}`;
  // Batch pacing and uniform latencies are the defaults, and are left unsaid.
  const pacing = options.pacing === 'batch' ? '' : `${options.pacing} pacing, `;
  const latency =
    options.spread === undefined
      ? `latency ~${options.latency} ms`
      : `log-normal latency (median ${options.latency} ms, σ ${options.spread})`;
  return (
    `${pacing}${options.tasks} tasks, ${limit(options)}, initial batch ${options.initial}, ${max}, ` + `${latency}, seed ${options.seed}`
  );
}

function limit(options: { quota: number; retry?: RetryDemoOptions | undefined }): string {
  const { retry } = options;
  if (retry === undefined) return `quota ${options.quota} calls`;
  return `rate limit ${retry.rate}/s (burst ${retry.burst}), retry up to ${retry.attempts} tries`;
}
