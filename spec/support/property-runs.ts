/**
 * The seed and run count of the generated scenarios (fast-check), shared by the property suites.
 *
 * Seed policy: `npm test` and CI run every property from one seed fixed per commit, the commit's short
 * hash read as a number (the first 7 hex digits of `git rev-parse HEAD`), so a commit is green or red
 * for good and never turns red at random. Without git (a tarball without .git) the seed is
 * FALLBACK_SEED. Fresh seeds are explored on purpose, with `npm run test:explore` (FC_SEED=random).
 * Each suite prints its seed once, with the one command that replays its run.
 *
 * The environment:
 * - FC_SEED: an integer replays that seed; `random` draws a fresh one (and prints it).
 * - FC_PATH: with the seed of a failure, the `path` fast-check printed: replays its shrunk
 *   counterexample directly (name the property with `-t`: the path means nothing to the others).
 * - FC_NUM_RUNS: runs per property; by default 2,000 when `CI` is set, 300 otherwise.
 * - FC_END_ON_FAILURE=1: stop at the first failure without shrinking (mutation runs only need to know
 *   that a property fails).
 */
import { execFileSync } from 'node:child_process';
import { join, relative } from 'node:path';
import type { Parameters } from 'fast-check';

/** The seed when no commit can be read. Any fixed number would do. */
export const FALLBACK_SEED = 0x5eed;

const root = join(__dirname, '..', '..');

/** What fast-check is given: the same for every property of a suite but its run count. */
export type PropertyParameters = Pick<Parameters<unknown>, 'seed' | 'numRuns' | 'path' | 'endOnFailure'>;

export interface PropertyRuns {
  readonly seed: number;
  /** Where the seed comes from, in words. */
  readonly origin: string;
  /** Runs per property: FC_NUM_RUNS, else 2,000 in CI and 300 locally. */
  readonly numRuns: number;
  /**
   * How long one property may take, in ms: 110 s at CI's count, and 60 ms a run beyond that, so that a
   * run at ten times CI's count (FC_NUM_RUNS=20000) is not cut short.
   */
  readonly timeout: number;
  /** fast-check's parameters for one property; `runs` for a property that sets its own count. */
  params(runs?: number): PropertyParameters;
}

type Env = Record<string, string | undefined>;

/** The commit being tested, or undefined when git cannot tell. */
function headCommit(): string | undefined {
  try {
    const head = execFileSync('git', ['rev-parse', 'HEAD'], {
      cwd: root,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
      timeout: 10_000,
    }).trim();
    return /^[0-9a-f]{40,64}$/.test(head) ? head : undefined;
  } catch {
    return undefined;
  }
}

/** The seed of a commit: its first 7 hex digits as a number (0 to 268,435,455). */
export function seedOfCommit(commit: string): number {
  return Number.parseInt(commit.slice(0, 7), 16);
}

/** The seed to run with and where it comes from: FC_SEED, else the commit, else FALLBACK_SEED. */
export function chooseSeed(env: Env, commit: () => string | undefined = headCommit): { seed: number; origin: string } {
  const given = env.FC_SEED?.trim();
  if (given === 'random') return { seed: Math.floor(Math.random() * 0x80000000), origin: 'drawn at random: FC_SEED=random' };
  if (given) {
    if (!/^-?\d+$/.test(given) || !Number.isSafeInteger(Number(given)))
      throw new Error(`FC_SEED must be an integer or "random", got "${given}"`);
    return { seed: Number(given), origin: 'from FC_SEED' };
  }
  const head = commit();
  if (head === undefined) return { seed: FALLBACK_SEED, origin: 'the fixed fallback: git cannot say which commit this is' };
  return { seed: seedOfCommit(head), origin: `from commit ${head.slice(0, 7)}` };
}

function runCount(env: Env): number {
  if (env.FC_NUM_RUNS === undefined || env.FC_NUM_RUNS === '') return env.CI ? 2000 : 300;
  const runs = Number(env.FC_NUM_RUNS);
  if (!Number.isSafeInteger(runs) || runs < 1) throw new Error(`FC_NUM_RUNS must be a positive integer, got "${env.FC_NUM_RUNS}"`);
  return runs;
}

/** The one command that replays a suite's run: the same seed and the same number of runs. */
export function replayCommand(suite: string, seed: number, numRuns: number): string {
  return `FC_SEED=${seed} FC_NUM_RUNS=${numRuns} npx jest ${suite}`;
}

/** The runs of a suite, from the environment. Prints nothing (propertyRuns does). */
export function readPropertyRuns(env: Env, commit?: () => string | undefined): PropertyRuns {
  const { seed, origin } = chooseSeed(env, commit);
  const numRuns = runCount(env);
  const path = env.FC_PATH?.trim() ? env.FC_PATH.trim() : undefined;
  // A path points at a counterexample already shrunk: nothing is left to shrink.
  const endOnFailure = path !== undefined || env.FC_END_ON_FAILURE === '1';
  return {
    seed,
    origin,
    numRuns,
    timeout: Math.max(110_000, numRuns * 60),
    params: (runs = numRuns) => ({ seed, numRuns: runs, endOnFailure, ...(path === undefined ? {} : { path }) }),
  };
}

let current: PropertyRuns | undefined;

/**
 * The runs of the suite in `suiteFile` (pass `__filename`), read from the environment once, with the
 * seed printed once per suite (jest loads this module afresh for each test file): a red CI log shows
 * what replays it.
 */
export function propertyRuns(suiteFile: string): PropertyRuns {
  if (current) return current;
  const runs = readPropertyRuns(process.env);
  const suite = relative(root, suiteFile);
  console.log(
    `${suite}: fast-check seed ${runs.seed} (${runs.origin}), ${runs.numRuns} runs per property (but those that set their own count).\n` +
      `Replay:  ${replayCommand(suite, runs.seed, runs.numRuns)}\n` +
      `A failure also prints its path: FC_SEED=${runs.seed} FC_PATH=<path> npx jest ${suite} -t '<property>' ` +
      `goes straight to its shrunk counterexample.`,
  );
  current = runs;
  return runs;
}
