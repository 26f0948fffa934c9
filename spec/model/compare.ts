/**
 * The comparison of one operator run (harness.ts) with the reference model's run of the same scenario:
 * the same invocations at the same virtual times with the same contexts, the same emissions, the same
 * end, and nothing left behind (§7). Used for both pacings.
 */
import { SlowStartBatchError, isSlowStartBatchError } from '../../src/index.js';
import type { Observed, Scenario } from './harness.js';
import { OPERATOR_MADE_ERROR, Ramp, sizeAfter, type ExpectedBatchError, type ModelRun } from './slow-start-model.js';

/** Compares a reason the model expects with the one observed; the operator makes its own TypeErrors. */
export function expectReason(actual: unknown, expected: unknown, what: string) {
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
    // slowStart pulls a generator lazily: it knows the factories it pulled, and no more than it can use.
    const { pulled } = observed.generator!;
    const firstSkipped = expected.startIndex + expected.size;
    expect(pulled).toBeGreaterThanOrEqual(firstSkipped);
    // Batch pacing pulls at most the next batch; window pacing at most what the bound lets start.
    const ahead =
      scenario.options.pacing === 'window'
        ? new Ramp(scenario.options).bound(expected.successes)
        : sizeAfter(expected.size, scenario.options);
    expect(pulled).toBeLessThanOrEqual(firstSkipped + ahead);
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

export function expectMatchesModel(scenario: Scenario, observed: Observed, model: ModelRun) {
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
