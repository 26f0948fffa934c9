import type { SchedulerLike } from 'rxjs';
import type { EventsObserver, SlowStartEvent, TaskKey } from './events.js';
import { expected } from './expected.js';
import { rateLimit as readRateLimit, type RateLimitState } from './rate-limit.js';
import { resolveRetry, type ResolvedRetry, type RetryOptions } from './retry/retry-options.js';
import type { Refusal } from './run/intake.js';
import { MAX_TIMER_DELAY } from './timer-limit.js';

/**
 * Options of both pacings, shared by `slowStartBatch()` and `slowStart()`. Every option is optional.
 * `T` is the tasks' value type, which the events carry.
 */
export interface CommonOptions<T = unknown> {
  /**
   * How many tasks the first batch holds (Kubernetes' `SlowStartInitialBatchSize`). No batch after a
   * successful one is smaller than this, unless the source runs out or `flushAfter` fires.
   * @default 1
   */
  initialBatchSize?: number;
  /**
   * How much a batch may grow after it succeeded: the next batch holds
   * `ceil(size * growthFactor)` tasks, where `size` is the batch that ran. `1` gives fixed-size batches.
   * @default 2
   */
  growthFactor?: number;
  /**
   * The largest batch. Must be at least `initialBatchSize`.
   * @default Infinity
   */
  maxBatchSize?: number;
  /**
   * How many tasks of a batch are subscribed at once. The next batch still waits for the whole
   * current batch, so a small `concurrency` makes every batch take longer.
   * @default Infinity (the whole batch at once)
   */
  concurrency?: number;
  /**
   * The scheduler for `flushAfter`'s timers, and the clock that measures how long a factory has
   * waited. Pass a `TestScheduler` to test in virtual time. Tasks themselves are never scheduled.
   * @default asyncScheduler
   */
  scheduler?: SchedulerLike;
  /**
   * Throttles (a 429, a 503, a dropped connection) slow the run down instead of stopping it: a
   * transient failure drops the pace, pauses every start for the backoff or the server's
   * `Retry-After`, retries the task ahead of every new one, and the pace ramps up again.
   * @default undefined (every failure stops the run)
   */
  retry?: RetryOptions;
  /**
   * Paces the starts by the rate-limit budget a server announces on its responses. `true` reads
   * each try's value and error with `rateLimit()`: a fetch `Response`, Angular's `HttpResponse` (with
   * `observe: 'response'`) or `HttpErrorResponse`, an error carrying a `response`. A function is given
   * the value or the error and returns the budget, or `undefined` for none. The run then starts no more
   * than its share of what remains before the reset, at once while the share lasts, its share being what
   * it can tell of other clients from how fast the budget falls; after a reset, one try hears where the
   * new window stands before the rest start. It only ever starts a task later than it would without, and
   * before the first announcement it changes nothing.
   * @default undefined (no announcement is read)
   */
  rateLimit?: boolean | ((outcome: unknown) => RateLimitState | undefined);
  /**
   * Told of everything the run does, as it happens: each task received, started, succeeded, failed,
   * throttled, abandoned, cancelled or skipped, each pause, change of pace and result, and the end
   * (cancelled too, with what a new run needs to finish the work). A `Subject`, any `Observer`, or a
   * function; only `next` is called. Pipe it through `slowStartState()` for a live state. The events
   * come from the run the subscription drives: nothing starts twice. Without it, a run reports nothing
   * and pays nothing for it.
   * @default undefined (nothing reported)
   */
  events?: EventsObserver<T>;
  /**
   * The key each task's events carry, by index: an item's id, say, so that events can be tied to items,
   * across resumed runs too. A task beyond the array has its index as its key.
   *
   * Keys are unique within a run, as a `Map` tells them apart: `1` and `'1'` are two keys, `0`
   * and `-0` one. A key given twice is a `RangeError` when `slowStart()` or `slowStartBatch()` is
   * called, naming the key and both positions, and so is a number that is not finite (`NaN` is no key
   * of its own, and JSON keeps none of them). A number of the array that a task past its end would
   * have as its index (`['a', 2]`, and a third task) cannot be refused before that task comes: when it
   * does, the run fails as when the source errors. What runs finishes, nothing more starts or is taken
   * from the source, and the stream errors with a `RangeError` that names the key, after the last
   * result. That task and what follows it are not the run's: no events, not in `remaining` or
   * `unfinished`.
   * @default undefined (each task's key is its index)
   */
  keys?: readonly TaskKey[];
}

/**
 * Kubernetes' pacing, the default: batches that grow after each success, each starting only when the
 * whole previous batch has settled, and none after a batch with a failure.
 */
export interface BatchPacingOptions<T = unknown> extends CommonOptions<T> {
  /**
   * `'batch'`: a batch starts only when the whole previous batch has settled, exactly as Kubernetes
   * does, and a result is a batch. `'window'`: see {@link WindowPacingOptions}.
   * @default 'batch'
   */
  pacing?: 'batch';
  /**
   * Milliseconds after which a batch starts with the factories that are waiting, even if fewer than
   * the batch size have arrived. Useful with slow sources, such as user actions. A batch cut short
   * this way proves only its own size: growth starts again from the size that ran. At most
   * 2147483647 (2^31 - 1), the longest delay a timer can have.
   * @default undefined (wait until the batch is full or the source completes)
   */
  flushAfter?: number;
}

/**
 * Batch pacing without the barrier: never more tasks in flight than batch pacing would allow, but a
 * task starts as soon as there is room instead of waiting for the whole previous batch.
 */
export interface WindowPacingOptions<T = unknown> extends CommonOptions<T> {
  /**
   * `'window'`: a task starts as soon as the bound batch pacing keeps allows it, without waiting for
   * the slowest task of a batch. While the successes are at least `S(k)` and fewer than `S(k+1)` (the
   * sums of the batch sizes 1, 2, 4, ...), at most `s(k)` tasks are in flight. Results still come in
   * source order, grouped by the batch sizes batch pacing would use.
   */
  pacing: 'window';
  /** Not with window pacing: there are no batches to flush. */
  flushAfter?: undefined;
}

/**
 * Options of `slowStartBatch()` and `slowStart()`: {@link BatchPacingOptions} (the default) or
 * {@link WindowPacingOptions}.
 */
export type SlowStartOptions<T = unknown> = BatchPacingOptions<T> | WindowPacingOptions<T>;

/** {@link SlowStartOptions} after validation, with every default filled in. */
export interface ResolvedOptions {
  readonly initialBatchSize: number;
  readonly growthFactor: number;
  readonly maxBatchSize: number;
  readonly concurrency: number;
  readonly flushAfter: number | undefined;
  readonly pacing: 'batch' | 'window';
  readonly retry: ResolvedRetry | undefined;
  /** What reads a try's value or error for an announced budget; `undefined` when none is read. */
  readonly rateLimit: ((outcome: unknown) => RateLimitState | undefined) | undefined;
  /** Where events go, as a function; `undefined` when nobody listens. */
  readonly events: ((event: SlowStartEvent) => void) | undefined;
  readonly keys: readonly TaskKey[] | undefined;
  /** The first task past the end of `keys` whose index is a key of `keys`: the run refuses it when it comes. */
  readonly keyClash: Refusal | undefined;
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
  'rateLimit',
  'events',
  'keys',
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
      rateLimit: undefined,
      events: undefined,
      keys: undefined,
      keyClash: undefined,
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
  const { pacing, scheduler } = options as { pacing?: unknown; scheduler?: unknown };
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
    rateLimit: resolveRateLimit((options as { rateLimit?: unknown }).rateLimit),
    events: resolveEvents((options as { events?: unknown }).events),
    ...resolveKeys((options as { keys?: unknown }).keys),
    scheduler,
  };
}

/** The `rateLimit` option as the function that reads a try's outcome, if any. */
function resolveRateLimit(option: unknown): ((outcome: unknown) => RateLimitState | undefined) | undefined {
  if (option === undefined || option === false) return undefined;
  if (option === true) return (outcome) => readRateLimit(outcome);
  if (typeof option === 'function') return option as (outcome: unknown) => RateLimitState | undefined;
  throw new TypeError(expected('rateLimit', 'a boolean, or a function from a value or an error to a RateLimitState', option));
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
  if (!Array.isArray(option)) throw new TypeError(expected('keys', 'an array of strings and finite numbers, none twice', option));
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
