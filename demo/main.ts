// The demo's command: parse flags, run, report, optionally write the SVG. Returns the exit code
// instead of exiting, so that tests can call it with fake streams.
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { USAGE, UsageError, parseDemoArgs } from './args.js';
import type { Pacing } from './args.js';
import type { Output } from './report.js';
import { createReporter } from './report.js';
import { runDemo } from './run-demo.js';
import type { DemoResult } from './run-demo.js';
import { makespanMs, renderComparisonSvg, renderTimelineSvg } from './timeline-svg.js';

export const EXIT_OK = 0;
export const EXIT_FAILURE = 1;
/** The conventional exit code of a command-line usage error. */
export const EXIT_USAGE = 2;

export interface DemoIo {
  stdout: Output;
  stderr: Output;
  env: Record<string, string | undefined>;
}

export async function main(argv: readonly string[], io: DemoIo): Promise<number> {
  let parsed;
  try {
    parsed = parseDemoArgs(argv);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    io.stderr.write(`demo: ${error.message}\n\n${USAGE}\n`);
    return EXIT_USAGE;
  }
  if (parsed.kind === 'help') {
    io.stdout.write(`${USAGE}\n`);
    return EXIT_OK;
  }

  const { options } = parsed;
  const reporter = createReporter(io.stdout, io.env);
  // With --pacing both, the same seed gives both runs the same latencies, call by call.
  const pacings: Pacing[] = options.pacing === 'both' ? ['batch', 'window'] : [options.pacing];
  const results: DemoResult[] = [];
  for (const [position, pacing] of pacings.entries()) {
    if (position > 0) io.stdout.write('\n');
    const runOptions = { ...options, pacing };
    reporter.start(runOptions);
    const result = await runDemo(runOptions, reporter);
    reporter.finish(result);
    results.push(result);
  }
  if (results.length > 1) {
    const [batch, window] = results.map((result) => makespanMs(result.record));
    io.stdout.write(
      `\nMakespan: batch pacing ${Math.round(batch)} ms, window pacing ${Math.round(window)} ms` +
        (window > 0 ? ` (batch pacing takes ${(batch / window).toFixed(2)} times as long)` : '') +
        '\n',
    );
  }

  if (options.svg !== undefined) {
    const svg =
      results.length === 1
        ? renderTimelineSvg(results[0].record)
        : renderComparisonSvg(
            results.map((result) => ({ label: `${capitalise(result.record.pacing ?? 'batch')} pacing`, record: result.record })),
          );
    try {
      await mkdir(dirname(options.svg), { recursive: true });
      await writeFile(options.svg, svg);
    } catch (error) {
      io.stderr.write(`demo: could not write the timeline to ${options.svg}: ${(error as Error).message}\n`);
      return EXIT_FAILURE;
    }
    io.stdout.write(`\nTimeline written to ${options.svg}\n`);
  }
  // A failing batch is what the demo sets out to show, not an error of the demo itself.
  return EXIT_OK;
}

function capitalise(word: string): string {
  return word.charAt(0).toUpperCase() + word.slice(1);
}
