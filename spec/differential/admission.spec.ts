/**
 * The redesigned admission against the one it replaces (a copy of src/ from the base commit in
 * base-src/, kept only while the change is made): the same generated scenarios, run on both in virtual
 * time with the same random numbers, must give the same whole log (invocations, settlements,
 * emissions, the end), the same calls of `when` and `delay`, and the same events.
 */
import fc from 'fast-check';
import { anyRetryScenario, pauseThenUnsubscribe, withLearnRate, withRateLimit } from '../model/retry-arbitraries.js';
import type { RetryObserved, RetryScenarioSpec } from '../model/retry-harness.js';
import { propertyRuns } from '../support/property-runs.js';

type Harness = typeof import('../model/retry-harness.js');

const current: Harness = jest.requireActual('../model/retry-harness.js');
let base!: Harness;
jest.isolateModules(() => {
  jest.doMock('../../src/index', () => jest.requireActual<object>('./base-src/index'));
  base = jest.requireActual('../model/retry-harness.js');
});

const runs = propertyRuns(__filename);

/** A fixed sequence of numbers in [0, 1) in place of `Math.random`, for the jitter of both. */
async function seeded<R>(seed: number, body: () => Promise<R>): Promise<R> {
  const original = Math.random;
  let state = seed >>> 0 || 1;
  Math.random = () => {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return (state >>> 0) / 2 ** 32;
  };
  try {
    return await body();
  } finally {
    Math.random = original;
  }
}

/**
 * What a run shows, as plain data: each of its own objects stands for what it is, so that the two runs
 * compare. A factory is its index among the run's items; an error (the two copies have their own
 * classes) its class name, message and fields; a signal whether it was aborted.
 */
function shown(observed: RetryObserved): unknown {
  const seen = new Map<unknown, unknown>();
  const plain = (value: unknown): unknown => {
    if (typeof value === 'function') return { factory: observed.items.indexOf(value) };
    if (typeof value !== 'object' || value === null) return value;
    if (value instanceof AbortSignal) return { aborted: value.aborted };
    if (seen.has(value)) return seen.get(value);
    const copy: Record<string, unknown> = Array.isArray(value) ? ([] as unknown as Record<string, unknown>) : {};
    seen.set(value, copy);
    if (value instanceof Error) Object.assign(copy, { class: value.constructor.name, message: value.message });
    for (const [key, field] of Object.entries(value)) copy[key] = plain(field);
    return copy;
  };
  return plain(observed);
}

let scenarios = 0;

async function expectSame(scenario: RetryScenarioSpec, seed: number): Promise<void> {
  scenarios++;
  const before = await seeded(seed, () => base.runRetryScenario(scenario, true));
  const after = await seeded(seed, () => current.runRetryScenario(scenario, true));
  expect(shown(after)).toEqual(shown(before));
}

const families: [string, fc.Arbitrary<RetryScenarioSpec>][] = [
  ['retry', anyRetryScenario],
  ['retry, unsubscribed in a pause', pauseThenUnsubscribe],
  ['retry.learnRate', withLearnRate(anyRetryScenario)],
  ['rateLimit', withRateLimit(anyRetryScenario)],
  ['rateLimit and retry.learnRate', withRateLimit(withLearnRate(anyRetryScenario))],
];

describe('the admission against the one it replaces', () => {
  it.each(families)(
    '%s: the same log, calls and events',
    async (_, arbitrary) => {
      await fc.assert(
        fc.asyncProperty(arbitrary, fc.integer(), (scenario, seed) => expectSame(scenario, seed)),
        runs.params(),
      );
    },
    runs.timeout,
  );

  afterAll(() => console.log(`differential: ${scenarios} scenarios, each run on both`));
});
