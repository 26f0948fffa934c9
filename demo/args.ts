// Command-line flags of the demo. Parsing is strict on purpose: a demo that silently turns
// `--tasks ten` into NaN, or ignores a misspelt `--quta`, teaches the wrong thing about the run.
import { parseArgs } from 'node:util';

export interface DemoOptions {
  /** How many tasks the simulated job wants to run. */
  tasks: number;
  /** How many calls the simulated API accepts before it answers 429. */
  quota: number;
  /** `initialBatchSize` of slow start. */
  initial: number;
  /** `maxBatchSize` of slow start; Infinity = no cap (the library's default). */
  max: number;
  /** Typical latency of one API call, in ms; each call takes between half and one and a half of it. */
  latency: number;
  /**
   * σ of log-normal latencies with `latency` as their median, or undefined for the uniform draw above.
   * A large σ gives a few slow calls (stragglers) among many fast ones.
   */
  spread: number | undefined;
  /** Pacing of slow start, or `'both'`: batch then window pacing over the same latencies. */
  pacing: PacingChoice;
  /** Seed of the latency generator: the same seed draws the same latencies. */
  seed: number;
  /** Where to write the SVG timeline, if anywhere. */
  svg: string | undefined;
  /**
   * With `--retry`: the API limits the rate instead of having a quota, and slow start retries its
   * 429s (contract §10). `undefined` without `--retry`.
   */
  retry: RetryDemoOptions | undefined;
}

export interface RetryDemoOptions {
  /** Calls a second the API's token bucket refills. */
  rate: number;
  /** Size of the token bucket: calls the API accepts at once after a quiet spell. */
  burst: number;
  /** `retry.maxAttempts`: tries per task, the first included. */
  attempts: number;
}

export type Pacing = 'batch' | 'window';
export type PacingChoice = Pacing | 'both';
const PACING_CHOICES: readonly string[] = ['batch', 'window', 'both'];

export type ParsedArgs = { kind: 'help' } | { kind: 'run'; options: DemoOptions };

/** Thrown for any bad command line; the CLI prints its message and the usage, then exits with code 2. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

// Defaults chosen so that a bare `npm run demo:simulated` fails within a second or two: batches of 1, 2, 4
// and 8 (15 calls) fit in the quota of 20 calls, the batch of 16 runs into it.
export const DEFAULTS = {
  tasks: 100,
  quota: 20,
  initial: 1,
  latency: 200,
  pacing: 'batch',
} as const;

// With --retry: a bucket of 20 calls that refills 20 a second, and 5 tries per task.
export const RETRY_DEFAULTS = {
  rate: 20,
  attempts: 5,
} as const;
const MAX_ATTEMPTS = 20;

// Bounds keep a typo from starting a run that takes hours or an SVG of a million bars.
const MAX_TASKS = 10_000;
const MAX_LATENCY_MS = 60_000;
const MAX_SEED = 0xffff_ffff;
const MAX_SPREAD = 2;

export const USAGE = `Usage: npm run demo:simulated -- [flags]

Runs simulated tasks against a fake rate-limited API with slow start, prints each batch as it
settles, then a summary of the calls that slow start saved.

Flags:
  --tasks N      tasks to run (1..${MAX_TASKS}, default ${DEFAULTS.tasks})
  --quota N      calls the API accepts before it answers 429 (0..${MAX_TASKS}, default ${DEFAULTS.quota})
  --initial N    initial batch size (>= 1, default ${DEFAULTS.initial})
  --max N        maximum batch size (>= --initial, default: no maximum)
  --latency MS   typical latency of one call in ms (0..${MAX_LATENCY_MS}, default ${DEFAULTS.latency})
  --spread SIGMA draw log-normal latencies with this sigma (0..${MAX_SPREAD}) and --latency as median,
                 so that a few calls are much slower (default: uniform, half to 1.5 times --latency)
  --pacing P     batch (Kubernetes: each batch waits for the slowest call of the previous one),
                 window (no barrier, same bound on calls in flight), or both: batch then window
                 over the same latencies, drawn one above the other by --svg (default ${DEFAULTS.pacing})
  --seed N       seed of the random latencies, for a repeatable run (0..${MAX_SEED}, default: random)
  --svg PATH     also write a timeline of the run as an SVG picture to PATH
  --retry        the API limits the rate instead (a token bucket) and answers 429 with a Retry-After;
                 slow start retries those calls: the pace drops, pauses, and ramps up again
  --rate N       with --retry: calls a second the API accepts (1..${MAX_TASKS}, default ${RETRY_DEFAULTS.rate})
  --burst N      with --retry: calls it accepts at once after a quiet spell (1..${MAX_TASKS}, default: --rate)
  --attempts N   with --retry: tries per task, the first included (1..${MAX_ATTEMPTS}, default ${RETRY_DEFAULTS.attempts})
  -h, --help     print this help and exit

Example: npm run demo:simulated -- --tasks 200 --quota 30 --initial 2 --svg timeline.svg
         npm run demo:simulated -- --pacing both --spread 1 --quota 1000 --svg pacing.svg
         npm run demo:simulated -- --retry --tasks 80 --pacing window --svg retry.svg`;

/**
 * Parses the demo's command line (without the `node` and script entries).
 * `randomSeed` supplies the seed when `--seed` is absent, so that tests stay deterministic.
 */
export function parseDemoArgs(argv: readonly string[], randomSeed: () => number = defaultSeed): ParsedArgs {
  let values: Record<string, string | boolean | undefined>;
  try {
    ({ values } = parseArgs({
      args: [...argv],
      strict: true,
      allowPositionals: false,
      options: {
        tasks: { type: 'string' },
        quota: { type: 'string' },
        initial: { type: 'string' },
        max: { type: 'string' },
        latency: { type: 'string' },
        seed: { type: 'string' },
        spread: { type: 'string' },
        pacing: { type: 'string' },
        svg: { type: 'string' },
        retry: { type: 'boolean' },
        rate: { type: 'string' },
        burst: { type: 'string' },
        attempts: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    }));
  } catch (error) {
    // parseArgs throws a TypeError with a readable message ("Unknown option '--x'", "Option
    // '--tasks <value>' argument missing"); it is the user's mistake, so it becomes a usage error.
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }

  if (values.help === true) return { kind: 'help' };

  const tasks = integerFlag(values, 'tasks', DEFAULTS.tasks, 1, MAX_TASKS);
  const quota = integerFlag(values, 'quota', DEFAULTS.quota, 0, MAX_TASKS);
  const initial = integerFlag(values, 'initial', DEFAULTS.initial, 1, MAX_TASKS);
  // maxBatchSize must be >= initialBatchSize (contract §1); checking it here gives a message in
  // terms of the flags rather than the library's RangeError about options.
  const max = integerFlag(values, 'max', Infinity, 1, MAX_TASKS);
  if (max < initial) throw new UsageError(`--max must not be below --initial (${initial}), got ${max}`);
  const latency = numberFlag(values, 'latency', DEFAULTS.latency, 0, MAX_LATENCY_MS);
  const spread = numberFlag(values, 'spread', undefined, 0, MAX_SPREAD);
  const pacingText = stringFlag(values, 'pacing') ?? DEFAULTS.pacing;
  if (!PACING_CHOICES.includes(pacingText)) {
    throw new UsageError(`--pacing must be batch, window or both, got '${pacingText}'`);
  }
  const pacing = pacingText as PacingChoice;
  const seed = integerFlag(values, 'seed', undefined, 0, MAX_SEED) ?? randomSeed();

  const svg = stringFlag(values, 'svg');
  if (svg !== undefined && svg.trim() === '') throw new UsageError('--svg needs a file path, got an empty string');

  const retry = retryFlags(values);

  return { kind: 'run', options: { tasks, quota, initial, max, latency, spread, pacing, seed, svg, retry } };
}

function retryFlags(values: Record<string, string | boolean | undefined>): RetryDemoOptions | undefined {
  if (values.retry !== true) {
    const stray = ['rate', 'burst', 'attempts'].find((name) => values[name] !== undefined);
    if (stray !== undefined) throw new UsageError(`--${stray} only applies with --retry`);
    return undefined;
  }
  // A quota would stop the run whatever the retries do: --retry replaces it with a rate limit.
  if (values.quota !== undefined) throw new UsageError('--quota does not apply with --retry (the API limits the rate instead)');
  const rate = integerFlag(values, 'rate', RETRY_DEFAULTS.rate, 1, MAX_TASKS);
  const burst = integerFlag(values, 'burst', rate, 1, MAX_TASKS);
  const attempts = integerFlag(values, 'attempts', RETRY_DEFAULTS.attempts, 1, MAX_ATTEMPTS);
  return { rate, burst, attempts };
}

function defaultSeed(): number {
  return Math.floor(Math.random() * MAX_SEED);
}

function stringFlag(values: Record<string, string | boolean | undefined>, name: string): string | undefined {
  const value = values[name];
  return typeof value === 'string' ? value : undefined;
}

// Number('') is 0, Number('1e3') is 1000 and Number('0x10') is 16: all surprising on a command
// line, so only plain decimal digits are accepted.
const INTEGER = /^\d+$/;
const DECIMAL = /^\d+(\.\d+)?$/;

function integerFlag<D extends number | undefined>(
  values: Record<string, string | boolean | undefined>,
  name: string,
  fallback: D,
  min: number,
  max: number,
): number | D {
  const text = stringFlag(values, name);
  if (text === undefined) return fallback;
  if (!INTEGER.test(text)) throw new UsageError(`--${name} must be a whole number, got '${text}'`);
  return inRange(name, Number(text), text, min, max);
}

function numberFlag<D extends number | undefined>(
  values: Record<string, string | boolean | undefined>,
  name: string,
  fallback: D,
  min: number,
  max: number,
): number | D {
  const text = stringFlag(values, name);
  if (text === undefined) return fallback;
  if (!DECIMAL.test(text)) throw new UsageError(`--${name} must be a number, got '${text}'`);
  return inRange(name, Number(text), text, min, max);
}

function inRange(name: string, value: number, text: string, min: number, max: number): number {
  if (value < min || value > max) {
    throw new UsageError(`--${name} must be between ${min} and ${max}, got ${text}`);
  }
  return value;
}
