// The options validated when `slowStartBatch()` or `slowStart()` is called, with the one message
// template for what is wrong, and the defaults filled in.
import type { SchedulerLike } from 'rxjs';
import type { SlowStartEvent, TaskKey } from './events.js';
import type { StartLimiter } from './start-limiter.js';
import { expected } from './expected.js';
import { isRateLimitState, readRateLimits, type RateLimitState } from './rate-limit.js';
import { resolveRetry, type ResolvedRetry } from './retry/retry-options.js';
import { MAX_TIMER_DELAY } from './timer-limit.js';
import type { BatchPacingOptions, SlowStartOptions } from './options.js';
import type { Refusal } from './run/intake.js';
import { readCheckpoint, type SlowStartCheckpoint } from './checkpoint/checkpoint.js';

/** The `resume` option, checked, with its defaults. */
export interface ResolvedResume {
  readonly checkpoint: SlowStartCheckpoint;
  /** Whether a source whose fingerprint differs from the checkpoint's is run all the same. */
  readonly changedSource: boolean;
  /** How old, in ms on the run's clock, a checkpoint's pace may be and still be trusted. */
  readonly freshFor: number;
}

/** How long a checkpoint's pace is trusted by default: a minute, a common rate-limit window. */
export const DEFAULT_FRESH_FOR = 60_000;

/** {@link SlowStartOptions} after validation, with every default filled in. */
export interface ResolvedOptions {
  readonly initialBatchSize: number;
  readonly growthFactor: number;
  readonly maxBatchSize: number;
  readonly concurrency: number;
  readonly flushAfter: number | undefined;
  readonly pacing: 'batch' | 'window';
  readonly retry: ResolvedRetry | undefined;
  readonly httpErrors: boolean;
  readonly limiter: StartLimiter | undefined;
  /**
   * What reads the budgets a try's value or error announces, `undefined` when it announces none that
   * holds; itself `undefined` when none is read.
   */
  readonly rateLimit: ((outcome: unknown) => readonly RateLimitState[] | undefined) | undefined;
  /** Where events go, as a function; `undefined` when nobody listens. */
  readonly events: ((event: SlowStartEvent) => void) | undefined;
  readonly keys: readonly TaskKey[] | ((index: number) => unknown) | undefined;
  /** The first task past the end of `keys` whose index is a key of `keys`: the run refuses it when it comes. */
  readonly keyClash: Refusal | undefined;
  readonly resume: ResolvedResume | undefined;
  /** `undefined` stands for `asyncScheduler`, filled in by the adapter so that this file needs no RxJS at run time. */
  readonly scheduler: SchedulerLike | undefined;
}

const optionNames: ReadonlyArray<keyof BatchPacingOptions> = [
  'initialBatchSize',
  'growthFactor',
  'maxBatchSize',
  'concurrency',
  'flushAfter',
  'scheduler',
  'pacing',
  'retry',
  'httpErrors',
  'limiter',
  'rateLimit',
  'events',
  'keys',
  'resume',
];

/**
 * Validates `options` and fills in the defaults. Throws a `TypeError` for a value of the wrong type
 * and a `RangeError` for a number out of range, both in the form
 * ``Expected `name` to be <rule>, got <value> (<type>)``.
 */
export function resolveOptions(options: unknown): ResolvedOptions {
  if (options === undefined) {
    return {
      initialBatchSize: 1,
      growthFactor: 2,
      maxBatchSize: Infinity,
      concurrency: Infinity,
      flushAfter: undefined,
      pacing: 'batch',
      retry: undefined,
      httpErrors: true,
      limiter: undefined,
      rateLimit: undefined,
      events: undefined,
      keys: undefined,
      keyClash: undefined,
      resume: undefined,
      scheduler: undefined,
    };
  }
  if (typeof options !== 'object' || options === null || Array.isArray(options)) {
    throw new TypeError(expected('options', 'an object or undefined', options));
  }
  // A misspelt option would otherwise be ignored without a word.
  for (const key of Object.keys(options)) {
    if (!(optionNames as string[]).includes(key)) {
      throw new TypeError(`Unknown option \`${key}\`: expected one of ${optionNames.map((name) => `\`${name}\``).join(', ')}`);
    }
  }
  const sizes = resolveSizes(options);
  // Read as unknown: a user's JavaScript may pass anything.
  const { pacing, scheduler, httpErrors = true } = options as { pacing?: unknown; scheduler?: unknown; httpErrors?: unknown };
  if (typeof httpErrors !== 'boolean') throw new TypeError(expected('httpErrors', 'a boolean or undefined', httpErrors));
  if (pacing !== undefined && pacing !== 'batch' && pacing !== 'window') {
    throw new TypeError(expected('pacing', "'batch' or 'window'", pacing));
  }
  if (pacing === 'window' && sizes.flushAfter !== undefined) {
    throw new TypeError(expected('flushAfter', "undefined with `pacing: 'window'` (there are no batches to flush)", sizes.flushAfter));
  }
  if (scheduler !== undefined && !isSchedulerLike(scheduler)) {
    throw new TypeError(expected('scheduler', 'a SchedulerLike (an object with `schedule()` and `now()`)', scheduler));
  }
  return {
    ...sizes,
    pacing: pacing ?? 'batch',
    retry: resolveRetry((options as SlowStartOptions).retry),
    httpErrors,
    limiter: resolveLimiter((options as { limiter?: unknown }).limiter),
    rateLimit: resolveRateLimit((options as { rateLimit?: unknown }).rateLimit),
    events: resolveEvents((options as { events?: unknown }).events),
    ...resolveKeys((options as { keys?: unknown }).keys),
    resume: resolveResume((options as { resume?: unknown }).resume),
    scheduler,
  };
}

/** The `limiter` option, checked: anything with a `take()` method. */
function resolveLimiter(option: unknown): StartLimiter | undefined {
  if (option === undefined) return undefined;
  if (typeof option === 'object' && option !== null && typeof (option as { take?: unknown }).take === 'function')
    return option as StartLimiter;
  throw new TypeError(expected('limiter', 'a StartLimiter (an object with `take()`) or undefined', option));
}

/** The `rateLimit` option as the function that reads the budgets a try's outcome announces, if any. */
function resolveRateLimit(option: unknown): ((outcome: unknown) => readonly RateLimitState[] | undefined) | undefined {
  if (option === undefined || option === false) return undefined;
  if (option === true) return readAnnounced;
  if (typeof option === 'function') return (outcome) => announcedBudgets((option as (outcome: unknown) => unknown)(outcome));
  throw new TypeError(
    expected('rateLimit', 'a boolean, or a function from a value or an error to a RateLimitState, an array of them, or undefined', option),
  );
}

/** What `rateLimit: true` reads: the budgets a try's value or error announces in its headers, if any. */
export function readAnnounced(outcome: unknown): readonly RateLimitState[] | undefined {
  return announcedBudgets(readRateLimits(outcome));
}

/**
 * The budgets a reader's answer holds: one, several or none (`undefined`), the malformed left out, as
 * the built-in reader leaves them out of headers. With none, `undefined`: the try announced nothing.
 */
function announcedBudgets(answer: unknown): readonly RateLimitState[] | undefined {
  const states = (Array.isArray(answer) ? (answer as unknown[]) : [answer]).filter(isRateLimitState);
  return states.length === 0 ? undefined : states;
}

/** The `events` option as one function; an observer's `next` keeps its `this`. */
function resolveEvents(events: unknown): ((event: SlowStartEvent) => void) | undefined {
  if (events === undefined) return undefined;
  if (typeof events === 'function') return events as (event: SlowStartEvent) => void;
  // `Object()` makes `null` an empty object and boxes a primitive, so that any value can be asked for `next`.
  const next: unknown = Reflect.get(Object(events), 'next');
  if (typeof next !== 'function') {
    throw new TypeError(expected('events', 'a function, or an observer with a `next` method (a Subject)', events));
  }
  return (event) => (next as (event: SlowStartEvent) => void).call(events, event);
}

/**
 * The `keys` option, copied so that a later change to the array cannot reach the run: strings and
 * finite numbers, none twice. Also the first task past its end whose key, its index, would be a
 * number of the array too, which only the run can refuse: it alone learns whether that task comes.
 */
function resolveKeys(option: unknown): Pick<ResolvedOptions, 'keys' | 'keyClash'> {
  if (option === undefined) return { keys: undefined, keyClash: undefined };
  // A function's keys are checked as the tasks come: only the run can ask it.
  if (typeof option === 'function') return { keys: option as (index: number) => unknown, keyClash: undefined };
  if (!Array.isArray(option)) {
    throw new TypeError(expected('keys', 'an array of strings and finite numbers, none twice, or a function from an index to one', option));
  }
  const keys = [...(option as unknown[])];
  // A Set tells keys apart as the state's Map does; `indexOf` finds the first of a pair (no NaN gets that far).
  const seen = new Set<unknown>();
  let clash: { index: number; position: number } | undefined;
  for (let position = 0; position < keys.length; position++) {
    const key = keys[position];
    if (typeof key !== 'string' && typeof key !== 'number') {
      throw new TypeError(expected(`keys[${position}]`, 'a string or a finite number', key));
    }
    if (typeof key === 'number') {
      if (!Number.isFinite(key)) throw new RangeError(expected(`keys[${position}]`, 'a string or a finite number', key));
      // Only a whole number from the array's length on is the index of a task past its end.
      if (Number.isInteger(key) && key >= keys.length && key < (clash?.index ?? Infinity)) clash = { index: key, position };
    }
    // One lookup for a key: a Set that does not grow held it already.
    if (seen.add(key).size === position) {
      throw new RangeError(expected(`keys[${position}]`, `a key of its own (\`keys[${keys.indexOf(key)}]\` is the same key)`, key));
    }
  }
  return { keys: keys as TaskKey[], keyClash: clash && clashWith(clash.index, clash.position) };
}

/**
 * The `resume` option: a checkpoint, or `{ checkpoint, changedSource, freshFor }`. `undefined` and
 * `null` resume nothing, so that what a store returns when it holds nothing can be passed as it is.
 */
function resolveResume(option: unknown): ResolvedResume | undefined {
  if (option === undefined || option === null) return undefined;
  if (typeof option !== 'object' || !('checkpoint' in option)) {
    return { checkpoint: readCheckpoint(option), changedSource: false, freshFor: DEFAULT_FRESH_FOR };
  }
  const { checkpoint, changedSource = 'refuse', freshFor = DEFAULT_FRESH_FOR } = option as Record<string, unknown>;
  if (changedSource !== 'refuse' && changedSource !== 'accept') {
    throw new TypeError(expected('resume.changedSource', "'refuse' or 'accept'", changedSource));
  }
  if (typeof freshFor !== 'number' || !(freshFor >= 0)) {
    throw new TypeError(expected('resume.freshFor', 'a number of milliseconds >= 0', freshFor));
  }
  if (checkpoint === undefined || checkpoint === null) return undefined;
  return { checkpoint: readCheckpoint(checkpoint, 'resume.checkpoint'), changedSource: changedSource === 'accept', freshFor };
}

/** The refusal of task `index`, whose key, its index, is `keys[position]` already. */
function clashWith(index: number, position: number): Refusal {
  const rule = `a key of its own (task ${index} is past the end of \`keys\`, so its key is its index, the same key)`;
  return { index, reason: () => new RangeError(expected(`keys[${position}]`, rule, index)) };
}

/** The numeric options, validated in order: `maxBatchSize`'s rule names `initialBatchSize`'s value. */
function resolveSizes(
  options: object,
): Pick<ResolvedOptions, 'initialBatchSize' | 'growthFactor' | 'maxBatchSize' | 'concurrency' | 'flushAfter'> {
  const initialBatchSize = numberOption(
    options,
    'initialBatchSize',
    1,
    'an integer >= 1',
    (value) => Number.isInteger(value) && value >= 1,
  );
  const growthFactor = numberOption(options, 'growthFactor', 2, 'a finite number >= 1', (value) => Number.isFinite(value) && value >= 1);
  const maxBatchSize = numberOption(
    options,
    'maxBatchSize',
    Infinity,
    `an integer >= \`initialBatchSize\` (${initialBatchSize}) or Infinity`,
    (value) => value === Infinity || (Number.isInteger(value) && value >= initialBatchSize),
  );
  const concurrency = numberOption(
    options,
    'concurrency',
    Infinity,
    'an integer >= 1 or Infinity',
    (value) => value === Infinity || (Number.isInteger(value) && value >= 1),
  );
  const flushAfter = numberOption(
    options,
    'flushAfter',
    undefined,
    `a finite number of milliseconds from 0 to ${MAX_TIMER_DELAY}`,
    (value) => value >= 0 && value <= MAX_TIMER_DELAY,
  );
  return { initialBatchSize, growthFactor, maxBatchSize, concurrency, flushAfter };
}

/** What RxJS itself checks for: `schedule` and `now` methods, on an object or a function. */
function isSchedulerLike(value: unknown): value is SchedulerLike {
  const candidate = value as Partial<SchedulerLike> | null | undefined;
  return typeof candidate?.schedule === 'function' && typeof candidate.now === 'function';
}

function numberOption<D extends number | undefined>(
  options: object,
  name: keyof BatchPacingOptions,
  fallback: D,
  rule: string,
  isValid: (value: number) => boolean,
): number | D {
  const value: unknown = (options as BatchPacingOptions)[name];
  if (value === undefined) {
    return fallback;
  }
  if (typeof value !== 'number') {
    throw new TypeError(expected(name, rule, value));
  }
  if (!isValid(value)) {
    throw new RangeError(expected(name, rule, value));
  }
  return value;
}
