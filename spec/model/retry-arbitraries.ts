/**
 * fast-check arbitraries for `retry` scenarios (§10).
 *
 * Times follow the rule of arbitraries.ts (items at 4k, `flushAfter` 4k + 1, an unsubscription at
 * 4k + 2, a source error at 4k + 3, task delays multiples of 4). Pauses are any whole number of ms from
 * 0 to 20, so a pause may end at the same instant as anything else; both the model and the scheduler
 * order such ties by creation, and the scenario says when each timer is created.
 *
 * Every failing try has a reason of its own (an `Error` naming the task and the try), so a `rejected`
 * outcome shows which try it comes from; `when` answers per task and try from the plan; `delay` is a
 * number or a table (a function of the attempt), never random.
 */
import fc from 'fast-check';
import type { ScenarioOptions } from './harness.js';
import type { RetryScenarioSpec, RetrySourceKind, RetryTaskKind, TryKind } from './retry-harness.js';
import type { DelayPlan, RetryPlan, Verdict } from './retry-model.js';
import type { UnsubscribePlan } from './slow-start-model.js';

const taskDelay = fc.oneof(
  { weight: 1, arbitrary: fc.constant(null) },
  { weight: 3, arbitrary: fc.integer({ min: 0, max: 10 }).map((k) => 4 * k) },
);
const pauseMs = fc.integer({ min: 0, max: 20 });

const verdict: fc.Arbitrary<Verdict> = fc.oneof(
  { weight: 16, arbitrary: fc.constant({ kind: 'transient' as const }) },
  { weight: 8, arbitrary: pauseMs.map((ms) => ({ kind: 'after' as const, ms })) },
  { weight: 1, arbitrary: fc.constant({ kind: 'fatal' as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'throws' as const, error: null }) },
  {
    weight: 1,
    arbitrary: fc
      .constantFrom<unknown>(-1, NaN, Infinity, 'yes', null, { kind: 'soon' }, {})
      .map((returned) => ({ kind: 'invalid' as const, returned })),
  },
);

type Shape =
  | { ok: true; kind: 'observable' | 'promise'; delay: number | null }
  | { ok: false; kind: 'observableError' | 'promise' | 'throw'; delay: number | null; verdict: Verdict };

const success: fc.Arbitrary<Shape> = fc.record({
  ok: fc.constant(true as const),
  kind: fc.constantFrom('observable' as const, 'observable' as const, 'promise' as const),
  delay: taskDelay,
});
const failure: fc.Arbitrary<Shape> = fc.record({
  ok: fc.constant(false as const),
  kind: fc.constantFrom('observableError' as const, 'observableError' as const, 'promise' as const, 'throw' as const),
  delay: taskDelay,
  verdict,
});

/** The tries of one task: mostly one success; some fail a few times first; a few never succeed. */
const shapes: fc.Arbitrary<Shape[]> = fc.oneof(
  { weight: 14, arbitrary: success.map((s) => [s]) },
  { weight: 5, arbitrary: fc.tuple(fc.array(failure, { minLength: 1, maxLength: 3 }), success).map(([f, s]) => [...f, s]) },
  { weight: 1, arbitrary: fc.array(failure, { minLength: 1, maxLength: 3 }) },
);

/** Gives every try its reason and value, and every throwing `when` its error, as objects named after the task. */
function materialise(index: number, list: Shape[]): RetryTaskKind {
  const tries = list.map((shape, k): TryKind => {
    const name = `task ${index} try ${k + 1}`;
    if (shape.ok) {
      return shape.kind === 'observable'
        ? { kind: 'observable', value: { value: name }, delay: shape.delay }
        : { kind: 'promise', ok: true, value: { value: name }, delay: shape.delay };
    }
    const v: Verdict = shape.verdict.kind === 'throws' ? { kind: 'throws', error: new Error(`when threw for ${name}`) } : shape.verdict;
    const reason = new Error(name);
    if (shape.kind === 'throw') return { kind: 'throw', reason, verdict: v };
    if (shape.kind === 'promise') return { kind: 'promise', ok: false, reason, delay: shape.delay, verdict: v };
    return { kind: 'observableError', reason, delay: shape.delay, verdict: v };
  });
  return { tries };
}

const taskList: fc.Arbitrary<RetryTaskKind[]> = fc
  .oneof(
    { weight: 6, arbitrary: fc.array(shapes, { maxLength: 16 }) },
    {
      weight: 3,
      arbitrary: fc
        .record({
          count: fc.integer({ min: 0, max: 120 }),
          pattern: fc.array(shapes, { minLength: 1, maxLength: 5 }),
        })
        .map(({ count, pattern }) => Array.from({ length: count }, (_, i) => pattern[i % pattern.length])),
    },
    {
      // Long runs of successes with a few throttles: the pace climbs back past the threshold.
      weight: 3,
      arbitrary: fc
        .record({
          count: fc.integer({ min: 10, max: 200 }),
          pattern: fc.array(
            success.map((s) => [s]),
            { minLength: 1, maxLength: 4 },
          ),
          overrides: fc.array(fc.record({ at: fc.nat(), tries: shapes }), { minLength: 1, maxLength: 3 }),
        })
        .map(({ count, pattern, overrides }) => {
          const list = Array.from({ length: count }, (_, i) => pattern[i % pattern.length]);
          for (const o of overrides) list[o.at % count] = o.tries;
          return list;
        }),
    },
  )
  .map((list) => list.map((shape, i) => materialise(i, shape)));

const delayPlan: fc.Arbitrary<DelayPlan> = fc.oneof(
  { weight: 4, arbitrary: pauseMs.map((ms) => ({ kind: 'fixed' as const, ms })) },
  { weight: 4, arbitrary: fc.array(pauseMs, { minLength: 1, maxLength: 3 }).map((ms) => ({ kind: 'table' as const, ms })) },
  {
    weight: 1,
    arbitrary: fc
      .record({ ms: fc.array(pauseMs, { minLength: 1, maxLength: 3 }), attempt: fc.integer({ min: 1, max: 3 }) })
      .map(({ ms, attempt }) => ({
        kind: 'table' as const,
        ms,
        throws: { attempt, error: new Error(`delay threw for attempt ${attempt}`) },
      })),
  },
);

const retryPlan: fc.Arbitrary<RetryPlan> = fc
  .record({ maxAttempts: fc.oneof(fc.constant(undefined), fc.integer({ min: 1, max: 5 })), delay: delayPlan })
  .map(({ maxAttempts, delay }) => (maxAttempts === undefined ? { delay } : { maxAttempts, delay }));

const baseOptions = (pacing: 'batch' | 'window'): fc.Arbitrary<ScenarioOptions & { retry: RetryPlan }> =>
  fc
    .record({
      initialBatchSize: fc.oneof(
        { weight: 4, arbitrary: fc.integer({ min: 1, max: 4 }) },
        { weight: 1, arbitrary: fc.integer({ min: 1, max: 12 }) },
      ),
      growthFactor: fc.oneof(
        fc.constantFrom(1, 1.5, 2, 3),
        fc.integer({ min: 100, max: 400 }).map((h) => h / 100),
      ),
      extraMax: fc.oneof(fc.constant(Infinity), fc.integer({ min: 0, max: 30 })),
      concurrency: fc.oneof(fc.constant(Infinity), fc.integer({ min: 1, max: 8 })),
      flush: fc.oneof(
        { weight: 3, arbitrary: fc.constant(undefined) },
        { weight: 1, arbitrary: fc.integer({ min: 0, max: 12 }).map((k) => 4 * k + 1) },
      ),
      retry: retryPlan,
    })
    .map(({ initialBatchSize, growthFactor, extraMax, concurrency, flush, retry }) => {
      const o: ScenarioOptions & { retry: RetryPlan } = { initialBatchSize, growthFactor, concurrency, pacing, retry };
      if (extraMax !== Infinity) o.maxBatchSize = initialBatchSize + extraMax;
      if (pacing === 'batch' && flush !== undefined) o.flushAfter = flush;
      return o;
    });

const subjectSource = (count: number): fc.Arbitrary<RetrySourceKind> =>
  fc
    .record({
      groups: fc.array(fc.record({ gap: fc.integer({ min: 0, max: 5 }), size: fc.integer({ min: 1, max: 8 }) }), {
        minLength: 1,
        maxLength: 5,
      }),
      end: fc.oneof(
        { weight: 4, arbitrary: fc.record({ kind: fc.constant('complete' as const), gap: fc.integer({ min: 0, max: 10 }) }) },
        { weight: 1, arbitrary: fc.record({ kind: fc.constant('error' as const), gap: fc.integer({ min: 0, max: 10 }) }) },
        { weight: 1, arbitrary: fc.record({ kind: fc.constant('never' as const) }) },
      ),
    })
    .map(({ groups, end }): RetrySourceKind => {
      const arrivals: { time: number; count: number }[] = [];
      let time = 0;
      for (let delivered = 0, g = 0; delivered < count; g++) {
        const group = groups[g % groups.length];
        time += 4 * group.gap;
        const size = Math.min(group.size, count - delivered);
        arrivals.push({ time, count: size });
        delivered += size;
      }
      if (end.kind === 'never') return { kind: 'subject', arrivals, end };
      if (end.kind === 'complete') return { kind: 'subject', arrivals, end: { kind: 'complete', time: time + 4 * end.gap } };
      return { kind: 'subject', arrivals, end: { kind: 'error', time: time + 4 * end.gap + 3, error: new Error('the source failed') } };
    });

const unsubscribe: fc.Arbitrary<UnsubscribePlan> = fc.oneof(
  { weight: 4, arbitrary: fc.constant({ kind: 'never' as const }) },
  { weight: 2, arbitrary: fc.integer({ min: 0, max: 60 }).map((k) => ({ kind: 'at' as const, time: 4 * k + 2 })) },
  { weight: 1, arbitrary: fc.integer({ min: 0, max: 5 }).map((emission) => ({ kind: 'inNext' as const, emission })) },
);

export const retryScenario = (pacing: 'batch' | 'window'): fc.Arbitrary<RetryScenarioSpec> =>
  fc
    .record({
      options: baseOptions(pacing),
      tasks: taskList,
      unsubscribe,
      source: fc.constantFrom('array' as const, 'subject' as const, 'subject' as const, 'slowStart' as const),
    })
    .chain(({ options, tasks, unsubscribe, source }) =>
      (source === 'subject' ? subjectSource(tasks.length) : fc.constant<RetrySourceKind>({ kind: 'array' })).map(
        (s): RetryScenarioSpec => ({ api: source === 'slowStart' ? 'slowStart' : 'operator', options, tasks, source: s, unsubscribe }),
      ),
    );

/** Both pacings. */
export const anyRetryScenario = fc.oneof(retryScenario('batch'), retryScenario('window'));

/** Unsubscribing during a pause: some task fails transiently, and the consumer leaves before the run ends. */
export const pauseThenUnsubscribe: fc.Arbitrary<RetryScenarioSpec> = anyRetryScenario
  .filter((s) => s.tasks.some((t) => t.tries.length > 1))
  .chain((s) => fc.integer({ min: 0, max: 20 }).map((k): RetryScenarioSpec => ({ ...s, unsubscribe: { kind: 'at', time: 4 * k + 2 } })));

/** The same scenarios with `retry.learnRate`, whose spacing of starts the model does not know. */
export const withLearnRate = (scenarios: fc.Arbitrary<RetryScenarioSpec>): fc.Arbitrary<RetryScenarioSpec> =>
  scenarios.map((s) => ({ ...s, options: { ...s.options, retry: { ...s.options.retry, learnRate: true } } }));

/** A number for any value, the same every time: which of the generated budgets an outcome announces. */
function hashOf(value: unknown): number {
  let hash = 0;
  for (const char of String(value)) hash = (hash * 31 + char.charCodeAt(0)) | 0;
  return Math.abs(hash);
}

/**
 * The same scenarios with `rateLimit`, whose spacing of starts the model does not know: each try's
 * value or error announces one of a few generated budgets (or none), with a limit and a window or not,
 * chosen by the outcome itself so that a scenario run again announces the same. Their falls and rises
 * make shares below 1, whose tries the pace spreads until the reset.
 */
export const withRateLimit = (scenarios: fc.Arbitrary<RetryScenarioSpec>): fc.Arbitrary<RetryScenarioSpec> =>
  fc
    .tuple(
      scenarios,
      fc.array(
        fc.option(
          fc.record({
            limit: fc.option(fc.integer({ min: 1, max: 16 }), { nil: undefined }),
            remaining: fc.nat(12),
            resetIn: fc.nat(40),
            window: fc.option(fc.constantFrom(10, 40, 1000), { nil: undefined }),
          }),
          { nil: undefined },
        ),
        { minLength: 1, maxLength: 6 },
      ),
    )
    .map(([s, budgets]) => {
      const rateLimit = (outcome: unknown) => budgets[hashOf(outcome) % budgets.length];
      return { ...s, options: { ...s.options, rateLimit } as RetryScenarioSpec['options'] };
    });
