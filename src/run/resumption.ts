// What a run takes from the checkpoint it resumes (§15), apart from its keys (task-keys.ts): whether
// its source is the same, and its pace when the checkpoint is recent.
import { fingerprintOf } from '../checkpoint/checkpoint.js';
import { expected } from '../expected.js';
import type { Pacing } from '../pacing/pacing.js';
import type { RunnerHost } from '../host.js';
import type { ResolvedOptions } from '../resolve-options.js';
import type { Intake } from './intake.js';
import type { Outcomes } from './outcomes.js';
import type { StartGate } from './waits/start-gate.js';
import type { Waits } from './waits/waits.js';

/** The fingerprint of the run's source: its `keys` hashed, or its length when the source says. */
export function sourceFingerprint(options: Pick<ResolvedOptions, 'keys' | 'resume' | 'events'>, total: number | undefined): string {
  // Hashing the keys reads them all: only a run that reports or resumes pays for it.
  if (options.events === undefined && options.resume === undefined) return '';
  // Keys from a function are known only as the tasks come: the length stands for the source.
  return fingerprintOf(typeof options.keys === 'function' ? undefined : options.keys, total);
}

/**
 * Why the run must not resume its checkpoint: its source's fingerprint differs and the user did not
 * accept that. A fingerprint the run or the checkpoint could not tell (`''`) is not compared.
 */
export function refusedResume(options: Pick<ResolvedOptions, 'resume'>, fingerprint: string): RangeError | undefined {
  const { resume } = options;
  if (resume === undefined || resume.changedSource) return undefined;
  const recorded = resume.checkpoint.fingerprint;
  if (recorded === '' || fingerprint === '' || recorded === fingerprint) return undefined;
  return new RangeError(
    expected(
      'resume.checkpoint.fingerprint',
      `the fingerprint of this source, ${JSON.stringify(fingerprint)} (the checkpoint was made from another list of tasks or keys; pass \`resume: { checkpoint, changedSource: 'accept' }\` to resume it all the same)`,
      recorded,
    ),
  );
}

/**
 * Takes up the pace of the checkpoint the run resumes, when it is at most `freshFor` old at `now`:
 * `pacing` starts from it, and under `rateLimit` the first try hears where the budget stands before
 * the rest start (the pace a budget held may have grown far past it). Returns when the pause it
 * recorded ends, if it is still to come (a server's reset holds whatever the checkpoint's age), or
 * `undefined`.
 */
export function takeUpPace(options: Pick<ResolvedOptions, 'resume'>, pacing: Pacing, waits: Waits, now: number): number | undefined {
  const { resume } = options;
  if (resume === undefined) return undefined;
  const { pace, savedAt } = resume.checkpoint;
  if (now - savedAt <= resume.freshFor) {
    pacing.resume(pace.limit, pace.threshold ?? undefined);
    waits.announced?.hold.hearFirst(now, 0);
  }
  return pace.pausedUntil !== null && pace.pausedUntil > now ? pace.pausedUntil : undefined;
}

/**
 * A run begins: from the checkpoint it resumes, if any, it takes up the pace and a pause still to
 * come; its start is reported, and its source started. Returns whether it runs: a source that is not
 * the checkpoint's errors the stream at once, once the run is `close`d, before any task starts.
 */
export function begin<T>(
  options: ResolvedOptions,
  host: Pick<RunnerHost<T>, 'now' | 'error'>,
  run: { intake: Intake; outcomes: Outcomes<T>; pacing: Pacing; waits: Waits; gate: StartGate; close: () => void },
): boolean {
  const { total } = run.intake;
  const fingerprint = sourceFingerprint(options, total);
  const refusal = refusedResume(options, fingerprint);
  if (refusal !== undefined) {
    run.close();
    host.error(refusal);
    return false;
  }
  // Only a resumed run reads the clock as it begins.
  const now = options.resume === undefined ? NaN : host.now();
  const pausedUntil = takeUpPace(options, run.pacing, run.waits, now);
  run.outcomes.begin(total, fingerprint, options.resume?.checkpoint);
  const { restored } = run.waits;
  if (pausedUntil !== undefined && restored !== undefined) {
    restored.until = pausedUntil;
    run.gate.changed(-Infinity, now, restored.cause);
  }
  run.intake.start();
  return true;
}
