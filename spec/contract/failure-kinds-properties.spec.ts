/**
 * §14 on generated scenarios: tasks whose tries succeed or fail as a throttle, a transient failure, an
 * item or fatally, in both pacings, with bounds on both sides of each option, run in virtual time with
 * their events. The rules checked on every run:
 * - every task received has exactly one final account (and an array's tail never read, one too), the
 *   end's counts add them up, and `unfinished` lists every task that did not succeed;
 * - a transient failure never pauses the run nor drops the pace: without throttles there is no `paused`
 *   event and no drop, and no try starts before the `retryAt` its failure promised;
 * - item failures never stop a run below the bound: a run fails only on a fatal try, a task out of tries,
 *   or the `maxConsecutiveItemFailures`-th item failure in a row with no success between (once it has
 *   stopped, the tries still in flight are not classified: they fail as the run has);
 * - the pace drops only right after a throttle, once per throttle at most, to `initialBatchSize` (§10);
 * - no more tries are in flight than `concurrency`, nor than the pace allows (§9), and each task's tries
 *   are numbered 1, 2, 3, ...
 */
import fc from 'fast-check';
import { from, map, mergeMap, throwError, timer, VirtualTimeScheduler } from 'rxjs';
import { slowStart, slowStartBatch, type SlowStartEvent, type SlowStartOptions, type TaskContext, type TaskFactory } from '../../src/index';
import { propertyRuns } from '../support/property-runs.js';

const runs = propertyRuns(__filename);

type Kind = 'ok' | 'throttle' | 'transient' | 'item' | 'fatal';
interface Step {
  readonly kind: Kind;
  readonly ms: number;
}
interface Scenario {
  readonly api: 'slowStart' | 'operator';
  readonly options: {
    pacing: 'batch' | 'window';
    initialBatchSize: number;
    growthFactor: number;
    concurrency: number;
    maxAttempts: number;
    delay: number;
    maxConsecutiveItemFailures: number;
  };
  readonly tasks: Step[][];
}

/** A failed try, with the kind the scenario gave it. */
class KindError extends Error {
  constructor(
    readonly kind: Kind,
    readonly index: number,
    readonly attempt: number,
  ) {
    super(`${kind} of task ${index}, try ${attempt}`);
  }
}

const step = (kinds: readonly Kind[]): fc.Arbitrary<Step> =>
  fc.record({
    kind: fc.oneof(
      { weight: 6, arbitrary: fc.constant<Kind>('ok') },
      ...kinds.filter((kind) => kind !== 'ok').map((kind) => ({ weight: kind === 'fatal' ? 1 : 2, arbitrary: fc.constant(kind) })),
    ),
    ms: fc.integer({ min: 0, max: 30 }),
  });

const scenario = (kinds: readonly Kind[]): fc.Arbitrary<Scenario> =>
  fc.record({
    api: fc.constantFrom('slowStart' as const, 'operator' as const),
    options: fc.record({
      pacing: fc.constantFrom('batch' as const, 'window' as const),
      initialBatchSize: fc.integer({ min: 1, max: 3 }),
      growthFactor: fc.integer({ min: 1, max: 3 }),
      concurrency: fc.oneof(fc.integer({ min: 1, max: 4 }), fc.constant(Infinity)),
      maxAttempts: fc.integer({ min: 1, max: 4 }),
      delay: fc.integer({ min: 0, max: 40 }),
      maxConsecutiveItemFailures: fc.oneof(fc.integer({ min: 1, max: 4 }), fc.constant(Infinity)),
    }),
    tasks: fc.array(fc.array(step(kinds), { minLength: 1, maxLength: 4 }), { minLength: 1, maxLength: 12 }),
  });

interface Observed {
  readonly events: SlowStartEvent[];
  readonly starts: { index: number; attempt: number; at: number; inFlight: number }[];
  readonly outcome: 'completed' | 'errored' | 'open';
}

function simulate(s: Scenario): Observed {
  const scheduler = new VirtualTimeScheduler();
  const events: SlowStartEvent[] = [];
  const starts: Observed['starts'] = [];
  let inFlight = 0;
  let outcome: Observed['outcome'] = 'open';
  const factories = s.tasks.map((steps, index): TaskFactory<number> => ({ attempt }: TaskContext) => {
    starts.push({ index, attempt, at: scheduler.now(), inFlight: ++inFlight });
    const { kind, ms } = steps[Math.min(attempt, steps.length) - 1];
    const settle = timer(ms, scheduler).pipe(map(() => inFlight--));
    return kind === 'ok'
      ? settle.pipe(map(() => index))
      : settle.pipe(mergeMap(() => throwError(() => new KindError(kind, index, attempt))));
  });
  const { pacing, initialBatchSize, growthFactor, concurrency } = s.options;
  const options: SlowStartOptions<number> = {
    pacing,
    initialBatchSize,
    growthFactor,
    concurrency,
    scheduler,
    events: (event) => events.push(event),
    retry: {
      when: (error) => (error as KindError).kind as Exclude<Kind, 'ok'>,
      maxAttempts: s.options.maxAttempts,
      delay: s.options.delay,
      maxConsecutiveItemFailures: s.options.maxConsecutiveItemFailures,
    },
  };
  const output = s.api === 'slowStart' ? slowStart(factories, options) : from(factories).pipe(slowStartBatch(options));
  output.subscribe({ error: () => (outcome = 'errored'), complete: () => (outcome = 'completed') });
  scheduler.flush();
  return { events, starts, outcome };
}

const finalTypes = new Set(['succeeded', 'failed', 'abandoned', 'cancelled', 'skipped']);

function checkRules(s: Scenario, { events, starts, outcome }: Observed): void {
  const end = events.at(-1);
  if (end?.type !== 'end') throw new Error(`the run did not end: ${outcome}`);
  expect(outcome).toBe(end.how === 'completed' ? 'completed' : 'errored');

  // Every task received has exactly one final account, and the end adds them up.
  const received = events.flatMap((event) => (event.type === 'received' ? [event.index] : []));
  const finals = events.filter((event) => finalTypes.has(event.type)) as (SlowStartEvent & { index: number })[];
  // An array's tail that was never read is skipped without being received.
  const accounted = finals.map((event) => event.index).sort((a, b) => a - b);
  expect(new Set(accounted).size).toBe(accounted.length);
  for (const index of received) expect(accounted).toContain(index);
  const count = (type: string, kind?: string) =>
    finals.filter((event) => event.type === type && (kind === undefined || (event as { kind?: string }).kind === kind)).length;
  expect([end.succeeded, end.failed, end.itemFailed, end.abandoned, end.cancelled, end.skipped]).toEqual([
    count('succeeded'),
    count('failed', 'fatal'),
    count('failed', 'item'),
    count('abandoned'),
    count('cancelled'),
    count('skipped'),
  ]);
  const succeeded = new Set(finals.filter((event) => event.type === 'succeeded').map((event) => event.index));
  const unsucceeded = accounted.filter((index) => !succeeded.has(index));
  expect([...end.unfinishedKeys].sort((a, b) => Number(a) - Number(b))).toEqual(unsucceeded);

  // Tries are numbered 1, 2, 3, ... per task, and no more are in flight than `concurrency`.
  for (const index of new Set(starts.map((start) => start.index))) {
    const attempts = starts.filter((start) => start.index === index).map((start) => start.attempt);
    expect(attempts).toEqual(attempts.map((_, i) => i + 1));
  }
  for (const start of starts) expect(start.inFlight).toBeLessThanOrEqual(s.options.concurrency);

  // §9's bound, in the order the run reports: in window pacing a try starts only while fewer than the
  // pace's limit are in flight; in batch pacing no batch holds more than the largest limit announced.
  let inFlight = 0;
  let limit = 0;
  let largest = 0;
  for (const event of events) {
    if (event.type === 'pace') {
      limit = event.limit;
      largest = Math.max(largest, limit);
    } else if (event.type === 'started') {
      inFlight++;
      expect(inFlight).toBeLessThanOrEqual(Math.min(s.options.concurrency, s.options.pacing === 'window' ? limit : largest));
    } else if (event.type === 'succeeded' || event.type === 'failed' || event.type === 'throttled' || event.type === 'retrying') {
      inFlight--;
    }
  }

  // No try starts before the `retryAt` its task's last failure promised.
  for (const event of events) {
    if (event.type !== 'retrying' && event.type !== 'throttled') continue;
    const next = starts.find((start) => start.index === event.index && start.attempt === event.attempt + 1);
    if (next !== undefined) expect(next.at).toBeGreaterThanOrEqual(event.retryAt);
  }

  // §10's drop: the pace drops only on a throttle, at most once per one, and starts again from
  // initialBatchSize.
  const drops = events.filter((event) => event.type === 'pace' && event.dropped);
  expect(drops.length).toBeLessThanOrEqual(events.filter((event) => event.type === 'throttled').length);
  for (const drop of drops) if (drop.type === 'pace') expect(drop.limit).toBe(s.options.initialBatchSize);
  // Each drop is told right after the throttle that caused it, and the pause that throttle began.
  events.forEach((event, at) => {
    if (event.type !== 'pace' || !event.dropped) return;
    const before = events.slice(0, at).filter((earlier) => earlier.type !== 'paused');
    expect(before.at(-1)?.type).toBe('throttled');
  });

  // A transient failure never pauses the run nor drops the pace.
  if (!events.some((event) => event.type === 'throttled')) {
    expect(events.filter((event) => event.type === 'paused')).toEqual([]);
    expect(events.filter((event) => event.type === 'pace' && event.dropped)).toEqual([]);
  }

  // Item failures never stop a run below the bound; an item failure is the kind the try had.
  let itemsInARow = 0;
  let stopped = false;
  for (const event of events) {
    if (event.type === 'succeeded') itemsInARow = 0;
    // Once the run has stopped, a failure is not classified: the task has failed, and is told so.
    if (event.type !== 'failed' || stopped) continue;
    const reason = event.reason as KindError | Error;
    if (event.kind === 'item') {
      itemsInARow++;
      expect(itemsInARow).toBeLessThan(s.options.maxConsecutiveItemFailures);
      expect((reason as KindError).kind).toBe('item');
      continue;
    }
    stopped = true;
    if (reason instanceof KindError) {
      const outOfTries = (reason.kind === 'throttle' || reason.kind === 'transient') && reason.attempt === s.options.maxAttempts;
      if (!outOfTries && reason.kind !== 'fatal') throw new Error(`a ${reason.kind} failure was fatal on try ${reason.attempt}`);
    } else {
      // The item failure that reached the bound.
      expect((reason.cause as KindError).kind).toBe('item');
      expect(itemsInARow + 1).toBe(s.options.maxConsecutiveItemFailures);
    }
  }
}

describe('§14: the four kinds on generated scenarios', () => {
  it(
    `keeps the rules on ${runs.numRuns} generated scenarios with every kind (both pacings, arrays and the operator)`,
    () => {
      fc.assert(
        fc.property(scenario(['ok', 'throttle', 'transient', 'item', 'fatal']), (s) => checkRules(s, simulate(s))),
        runs.params(),
      );
    },
    runs.timeout,
  );

  it(
    `keeps the rules on ${runs.numRuns} generated scenarios without throttles: no pause, no drop`,
    () => {
      fc.assert(
        fc.property(scenario(['ok', 'transient', 'item']), (s) => checkRules(s, simulate(s))),
        runs.params(),
      );
    },
    runs.timeout,
  );
});
