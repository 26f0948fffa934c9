/**
 * Generated scenarios: the operator against the reference model (spec/model/slow-start-model.ts).
 *
 * Every scenario runs in virtual time, so its outcome is deterministic. Each run of the suite draws
 * new scenarios; when a property fails, fast-check prints the counterexample with its `seed` and
 * `path`, and `FC_SEED=<seed> FC_PATH=<path> npm test -- spec/contract/properties.spec.ts` replays exactly it.
 *
 * Runs per property: 2,000 when `CI` is set, fewer locally (override with FC_NUM_RUNS).
 */
import fc from 'fast-check';
import { loadConformanceCases } from '../support/conformance-cases';
import { SlowStartBatchError, isSlowStartBatchError } from '../../src/index.js';
import { operatorScenario, slowStartScenario } from '../model/arbitraries.js';
import { runScenario, toModelScenario, type Observed, type Scenario } from '../model/harness.js';
import {
  OPERATOR_MADE_ERROR,
  kubernetesSlowStart,
  simulateSlowStart,
  sizeAfter,
  type ExpectedBatchError,
  type ModelRun,
} from '../model/slow-start-model.js';

const numRuns = Number(process.env.FC_NUM_RUNS ?? (process.env.CI ? 2000 : 300));
/** Replays a reported failure: FC_SEED and FC_PATH are the `seed` and `path` fast-check printed. */
const replay: fc.Parameters<unknown> = process.env.FC_SEED
  ? { seed: Number(process.env.FC_SEED), path: process.env.FC_PATH, endOnFailure: true }
  : // Mutation runs only need to know that a property fails, not the smallest counterexample.
    { endOnFailure: process.env.FC_END_ON_FAILURE === '1' };
const timeout = 110_000;

/** Compares a reason the model expects with the one observed; the operator makes its own TypeErrors. */
function expectReason(actual: unknown, expected: unknown, what: string) {
  if (expected === OPERATOR_MADE_ERROR) {
    if (!(actual instanceof TypeError)) throw new Error(`${what}: expected a TypeError made by the operator, got ${String(actual)}`);
  } else if (!Object.is(actual, expected)) {
    throw new Error(`${what}: expected ${String(expected)}, got ${String(actual)}`);
  }
}

function expectBatchError(error: unknown, expected: ExpectedBatchError, observed: Observed, scenario: Scenario) {
  expect(error).toBeInstanceOf(SlowStartBatchError);
  expect(isSlowStartBatchError(error)).toBe(true);
  const actual = error as SlowStartBatchError;
  expect(actual.name).toBe('SlowStartBatchError');
  expect({ batch: actual.batch, startIndex: actual.startIndex, size: actual.size, successes: actual.successes }).toEqual({
    batch: expected.batch,
    startIndex: expected.startIndex,
    size: expected.size,
    successes: expected.successes,
  });
  // The message states the counts (§5); its wording is free.
  for (const n of [expected.failed, expected.size, expected.batch, expected.successes]) {
    expect(actual.message).toMatch(new RegExp(`\\b${n}\\b`));
  }
  expect(actual.results.map((r) => [r.index, r.status])).toEqual(expected.results.map((r) => [r.index, r.status]));
  expected.results.forEach((r, k) => {
    const outcome = actual.results[k];
    // The statuses are equal (checked just above).
    if (r.status === 'fulfilled' && outcome.status === 'fulfilled') expectReason(outcome.value, r.value, `results[${k}].value`);
    if (r.status === 'rejected' && outcome.status === 'rejected') expectReason(outcome.reason, r.reason, `results[${k}].reason`);
  });
  expectReason(actual.cause, expected.cause, 'cause');
  expect('sourceError' in actual).toBe(expected.sourceError !== undefined);
  expect(actual.sourceError).toBe(expected.sourceError?.error);

  if (scenario.api === 'slowStart' && scenario.source.kind === 'generator') {
    // slowStart pulls a generator lazily: it knows the factories it pulled, at most one batch ahead.
    const { pulled } = observed.generator!;
    const firstSkipped = expected.startIndex + expected.size;
    expect(pulled).toBeGreaterThanOrEqual(firstSkipped);
    expect(pulled).toBeLessThanOrEqual(firstSkipped + sizeAfter(expected.size, scenario.options));
    expect(actual.skipped).toBe(pulled - firstSkipped);
    expect(actual.remaining).toHaveLength(pulled - firstSkipped);
    actual.remaining.forEach((f: unknown, k: number) => expect(f).toBe(observed.items[firstSkipped + k]));
  } else {
    expect(actual.skipped).toBe(expected.skipped);
    expect(actual.message).toMatch(new RegExp(`\\b${expected.skipped}\\b`));
    expect(actual.remaining).toHaveLength(expected.remaining.length);
    actual.remaining.forEach((f: unknown, k: number) => expect(f).toBe(observed.items[expected.remaining[k]]));
  }
}

/** `toEqual` on lists of thousands of rows is slow; compare them as JSON first and diff only on a mismatch. */
function expectRows(actual: number[][], expected: number[][]) {
  if (JSON.stringify(actual) !== JSON.stringify(expected)) expect(actual).toEqual(expected);
}

function expectMatchesModel(scenario: Scenario, observed: Observed, model: ModelRun) {
  // Which factories ran, in which batch, when: never one after a failing batch, never one before its batch.
  expectRows(
    observed.invocations.map((c) => [c.index, c.batch, c.time]),
    model.invocations.map((c) => [c.index, c.batch, c.time]),
  );
  const wrongContext = observed.invocations.find((c) => c.contextIndex !== c.index);
  if (wrongContext) throw new Error(`task ${wrongContext.index} was told index ${wrongContext.contextIndex}`);
  expect(observed.concurrencyViolations).toEqual([]);

  // The emitted results and their order.
  expectRows(
    observed.emissions.map((e) => [e.time, e.value.batch, e.value.startIndex, e.value.size, e.value.successes]),
    model.emissions.map((e) => [e.time, e.result.batch, e.result.startIndex, e.result.size, e.result.successes]),
  );
  model.emissions.forEach((e, k) => {
    const actual = observed.emissions[k].value.values;
    expect(actual).toHaveLength(e.result.values.length);
    e.result.values.forEach((v, j) => expectReason(actual[j], v, `emission ${k} values[${j}]`));
  });

  // How the stream ended.
  const end = model.end;
  switch (end.kind) {
    case 'complete':
    case 'unsubscribed':
      expect(observed.end).toEqual({ kind: end.kind, time: end.time });
      break;
    case 'open':
      expect(observed.end).toEqual({ kind: 'open' });
      break;
    case 'sourceError':
      expect(observed.end.kind).toBe('error');
      if (observed.end.kind !== 'error') break;
      expect(observed.end.time).toBe(end.time);
      expect(observed.end.error).toBe(end.error);
      break;
    case 'batchError':
      expect(observed.end.kind).toBe('error');
      if (observed.end.kind !== 'error') break;
      expect(observed.end.time).toBe(end.time);
      expectBatchError(observed.end.error, end.error, observed, scenario);
      break;
  }

  // After the end nothing is left behind (§7).
  expect(observed.openTaskSubscriptions).toEqual([]);
  expect(observed.pendingTimersAfterEnd).toBe(0);
  for (const index of model.tornDown) {
    const signal = observed.signals.get(index);
    if (!signal?.aborted) throw new Error(`task ${index} was torn down but its signal did not abort`);
  }
  expect(observed.abortedBeforeSettling).toEqual([]);
  if (observed.generator && model.end.kind !== 'open') expect(observed.generator.closed).toBe(true);
}

async function checkScenario(scenario: Scenario) {
  const model = simulateSlowStart(toModelScenario(scenario));
  const observed = await runScenario(scenario);
  expectMatchesModel(scenario, observed, model);
}

describe('slowStartBatch() against the reference model', () => {
  it(
    `agrees on ${numRuns} generated scenarios (arrays, generators, subjects; any task outcome; unsubscription)`,
    async () => {
      await fc.assert(fc.asyncProperty(operatorScenario, checkScenario), { numRuns, ...replay });
    },
    timeout,
  );
});

describe('slowStart() against the reference model', () => {
  it(
    `agrees on ${numRuns} generated scenarios (arrays and generators)`,
    async () => {
      await fc.assert(fc.asyncProperty(slowStartScenario, checkScenario), { numRuns, ...replay });
    },
    timeout,
  );
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
      { numRuns: 500 },
    );
  });
});
