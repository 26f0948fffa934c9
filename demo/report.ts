// Console output of the demo. On a terminal a single progress line is rewritten in place while a
// batch runs; anywhere else (a pipe, a CI log) only whole lines are written, since a carriage
// return there would leave a mess of half-overwritten lines.
import type { PauseRecord } from './run-record.js';
import type { BatchReport, DemoListener, DemoResult, DemoSummary, RunOptions } from './run-demo.js';
import { describeSettings } from './run-demo.js';

/** The part of a stream the reporter uses; process.stdout fits. */
export interface Output {
  write(text: string): unknown;
  isTTY?: boolean;
  columns?: number;
}

export interface Reporter extends DemoListener {
  start(options: RunOptions): void;
  finish(result: DemoResult): void;
}

export function createReporter(output: Output, env: Record<string, string | undefined> = {}): Reporter {
  const live = output.isTTY === true;
  // https://no-color.org: any non-empty NO_COLOR turns colour off.
  const colour = live && !env.NO_COLOR;
  const paint = (code: number, text: string) => (colour ? `\x1b[${code}m${text}\x1b[0m` : text);
  const green = (text: string) => paint(32, text);
  const red = (text: string) => paint(31, text);
  const bold = (text: string) => paint(1, text);
  const orange = (text: string) => paint(33, text);

  let progressShown = false;
  const current = { batch: -1, started: 0, succeeded: 0, failed: 0 };
  let succeededBefore = 0;
  // Window pacing has no batches: its results are groups of the sizes batch pacing would use.
  let group: GroupWord = 'batch';

  const clearProgress = () => {
    if (progressShown) output.write('\r\x1b[2K');
    progressShown = false;
  };

  const showProgress = (nowMs: number) => {
    if (!live) return;
    const running = current.started - current.succeeded - current.failed;
    let line =
      `${group} ${current.batch}: ${running} running, ${current.succeeded} ok, ${current.failed} failed` +
      ` | ${succeededBefore + current.succeeded} succeeded in all | ${(nowMs / 1000).toFixed(1)} s`;
    // A line wider than the terminal wraps, and \r would then only rewrite its last part.
    // (A terminal of unknown size, as under `script`, reports 0 columns.)
    const width = (output.columns !== undefined && output.columns > 0 ? output.columns : 80) - 1;
    if (line.length > width) line = line.slice(0, Math.max(0, width - 1)) + '…';
    output.write(`\r\x1b[2K${line}`);
    progressShown = true;
  };

  return {
    start(options) {
      group = options.pacing === 'window' ? 'result' : 'batch';
      Object.assign(current, { batch: -1, started: 0, succeeded: 0, failed: 0 });
      succeededBefore = 0;
      output.write(`${bold('Slow start demo')}: ${describeSettings(options)}\n`);
      const { retry } = options;
      output.write(
        retry === undefined
          ? `The simulated API accepts ${options.quota} calls, then answers 429 Too Many Requests.\n`
          : `The simulated API accepts ${retry.rate} calls a second (${retry.burst} at once), and answers the others ` +
              `429 with a Retry-After; slow start retries them (up to ${retry.attempts} tries a task).\n`,
      );
    },

    onTaskStart({ batch, startMs }) {
      if (batch !== current.batch) Object.assign(current, { batch, started: 0, succeeded: 0, failed: 0 });
      current.started++;
      showProgress(startMs);
    },

    onTaskSettled(task) {
      if (task.outcome === 'succeeded') current.succeeded++;
      else current.failed++;
      showProgress(task.endMs);
    },

    onPause(pause) {
      clearProgress();
      output.write(orange(formatPause(pause)) + '\n');
    },

    onBatchSettled(batch) {
      clearProgress();
      output.write(formatBatch(batch, green, red, group) + '\n');
      succeededBefore = batch.successesSoFar;
    },

    finish({ summary }) {
      clearProgress();
      const width = String(summary.totalTasks).length;
      const n = (value: number) => String(value).padStart(width);
      if (summary.pauses.length > 0 || summary.retries > 0 || summary.callsMade > summary.totalTasks) {
        output.write(formatRetryTotals(summary, bold) + '\n');
        return;
      }
      const lines = [
        '',
        bold(`Summary after ${(summary.elapsedMs / 1000).toFixed(2)} s`),
        `  succeeded    ${n(summary.succeeded)}`,
        `  failed       ${n(summary.failed)}   (firing every task at once: ${summary.failedWithoutSlowStart})`,
        `  skipped      ${n(summary.skipped)}   (never called)`,
        `  calls made   ${n(summary.callsMade)}   of ${summary.totalTasks} tasks`,
        `  calls saved  ${n(summary.callsSaved)}   compared with firing all ${summary.totalTasks} tasks at once`,
      ];
      if (summary.cause !== undefined) lines.push(`  first error  ${describeError(summary.cause)} (the first failure to arrive)`);
      output.write(lines.join('\n') + '\n');
    },
  };
}

/** One line per pause: when a 429 paused the run (and dropped the pace), and for how long. */
export function formatPause(pause: PauseRecord): string {
  const ms = (value: number) => `${Math.round(value)} ms`;
  const throttles = pause.throttles === 1 ? '1 call' : `${pause.throttles} calls`;
  const drop =
    pause.drop === undefined
      ? 'pace already dropped this round'
      : `pace dropped at ${ms(pause.drop.atMs)} with ${pause.drop.inFlight} in flight, threshold now ${pause.drop.threshold}`;
  return (
    `throttled at ${ms(pause.startMs)}: ${throttles} answered 429 (Retry-After ${pause.retryAfterMs / 1000} s); ${drop}; ` +
    `paused ${ms(pause.endMs - pause.startMs)}, until ${ms(pause.endMs)}`
  );
}

function formatRetryTotals(summary: DemoSummary, bold: (text: string) => string): string {
  const drops = summary.pauses.filter((pause) => pause.drop !== undefined).length;
  const paused = summary.pauses.reduce((sum, pause) => sum + pause.endMs - pause.startMs, 0);
  const width = String(Math.max(summary.callsMade, summary.totalTasks)).length;
  const n = (value: number) => String(value).padStart(width);
  const lines = [
    '',
    bold(`Summary after ${(summary.elapsedMs / 1000).toFixed(2)} s`),
    `  tasks done   ${n(summary.succeeded)}   of ${summary.totalTasks}`,
    `  calls        ${n(summary.callsMade)}`,
    `  429s         ${n(summary.throttled)}`,
    `  retries      ${n(summary.retries)}`,
    `  pace drops   ${n(drops)}`,
    `  pauses       ${n(summary.pauses.length)}   (${(paused / 1000).toFixed(2)} s with no call started)`,
    `  failed       ${n(summary.failed)}`,
    `  makespan     ${(summary.makespanMs / 1000).toFixed(2)} s`,
  ];
  if (summary.cause !== undefined) lines.push(`  first error  ${describeError(summary.cause)} (the first failure to arrive)`);
  return lines.join('\n');
}

export type GroupWord = 'batch' | 'result';

export function formatBatch(
  batch: BatchReport,
  green: (text: string) => string = (text) => text,
  red: (text: string) => string = (text) => text,
  group: GroupWord = 'batch',
): string {
  const last = batch.startIndex + batch.size - 1;
  const range = batch.size === 1 ? `task ${batch.startIndex}` : `tasks ${batch.startIndex}-${last}`;
  const took = `${Math.round(batch.endMs - batch.startMs)} ms`;
  const calls = `${batch.size} ${batch.size === 1 ? 'call' : 'calls'}`;
  if (batch.failed === 0) {
    return `${group} ${batch.batch}: ${range}, ${calls}, ${green(`${batch.succeeded} ok`)} in ${took}`;
  }
  return (
    `${group} ${batch.batch}: ${range}, ${calls}, ${batch.succeeded} ok, ${red(`${batch.failed} failed`)} ` +
    `in ${took}: no further ${group === 'batch' ? 'batch' : 'task'} is started`
  );
}

function describeError(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
