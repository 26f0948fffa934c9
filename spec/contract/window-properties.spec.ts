/**
 * Window pacing (§9), generated scenarios in virtual time:
 *
 * - the reference model on its own: the invariants of §9 for both pacings, and window pacing against
 *   batch pacing where the contract says they must agree;
 * - the operator with `pacing: 'window'` against the model and the invariants (these run once the
 *   operator accepts the option; until then they are skipped).
 *
 * The scenarios come from a seed fixed per commit (spec/support/property-runs.ts): the suite prints it,
 * with the one command that replays its run (`FC_SEED=<seed> FC_NUM_RUNS=<runs> npx jest
 * spec/contract/window-properties.spec.ts`); a failure prints its seed and `path`, and adding
 * `FC_PATH=<path> -t '<property>'` goes straight to its counterexample. `npm run test:explore` tries
 * fresh seeds. Runs per property: 2,000 when `CI` is set, 300 locally (override with FC_NUM_RUNS).
 *
 * Counterexamples: every one the properties found stays in `found` below, a named case that runs on
 * every `npm test` whatever the seed. To add one, replay it, reduce the scenario fast-check printed by
 * hand to what still fails, and append it to `found` as [what went wrong, the scenario], with the
 * section of the contract that decides, in the change that fixes the code.
 */
import fc from 'fast-check';
import { from, map, of, type Observable } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import { slowStart, slowStartBatch, type BatchResult, type SlowStartOptions, type TaskFactory } from '../../src/index.js';
import {
  operatorScenario,
  slowStartScenario,
  windowOperatorScenario,
  windowScenarioWhereAllSucceed,
  windowSlowStartScenario,
} from '../model/arbitraries.js';
import { expectMatchesModel } from '../model/compare.js';
import { operatorHasWindowPacing, runScenario, toModelScenario, traceOfObserved, type Scenario } from '../model/harness.js';
import { checkInvariants, traceOfModel } from '../model/invariants.js';
import { Ramp, simulateSlowStart, type ModelOptions, type ModelScenario, type TaskPlan } from '../model/slow-start-model.js';
import { propertyRuns } from '../support/property-runs.js';

const runs = propertyRuns(__filename);
const { numRuns } = runs;
const { timeout } = runs;

const whenOperatorHasWindowPacing = operatorHasWindowPacing ? describe : describe.skip;

const anyScenario = fc.oneof(operatorScenario, slowStartScenario, windowOperatorScenario, windowSlowStartScenario);

const withPacing = (scenario: ModelScenario, pacing: 'batch' | 'window'): ModelScenario => ({
  ...scenario,
  options: { ...scenario.options, pacing },
});

const succeeds = (value: unknown, settles: TaskPlan['settles'] = { kind: 'sync' }): TaskPlan => ({
  outcome: { ok: true, value },
  settles,
  isFunction: true,
});
const fails = (reason: unknown, settles: TaskPlan['settles'] = { kind: 'sync' }): TaskPlan => ({
  outcome: { ok: false, reason },
  settles,
  isFunction: true,
});
const after = (delay: number): TaskPlan['settles'] => ({ kind: 'timer', delay, viaPromise: false });

function simulate(options: ModelOptions, tasks: TaskPlan[], source: ModelScenario['source'] = { kind: 'sync' }) {
  return simulateSlowStart({ options, tasks, source, unsubscribe: { kind: 'never' }, knows: 'received' });
}

describe('the reference model, window pacing', () => {
  it('keeps the sizes of §2 as its ramp: 1, 2, 4, 8 and the bound after each success', () => {
    const ramp = new Ramp({});
    expect([0, 1, 2, 3].map((k) => ramp.size(k))).toEqual([1, 2, 4, 8]);
    expect([0, 1, 2, 3, 6, 7, 14, 15].map((n) => ramp.bound(n))).toEqual([1, 2, 2, 4, 4, 8, 8, 16]);
    expect(new Ramp({ concurrency: 3 }).bound(7)).toBe(3);
    expect([0, 1, 2, 3, 6, 7].map((i) => ramp.indexOf(i))).toEqual([0, 1, 1, 2, 2, 3]);
  });

  it('starts the next task as soon as the bound has room, not when the batch is done', () => {
    // Task 1 takes 100; batch pacing holds tasks 3 to 6 until it ends, window pacing starts them as tasks succeed.
    const tasks = [succeeds('a', after(4)), succeeds('b', after(100)), succeeds('c', after(4))];
    for (let i = 3; i < 10; i++) tasks.push(succeeds(i, after(4)));
    const window = simulate({ pacing: 'window' }, tasks);
    const batch = simulate({}, tasks);
    expect(batch.invocations.map((c) => c.time)).toEqual([0, 4, 4, 104, 104, 104, 104, 108, 108, 108]);
    // After 2 successes (t = 8) the bound is 2 with task 1 in flight: one more task. After 3 (t = 12) it is 4.
    expect(window.invocations.map((c) => c.time)).toEqual([0, 4, 4, 8, 12, 12, 12, 16, 16, 16]);
    // The same results, each as soon as its tasks are done.
    expect(window.emissions.map((e) => [e.result.batch, e.result.startIndex, e.result.size, e.time])).toEqual([
      [0, 0, 1, 4],
      [1, 1, 2, 104],
      [2, 3, 4, 104],
      [3, 7, 3, 104],
    ]);
    expect(batch.emissions.map((e) => [e.result.batch, e.result.startIndex, e.result.size, e.time])).toEqual([
      [0, 0, 1, 4],
      [1, 1, 2, 104],
      [2, 3, 4, 108],
      [3, 7, 3, 112],
    ]);
    expect(window.invocations.map((c) => c.batch)).toEqual([0, 1, 1, 2, 2, 2, 2, 3, 3, 3]);
  });

  it('with a synchronous source and tasks, runs each task as its factory arrives', () => {
    const run = simulate({ pacing: 'window' }, [succeeds('a'), succeeds('b'), succeeds('c'), succeeds('d')]);
    expect(
      run.log.map((e) =>
        e.type === 'emit' ? `emit ${e.result.batch}` : e.type === 'invoke' || e.type === 'settle' ? `${e.type} ${e.index}` : e.type,
      ),
    ).toEqual([
      'invoke 0',
      'settle 0',
      'emit 0',
      'invoke 1',
      'settle 1',
      'invoke 2',
      'settle 2',
      'emit 1',
      'invoke 3',
      'settle 3',
      'sourceComplete',
      'emit 2',
    ]);
    expect(run.end).toEqual({ kind: 'complete', time: 0 });
  });

  it('after a failure invokes nothing more, lets the tasks in flight end, emits what is due, and loses no outcome', () => {
    // Sizes 1, 2, 4. Task 2 is slow; task 4 fails at t = 16 while tasks 2, 5 and 6 are in flight.
    const tasks = [
      succeeds('a', after(4)),
      succeeds('b', after(4)),
      succeeds('c', after(20)),
      succeeds('d', after(4)),
      fails('boom', after(4)),
      succeeds('f', after(8)),
      succeeds('g', after(4)),
      succeeds('h', after(4)),
    ];
    const run = simulate({ pacing: 'window' }, tasks);
    expect(run.invocations.map((c) => [c.index, c.time])).toEqual([
      [0, 0],
      [1, 4],
      [2, 4],
      [3, 8],
      [4, 12],
      [5, 12],
      [6, 12],
    ]);
    // Result 1 (tasks 1 and 2) is complete at t = 24, after the failure: it is still emitted.
    expect(run.emissions.map((e) => [e.result.batch, e.time])).toEqual([
      [0, 4],
      [1, 24],
    ]);
    expect(run.end).toEqual({
      kind: 'batchError',
      time: 24,
      error: {
        batch: 2,
        startIndex: 3,
        size: 4,
        failed: 1,
        successes: 6,
        cause: 'boom',
        results: [
          { index: 3, status: 'fulfilled', value: 'd' },
          { index: 4, status: 'rejected', reason: 'boom' },
          { index: 5, status: 'fulfilled', value: 'f' },
          { index: 6, status: 'fulfilled', value: 'g' },
        ],
        skipped: 1,
        remaining: [7],
      },
    });
  });

  it('on a source error, reports every invoked task before the error (the last result cut short)', () => {
    const tasks = [4, 4, 4, 8, 4, 4, 4].map((delay, i) => succeeds(i, after(delay)));
    const run = simulate({ pacing: 'window', concurrency: 2 }, tasks, {
      kind: 'timed',
      arrivals: [{ time: 0, count: 7 }],
      end: { kind: 'error', time: 11, error: 'source' },
    });
    // t = 8: result 1 is done, tasks 3 and 4 start. t = 11: the source errors; tasks 5 and 6 are skipped.
    expect(run.invocations.map((c) => c.index)).toEqual([0, 1, 2, 3, 4]);
    expect(run.emissions.map((e) => [e.result.startIndex, e.result.size, e.time])).toEqual([
      [0, 1, 4],
      [1, 2, 8],
      [3, 2, 16],
    ]);
    expect(run.end).toEqual({ kind: 'sourceError', time: 16, error: 'source' });
  });

  it(
    `keeps the invariants of §9 at every instant on ${numRuns} generated scenarios (both pacings)`,
    () => {
      fc.assert(
        fc.property(anyScenario, (scenario) => {
          const model = toModelScenario(scenario);
          expect(checkInvariants(traceOfModel(model, simulateSlowStart(model)))).toEqual([]);
        }),
        runs.params(),
      );
    },
    timeout,
  );

  it(
    `gives the results of batch pacing, never later, on ${numRuns} generated scenarios where every task succeeds`,
    () => {
      // Without failures, `flushAfter`, source errors or an unsubscription, both pacings group the source
      // the same way, and window pacing starts no task and emits no result later than batch pacing:
      // its tasks start no later, so they end no later, so the bound grows no later.
      const scenario = windowScenarioWhereAllSucceed
        .map((s): Scenario => ({ ...s, unsubscribe: { kind: 'never' } }))
        .filter((s) => !(s.source.kind === 'subject' && s.source.end.kind === 'error'));
      fc.assert(
        fc.property(scenario, (s) => {
          const model = toModelScenario(s);
          const window = simulateSlowStart(model);
          const batch = simulateSlowStart(withPacing(model, 'batch'));
          // Window pacing may start tasks that batch pacing never starts (a batch that never fills).
          // Mismatches are collected first: one `expect` per element is slow on thousands of tasks.
          const late: string[] = [];
          batch.invocations.forEach((c, k) => {
            const w = window.invocations.at(k);
            if (w?.index !== c.index || w.batch !== c.batch || w.time > c.time)
              late.push(`invocation ${k}: window ${JSON.stringify(w)}, batch ${JSON.stringify(c)}`);
          });
          const contents = (run: typeof window) => JSON.stringify(run.emissions.map((e) => e.result));
          expect(contents(window)).toBe(contents(batch));
          window.emissions.forEach((e, k) => {
            if (e.time > batch.emissions[k].time) late.push(`result ${k}: window at ${e.time}, batch at ${batch.emissions[k].time}`);
          });
          expect(late).toEqual([]);
          expect(window.end.kind).toBe(batch.end.kind);
          if (window.end.kind === 'complete' && batch.end.kind === 'complete') expect(window.end.time).toBeLessThanOrEqual(batch.end.time);
        }),
        runs.params(),
      );
    },
    timeout,
  );

  it(
    `over an array of synchronous tasks, agrees with batch pacing up to the first failure, on ${numRuns} generated runs`,
    () => {
      fc.assert(
        fc.property(
          fc.record({
            count: fc.integer({ min: 0, max: 300 }),
            initialBatchSize: fc.integer({ min: 1, max: 10 }),
            growthFactor: fc.oneof(fc.constantFrom(1, 1.5, 2, 3), fc.double({ min: 1, max: 4, noNaN: true })),
            extraMax: fc.oneof(fc.constant(Infinity), fc.integer({ min: 0, max: 30 })),
            failures: fc.array(fc.nat({ max: 400 }), { maxLength: 3 }),
            knows: fc.constantFrom('received' as const, 'all' as const),
          }),
          ({ count, extraMax, failures, knows, ...rest }) => {
            const options: ModelOptions = { ...rest, maxBatchSize: rest.initialBatchSize + extraMax };
            const tasks = Array.from({ length: count }, (_, i) => (failures.includes(i) ? fails(`reason ${i}`) : succeeds(i)));
            const scenario: ModelScenario = { options, tasks, source: { kind: 'sync' }, unsubscribe: { kind: 'never' }, knows };
            const batch = simulateSlowStart(scenario);
            const window = simulateSlowStart(withPacing(scenario, 'window'));
            expect(window.emissions).toEqual(batch.emissions);
            expect(window.end.kind).toBe(batch.end.kind);
            if (window.end.kind !== 'batchError' || batch.end.kind !== 'batchError') return;
            // Batch pacing runs the failing batch to its end; window pacing stops at the failure.
            const [w, b] = [window.end.error, batch.end.error];
            const failure = b.results.find((r) => r.status === 'rejected')!.index;
            // The operator stops reading a synchronous source at the end: it has received the failing task and no more.
            const known = knows === 'all' ? count : failure + 1;
            expect(w).toEqual({
              ...b,
              size: failure + 1 - b.startIndex,
              failed: 1,
              successes: failure,
              results: b.results.slice(0, failure + 1 - b.startIndex),
              skipped: known - failure - 1,
              remaining: Array.from({ length: known - failure - 1 }, (_, k) => failure + 1 + k),
            });
            expect(window.invocations).toEqual(batch.invocations.filter((c) => c.index <= failure));
          },
        ),
        runs.params(),
      );
    },
    timeout,
  );
});

/** The operator on one scenario: the invariants of §9 on its log, and the model's run. */
async function checkScenario(scenario: Scenario) {
  const model = simulateSlowStart(toModelScenario(scenario));
  const observed = await runScenario(scenario);
  expect(checkInvariants(traceOfObserved(scenario, observed))).toEqual([]);
  expectMatchesModel(scenario, observed, model);
}

const synchronous = (count: number): Scenario['tasks'] =>
  Array.from({ length: count }, (_, i) => ({ kind: 'observable', values: [i], delay: null, valuesEarly: false }));

/**
 * Counterexamples the properties below found in the operator, each reduced by hand. §9: a result due
 * in the middle of a run of synchronous tasks waited behind the next invocation.
 */
const found: [string, Scenario][] = [
  [
    'slowStart over 8 synchronous tasks, concurrency 3: result 2 comes before task 7 is invoked',
    {
      api: 'slowStart',
      options: { pacing: 'window', concurrency: 3 },
      tasks: synchronous(8),
      source: { kind: 'array' },
      unsubscribe: { kind: 'never' },
    },
  ],
  [
    'the same with take(3): task 7 is never invoked',
    {
      api: 'slowStart',
      options: { pacing: 'window', concurrency: 3 },
      tasks: synchronous(8),
      source: { kind: 'array' },
      unsubscribe: { kind: 'inNext', emission: 2 },
    },
  ],
  [
    'slowStartBatch, one slow task then 7 synchronous ones, concurrency 3, take(3): task 7 is never invoked',
    {
      api: 'operator',
      options: { pacing: 'window', concurrency: 3 },
      tasks: [{ kind: 'observable', values: ['slow'], delay: 4, valuesEarly: false }, ...synchronous(7)],
      source: { kind: 'subject', arrivals: [{ time: 0, count: 8 }], end: { kind: 'complete', time: 8 } },
      unsubscribe: { kind: 'inNext', emission: 2 },
    },
  ],
];

describe('counterexamples found by the properties', () => {
  it.each(found)('%s', async (_, scenario) => {
    await checkScenario(scenario);
  });
});

whenOperatorHasWindowPacing("pacing: 'window' against the reference model", () => {
  it(
    `slowStartBatch() keeps §9 and agrees with the model on ${numRuns} generated scenarios (arrays, generators, subjects)`,
    async () => {
      await fc.assert(fc.asyncProperty(windowOperatorScenario, checkScenario), runs.params());
    },
    timeout,
  );

  it(
    `slowStart() keeps §9 and agrees with the model on ${numRuns} generated scenarios (arrays and generators)`,
    async () => {
      await fc.assert(fc.asyncProperty(windowSlowStartScenario, checkScenario), runs.params());
    },
    timeout,
  );

  it('refuses flushAfter at call time (§9)', () => {
    const options = { pacing: 'window', flushAfter: 10 } as unknown as SlowStartOptions;
    expect(() => slowStartBatch(options)).toThrow(TypeError);
    expect(() => slowStart([], options)).toThrow(TypeError);
  });
});

/**
 * The common cases in marbles. One frame is one millisecond; a task `task(3, 'c')` emits `c` and
 * completes 3 frames after it is invoked. Each result is drawn as its values joined.
 */
describe("pacing: 'window' in marbles", () => {
  const windowPacing = { pacing: 'window' } as SlowStartOptions;
  const run = (
    body: (helpers: {
      cold: TestScheduler['createColdObservable'];
      expectObservable: TestScheduler['expectObservable'];
      now: () => number;
    }) => void,
  ) => {
    const scheduler = new TestScheduler((actual, expected) => expect(actual).toEqual(expected));
    scheduler.run(({ cold, expectObservable }) => body({ cold, expectObservable, now: () => scheduler.now() }));
  };
  const joined = (results: Observable<BatchResult<string>>) => results.pipe(map((r) => r.values.join('')));

  it('batch pacing: a slow task holds the next batch back', () => {
    const invoked: number[] = [];
    run(({ cold, expectObservable, now }) => {
      const task =
        (frames: number, value: string): TaskFactory<string> =>
        () => {
          invoked.push(now());
          return cold(`${'-'.repeat(frames)}(v|)`, { v: value });
        };
      const tasks = [task(2, 'a'), task(8, 'b'), task(2, 'c'), task(2, 'd'), task(2, 'e'), task(2, 'f'), task(2, 'g')];
      expectObservable(joined(from(tasks).pipe(slowStartBatch<string>()))).toBe('--x-------y-(z|)', { x: 'a', y: 'bc', z: 'defg' });
    });
    // The run has been flushed: every invocation is known.
    expect(invoked).toEqual([0, 2, 2, 10, 10, 10, 10]);
  });

  whenOperatorHasWindowPacing('once the operator has it', () => {
    it('window pacing: the slow task holds back no other slot; results still come in order', () => {
      const invoked: number[] = [];
      run(({ cold, expectObservable, now }) => {
        const task =
          (frames: number, value: string): TaskFactory<string> =>
          () => {
            invoked.push(now());
            return cold(`${'-'.repeat(frames)}(v|)`, { v: value });
          };
        const tasks = [task(2, 'a'), task(8, 'b'), task(2, 'c'), task(2, 'd'), task(2, 'e'), task(2, 'f'), task(2, 'g')];
        // Tasks 3 to 6 are done at frame 8, but their result follows the one that waits for task 1.
        expectObservable(joined(from(tasks).pipe(slowStartBatch<string>(windowPacing)))).toBe('--x-------(yz|)', {
          x: 'a',
          y: 'bc',
          z: 'defg',
        });
      });
      // The run has been flushed: every invocation is known.
      expect(invoked).toEqual([0, 2, 2, 4, 6, 6, 6]);
    });

    it('window pacing: a failure stops admissions; the tasks in flight end; the error loses no outcome', () => {
      const invoked: number[] = [];
      run(({ cold, expectObservable, now }) => {
        const task =
          (marbles: string, value?: string): TaskFactory<string> =>
          () => {
            invoked.push(now());
            return cold(marbles, { v: value ?? '' }, 'quota');
          };
        const tasks = [
          task('--(v|)', 'a'),
          task('--(v|)', 'b'),
          task('--------(v|)', 'c'),
          task('--(v|)', 'd'),
          task('--#'),
          task('----(v|)', 'f'),
          task('--(v|)', 'g'),
          task('--(v|)', 'h'),
        ];
        // Task 4 fails at frame 8. Task 2 ends at frame 10: result 1 is still emitted, then the error.
        expectObservable(joined(slowStart(tasks, windowPacing))).toBe(
          '--x-------(y#)',
          { x: 'a', y: 'bc' },
          expect.objectContaining({
            name: 'SlowStartBatchError',
            batch: 2,
            startIndex: 3,
            size: 4,
            successes: 6,
            cause: 'quota',
            results: [
              { index: 3, status: 'fulfilled', value: 'd' },
              { index: 4, status: 'rejected', reason: 'quota' },
              { index: 5, status: 'fulfilled', value: 'f' },
              { index: 6, status: 'fulfilled', value: 'g' },
            ],
            remaining: [tasks[7]],
          }),
        );
      });
      // The run has been flushed: every invocation is known.
      expect(invoked).toEqual([0, 2, 2, 4, 6, 6, 6]);
    });

    it('window pacing over synchronous tasks gives the batches of batch pacing', () => {
      run(({ expectObservable }) => {
        const tasks = Array.from({ length: 10 }, (_, i) => () => of(String(i)));
        expectObservable(joined(slowStart(tasks, windowPacing))).toBe('(wxyz|)', { w: '0', x: '12', y: '3456', z: '789' });
      });
    });
  });
});
