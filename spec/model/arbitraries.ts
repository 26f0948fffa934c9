/**
 * fast-check arbitraries for slow-start scenarios.
 *
 * Times follow one rule so that no two events whose order matters can fall on the same virtual instant:
 * source items arrive at multiples of 4, `flushAfter` is 1 more than a multiple of 4 (so a flush timer
 * fires at 4k + 1), an unsubscription happens at 4k + 2 and a source error at 4k + 3, and task delays are
 * multiples of 4 (a task ends in the same class as its batch started). Ties that remain (a task ending
 * when an item arrives, the source completing or a flush timer firing) lead to the same batches whichever
 * runs first; ties between tasks are ordered exactly like RxJS' `VirtualTimeScheduler`, and the model
 * does the same.
 */
import fc from 'fast-check';
import type { Scenario, ScenarioOptions, SourceKind, TaskKind } from './harness.js';
import type { UnsubscribePlan } from './slow-start-model.js';

const delay = fc.oneof(
  fc.constant(null),
  fc.integer({ min: 0, max: 10 }).map((k) => 4 * k),
);

/** Reasons of any kind, `undefined` and `null` included (§4). */
export const reason: fc.Arbitrary<unknown> = fc.oneof(
  fc.constant(undefined),
  fc.constant(null),
  fc.integer(),
  fc.string({ maxLength: 5 }),
  fc.string({ maxLength: 5 }).map((m) => new Error(m)),
  fc.constant(0),
  fc.constant(false),
  fc.constant(''),
);

/** Values: numbers, `undefined`, `null` and objects, so a wrong value is told apart by identity. */
const value: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 4, arbitrary: fc.integer() },
  { weight: 1, arbitrary: fc.constant(undefined) },
  { weight: 1, arbitrary: fc.constant(null) },
  { weight: 2, arbitrary: fc.integer().map((id) => ({ id })) },
);
/** 0, 1 or several values. */
const values = fc.oneof(
  fc.constant([] as unknown[]),
  fc.array(value, { minLength: 1, maxLength: 1 }),
  fc.array(value, { minLength: 2, maxLength: 4 }),
);

export const successfulTask: fc.Arbitrary<TaskKind> = fc.oneof(
  { weight: 5, arbitrary: fc.record({ kind: fc.constant('observable' as const), values, delay, valuesEarly: fc.boolean() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('array' as const), values }) },
  {
    weight: 2,
    arbitrary: fc.record({ kind: fc.constant('promise' as const), ok: fc.constant(true), valueOrReason: value, delay }),
  },
);

export const failingTask: fc.Arbitrary<TaskKind> = fc.oneof(
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('observableError' as const), valuesBefore: values, reason, delay }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('promise' as const), ok: fc.constant(false), valueOrReason: reason, delay }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('throw' as const), reason }) },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('notInput' as const),
      // Strings are iterables, so they are valid `ObservableInput`s and not used here.
      returned: fc.constantFrom<unknown>(undefined, null, 0, 42, true, {}, { then: 1 }),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({ kind: fc.constant('notFunction' as const), item: fc.constantFrom<unknown>(undefined, null, 42, {}, 'task') }),
  },
);

export const anyTask = fc.oneof({ weight: 3, arbitrary: successfulTask }, { weight: 1, arbitrary: failingTask });

/**
 * Task lists from 0 to a few thousand. Long lists are a repeating pattern of successful tasks with a
 * few arbitrary tasks (often failures) at arbitrary positions, so they stay cheap to generate and to
 * shrink while still reaching later, larger batches.
 */
export const tasksOf = (anyTask: fc.Arbitrary<TaskKind>): fc.Arbitrary<TaskKind[]> =>
  fc.oneof(
    { weight: 6, arbitrary: fc.array(anyTask, { maxLength: 16 }) },
    {
      weight: 4,
      arbitrary: fc
        .record({
          // A few thousand tasks in about one scenario in thirty: enough to reach batches of 1,024 and
          // more with every kind of source, cheap enough to run thousands of scenarios.
          count: fc.oneof(
            { weight: 10, arbitrary: fc.integer({ min: 0, max: 200 }) },
            { weight: 1, arbitrary: fc.integer({ min: 200, max: 3000 }) },
          ),
          pattern: fc.array(successfulTask, { minLength: 1, maxLength: 6 }),
          overrides: fc.array(fc.record({ at: fc.nat(), task: anyTask }), { maxLength: 3 }),
        })
        .map(({ count, pattern, overrides }) => {
          const list = Array.from({ length: count }, (_, i) => pattern[i % pattern.length]);
          for (const o of overrides) if (count > 0) list[o.at % count] = o.task;
          return list;
        }),
    },
  );

export const options: fc.Arbitrary<ScenarioOptions> = fc
  .record(
    {
      initialBatchSize: fc.oneof(
        { weight: 4, arbitrary: fc.integer({ min: 1, max: 4 }) },
        { weight: 1, arbitrary: fc.integer({ min: 1, max: 40 }) },
      ),
      growthFactor: fc.oneof(
        fc.constantFrom(1, 1.5, 2, 3),
        fc.integer({ min: 100, max: 400 }).map((hundredths) => hundredths / 100),
        fc.double({ min: 1, max: 4, noNaN: true, noDefaultInfinity: true }),
      ),
      extraMax: fc.oneof(fc.constant(Infinity), fc.integer({ min: 0, max: 60 })),
      concurrency: fc.oneof(fc.constant(Infinity), fc.integer({ min: 1, max: 8 })),
      flushAfter: fc.integer({ min: 0, max: 12 }).map((k) => 4 * k + 1),
      // The default, written out: it must change nothing.
      pacing: fc.constant('batch' as const),
    },
    { requiredKeys: [] },
  )
  .map(({ extraMax, ...rest }) => {
    const o: ScenarioOptions = { ...rest };
    if (extraMax !== undefined) o.maxBatchSize = extraMax === Infinity ? Infinity : (rest.initialBatchSize ?? 1) + extraMax;
    return o;
  });

/** A subject fed item groups at multiples of 4 that then completes (4k), errors (4k + 3) or stays open. */
const subjectSource = (count: number, largestGroup: number): fc.Arbitrary<SourceKind> =>
  fc
    .record({
      groups: fc.array(fc.record({ gap: fc.integer({ min: 0, max: 5 }), size: fc.integer({ min: 1, max: largestGroup }) }), {
        minLength: 1,
        maxLength: 5,
      }),
      end: fc.oneof(
        { weight: 3, arbitrary: fc.record({ kind: fc.constant('complete' as const), gap: fc.integer({ min: 0, max: 10 }) }) },
        {
          weight: 1,
          arbitrary: fc.record({
            kind: fc.constant('error' as const),
            gap: fc.integer({ min: 0, max: 10 }),
            error: reason.filter((r) => r !== undefined),
          }),
        },
        { weight: 1, arbitrary: fc.record({ kind: fc.constant('never' as const) }) },
      ),
    })
    .map(({ groups, end }) => {
      const arrivals: { time: number; count: number }[] = [];
      let time = 0;
      for (let delivered = 0, g = 0; delivered < count; g++) {
        const group = groups[g % groups.length];
        time += 4 * group.gap;
        const size = Math.min(group.size, count - delivered);
        arrivals.push({ time, count: size });
        delivered += size;
      }
      const source: SourceKind =
        end.kind === 'never'
          ? { kind: 'subject', arrivals, end }
          : end.kind === 'complete'
            ? { kind: 'subject', arrivals, end: { kind: 'complete', time: time + 4 * end.gap } }
            : { kind: 'subject', arrivals, end: { kind: 'error', time: time + 4 * end.gap + 3, error: end.error } };
      return source;
    });

const unsubscribe: fc.Arbitrary<UnsubscribePlan> = fc.oneof(
  { weight: 3, arbitrary: fc.constant({ kind: 'never' as const }) },
  { weight: 2, arbitrary: fc.integer({ min: 0, max: 120 }).map((k) => ({ kind: 'at' as const, time: 4 * k + 2 })) },
  { weight: 1, arbitrary: fc.integer({ min: 0, max: 6 }).map((emission) => ({ kind: 'inNext' as const, emission })) },
);

/** Options for window pacing (§9): the same numbers, and no `flushAfter`, which it refuses. */
export const windowOptions: fc.Arbitrary<ScenarioOptions> = options.map((o) => {
  const w: ScenarioOptions = { ...o, pacing: 'window' };
  delete w.flushAfter;
  return w;
});

export const tasks = tasksOf(anyTask);

/** `largestGroup`: the most items a subject delivers at one instant. */
const operatorScenarioWith = (options: fc.Arbitrary<ScenarioOptions>, tasks = tasksOf(anyTask), largestGroup = 4): fc.Arbitrary<Scenario> =>
  fc
    .record({ options, tasks, unsubscribe, sourceKind: fc.constantFrom('array', 'generator', 'subject', 'subject') })
    .chain(({ options, tasks, unsubscribe, sourceKind }) =>
      (sourceKind === 'subject' ? subjectSource(tasks.length, largestGroup) : fc.constant<SourceKind>({ kind: sourceKind })).map(
        (source): Scenario => ({
          api: 'operator',
          options,
          tasks,
          source,
          unsubscribe,
        }),
      ),
    );

const slowStartScenarioWith = (options: fc.Arbitrary<ScenarioOptions>, tasks = tasksOf(anyTask)): fc.Arbitrary<Scenario> =>
  fc
    .record({ options, tasks, unsubscribe, sourceKind: fc.constantFrom('array' as const, 'generator' as const) })
    .map(({ options, tasks, unsubscribe, sourceKind }): Scenario => ({
      api: 'slowStart',
      options,
      tasks,
      source: { kind: sourceKind },
      unsubscribe,
    }));

export const operatorScenario = operatorScenarioWith(options);
export const slowStartScenario = slowStartScenarioWith(options);
// Window pacing starts several tasks at once whenever the bound grows: larger bursts reach that more often.
export const windowOperatorScenario = operatorScenarioWith(windowOptions, tasksOf(anyTask), 12);
export const windowSlowStartScenario = slowStartScenarioWith(windowOptions);

/** Window pacing over tasks that all succeed, from any source (a source may still error). */
export const windowScenarioWhereAllSucceed = fc.oneof(
  operatorScenarioWith(windowOptions, tasksOf(successfulTask), 12),
  slowStartScenarioWith(windowOptions, tasksOf(successfulTask)),
);
