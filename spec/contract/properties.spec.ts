/**
 * Generated scenarios: the operator against the reference model (spec/model/slow-start-model.ts).
 *
 * Every scenario runs in virtual time, so its outcome is deterministic. The scenarios come from a seed
 * fixed per commit (spec/support/property-runs.ts): the suite prints it, with the one command that
 * replays its run (`FC_SEED=<seed> FC_NUM_RUNS=<runs> npx jest spec/contract/properties.spec.ts`); a
 * failure prints its counterexample, seed and `path`, and adding `FC_PATH=<path> -t '<property>'` goes
 * straight to it. `npm run test:explore` tries fresh seeds. Runs per property: 2,000 when `CI` is set,
 * 300 locally (override with FC_NUM_RUNS).
 *
 * Counterexamples: every one the properties found stays in `found` below, a named case that runs on
 * every `npm test` whatever the seed. To add one, replay it, reduce the scenario fast-check printed by
 * hand to what still fails, and append it to `found` as [what went wrong, with the section of the
 * contract that decides, the scenario], in the change that fixes the code.
 */
import fc from 'fast-check';
import { loadConformanceCases } from '../support/conformance-cases';
import { propertyRuns } from '../support/property-runs.js';
import { nextBatchSize } from '../../src/index.js';
import { operatorScenario, slowStartScenario } from '../model/arbitraries.js';
import { expectMatchesModel } from '../model/compare.js';
import { runScenario, toModelScenario, traceOfObserved, type Scenario } from '../model/harness.js';
import { checkInvariants } from '../model/invariants.js';
import { kubernetesSlowStart, simulateSlowStart, sizeAfter } from '../model/slow-start-model.js';

const runs = propertyRuns(__filename);
const { numRuns } = runs;
const { timeout } = runs;

async function checkScenario(scenario: Scenario) {
  const model = simulateSlowStart(toModelScenario(scenario));
  const observed = await runScenario(scenario);
  expectMatchesModel(scenario, observed, model);
  // The invariants of §9 hold for batch pacing too, checked on the operator's own log.
  expect(checkInvariants(traceOfObserved(scenario, observed))).toEqual([]);
}

describe('slowStartBatch() against the reference model', () => {
  it(
    `agrees on ${numRuns} generated scenarios (arrays, generators, subjects; any task outcome; unsubscription)`,
    async () => {
      await fc.assert(fc.asyncProperty(operatorScenario, checkScenario), runs.params());
    },
    timeout,
  );
});

describe('slowStart() against the reference model', () => {
  it(
    `agrees on ${numRuns} generated scenarios (arrays and generators)`,
    async () => {
      await fc.assert(fc.asyncProperty(slowStartScenario, checkScenario), runs.params());
    },
    timeout,
  );
});

/** Synchronous tasks, each an observable of its index. */
const synchronous = (count: number): Scenario['tasks'] =>
  Array.from({ length: count }, (_, i) => ({ kind: 'observable', values: [i], delay: null, valuesEarly: false }));

/**
 * Counterexamples the properties above found in the operator, each reduced by hand, with the section
 * that decides (spec/operator/teardown.spec.ts keeps them as plain examples too).
 */
const found: [string, Scenario][] = [
  [
    // §7: the run's teardown was registered only once `subscribe` returned, so a consumer that
    // unsubscribed inside `next` while a synchronous source was still emitting left batches running.
    'slowStartBatch over from(array), take(1): no factory runs after the first result',
    { api: 'operator', options: {}, tasks: synchronous(4), source: { kind: 'array' }, unsubscribe: { kind: 'inNext', emission: 0 } },
  ],
  [
    // §7, the same through slowStart.
    'slowStart over an array, take(1): no factory runs after the first result',
    { api: 'slowStart', options: {}, tasks: synchronous(4), source: { kind: 'array' }, unsubscribe: { kind: 'inNext', emission: 0 } },
  ],
];

describe('counterexamples found by the properties', () => {
  it.each(found)('%s', async (_, scenario) => {
    await checkScenario(scenario);
  });
});

describe('the reference model itself', () => {
  const conformance = { cases: loadConformanceCases() };

  it.each(conformance.cases.map((c) => [c.name, c] as const))('reproduces Kubernetes: %s', (_, c) => {
    const loop = kubernetesSlowStart(c.count, { initialBatchSize: c.initialBatchSize }, (call) => call < c.succeedFirst);
    expect(loop).toEqual({
      batchSizes: c.expected.batchSizes,
      invoked: c.expected.invoked,
      successes: c.expected.successes,
      errors: c.expected.errors,
    });

    // The timed simulation of the same run over an array agrees, `skipped` included.
    const sim = simulateSlowStart({
      options: { initialBatchSize: c.initialBatchSize },
      tasks: Array.from({ length: c.count }, (_, i) => ({
        outcome: i < c.succeedFirst ? { ok: true, value: i } : { ok: false, reason: i },
        settles: { kind: 'sync' },
        isFunction: true,
      })),
      source: { kind: 'sync' },
      unsubscribe: { kind: 'never' },
      knows: 'all',
    });
    expect(sim.batches.map((b) => b.size)).toEqual(c.expected.batchSizes);
    expect(sim.invocations).toHaveLength(c.expected.invoked);
    expect(sim.end.kind === 'batchError' ? sim.end.error.skipped : 0).toBe(c.expected.skipped);
  });

  it('gives the batch sizes of contract §2', () => {
    const sizes = (count: number, initialBatchSize?: number) => kubernetesSlowStart(count, { initialBatchSize }, () => true).batchSizes;
    expect(sizes(10)).toEqual([1, 2, 4, 3]);
    expect(sizes(100, 10)).toEqual([10, 20, 40, 30]);
  });

  it('reads a growth factor as people write it, and always grows with one above 1 (§2)', () => {
    expect(sizeAfter(100, { growthFactor: 1.1 })).toBe(110); // 100 * 1.1 is 110.00000000000001
    expect(sizeAfter(10, { growthFactor: 1.1 })).toBe(11);
    expect(sizeAfter(10, { growthFactor: 1.15 })).toBe(12);
    expect(sizeAfter(1, { growthFactor: 1.0000001 })).toBe(2);
    expect(sizeAfter(3, { growthFactor: 1 })).toBe(3);
    expect(sizeAfter(3, { growthFactor: 1, initialBatchSize: 5, maxBatchSize: 8 })).toBe(5);
    expect(sizeAfter(7, { growthFactor: 3, maxBatchSize: 8 })).toBe(8);
  });

  it('computes the sizes of §2 as src does, on generated sizes and options', () => {
    fc.assert(
      fc.property(
        fc.record({
          ranSize: fc.integer({ min: 1, max: 1_000_000 }),
          initialBatchSize: fc.integer({ min: 1, max: 50 }),
          growthFactor: fc.oneof(
            fc.integer({ min: 100, max: 400 }).map((h) => h / 100),
            fc.double({ min: 1, max: 4, noNaN: true }),
            fc.double({ min: 1, max: 1.000001, noNaN: true }),
          ),
          extraMax: fc.oneof(fc.constant(Infinity), fc.nat({ max: 100_000 })),
        }),
        ({ ranSize, extraMax, ...rest }) => {
          const options = { ...rest, maxBatchSize: rest.initialBatchSize + extraMax };
          expect(sizeAfter(ranSize, options)).toBe(nextBatchSize(ranSize, options));
        },
      ),
      runs.params(2000),
    );
  });

  it('agrees with the Kubernetes loop on every synchronous run over an array', () => {
    fc.assert(
      fc.property(
        fc.record({
          count: fc.integer({ min: 0, max: 500 }),
          initialBatchSize: fc.integer({ min: 1, max: 20 }),
          growthFactor: fc.double({ min: 1, max: 4, noNaN: true }),
          extraMax: fc.integer({ min: 0, max: 50 }),
          firstFailure: fc.nat({ max: 600 }),
        }),
        ({ count, firstFailure, extraMax, ...rest }) => {
          const options = { ...rest, maxBatchSize: rest.initialBatchSize + extraMax };
          const loop = kubernetesSlowStart(count, options, (call) => call < firstFailure);
          const sim = simulateSlowStart({
            options,
            tasks: Array.from({ length: count }, (_, i) => ({
              outcome: i < firstFailure ? { ok: true, value: i } : { ok: false, reason: i },
              settles: { kind: 'sync' },
              isFunction: true,
            })),
            source: { kind: 'sync' },
            unsubscribe: { kind: 'never' },
            knows: 'all',
          });
          expect(sim.batches.map((b) => b.size)).toEqual(loop.batchSizes);
          expect(sim.invocations).toHaveLength(loop.invoked);
          expect(sim.end.kind).toBe(loop.errors ? 'batchError' : 'complete');
        },
      ),
      runs.params(500),
    );
  });
});
