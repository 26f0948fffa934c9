/**
 * `retry` (§10), generated scenarios in virtual time:
 *
 * - the reference model on its own (spec/model/retry-model.ts): without retries it is the model of
 *   §2-§9 exactly; with retries its runs keep the rules of §10 (spec/model/retry-invariants.ts);
 * - the operator with `retry` against the rules and the model, once it accepts the option (until then
 *   these are skipped): invocations (index, attempt, batch, virtual time), the calls of `when` and
 *   `delay`, fresh signals, emissions, the end and its error, and nothing left scheduled or subscribed.
 *
 * The scenarios come from a seed fixed per commit (spec/support/property-runs.ts): the suite prints it,
 * with the one command that replays its run (`FC_SEED=<seed> FC_NUM_RUNS=<runs> npx jest
 * spec/contract/retry-properties.spec.ts`); a failure prints its seed and `path`, and adding
 * `FC_PATH=<path> -t '<property>'` goes straight to its counterexample. `npm run test:explore` tries
 * fresh seeds. Runs per property: 2,000 when `CI` is set, 300 locally (override with FC_NUM_RUNS).
 *
 * Counterexamples: every one the properties found stays in `found` below, a named case that runs on
 * every `npm test` whatever the seed, each with the section that decides. To add one, replay it,
 * reduce the scenario fast-check printed by hand to what still fails, and append it to `found` as
 * [what went wrong, the scenario], with a comment naming the section and what the operator did, in
 * the change that fixes the code.
 */
import fc from 'fast-check';
import { SlowStartBatchError, isSlowStartBatchError } from '../../src/index.js';
import { operatorScenario, slowStartScenario, windowOperatorScenario, windowSlowStartScenario } from '../model/arbitraries.js';
import { expectReason } from '../model/compare.js';
import { toModelScenario } from '../model/harness.js';
import { anyRetryScenario, pauseThenUnsubscribe, withLearnRate, withRateLimit } from '../model/retry-arbitraries.js';
import {
  operatorHasRetry,
  retryTraceOfObserved,
  runRetryScenario,
  toRetryModelScenario,
  type RetryObserved,
  type RetryScenarioSpec,
  type TryKind,
} from '../model/retry-harness.js';
import { checkRetryInvariants, retryTraceOfModel } from '../model/retry-invariants.js';
import { simulateRetry, type RetryModelRun, type RetryScenario, type RetryTaskPlan, type TryPlan } from '../model/retry-model.js';
import { simulateSlowStart, type ModelScenario, type TraceEvent } from '../model/slow-start-model.js';
import { propertyRuns } from '../support/property-runs.js';

const runs = propertyRuns(__filename);
const { numRuns } = runs;
const { timeout } = runs;

const whenOperatorHasRetry = operatorHasRetry ? describe : describe.skip;

/** A scenario of §2-§9 with `retry` that never retries: every failure is fatal. */
function withoutRetries(scenario: ModelScenario, how: 'maxAttempts' | 'when'): RetryScenario {
  return {
    ...scenario,
    options: {
      ...scenario.options,
      retry: how === 'maxAttempts' ? { maxAttempts: 1, delay: { kind: 'fixed', ms: 5 } } : { delay: { kind: 'fixed', ms: 5 } },
    },
    tasks: scenario.tasks.map((t): RetryTaskPlan => ({
      tries: [{ outcome: t.outcome, settles: t.settles, verdict: { kind: how === 'when' ? 'fatal' : 'transient' } }],
      isFunction: t.isFunction,
    })),
  };
}

const plainLog = (log: RetryModelRun['log']): TraceEvent[] =>
  log.map((e) => {
    if (e.type === 'invoke') return { type: 'invoke', index: e.index, batch: e.batch, time: e.time };
    if (e.type === 'settle') return { type: 'settle', index: e.index, ok: e.ok, time: e.time };
    return e;
  });

// --- hand-made scenarios ------------------------------------------------------------------------

const ok = (value: unknown, delay: number | null = 4): TryPlan => ({
  outcome: { ok: true, value },
  settles: delay === null ? { kind: 'sync' } : { kind: 'timer', delay, viaPromise: false },
  verdict: { kind: 'transient' },
});
const ko = (reason: unknown, verdict: TryPlan['verdict'] = { kind: 'transient' }, delay: number | null = 4): TryPlan => ({
  outcome: { ok: false, reason },
  settles: delay === null ? { kind: 'sync' } : { kind: 'timer', delay, viaPromise: false },
  verdict,
});
const task = (...tries: TryPlan[]): RetryTaskPlan => ({ tries, isFunction: true });

function simulate(options: RetryScenario['options'], tasks: RetryTaskPlan[]): RetryModelRun {
  const scenario: RetryScenario = { options, tasks, source: { kind: 'sync' }, unsubscribe: { kind: 'never' }, knows: 'received' };
  const run = simulateRetry(scenario);
  expect(checkRetryInvariants(retryTraceOfModel(scenario, run))).toEqual([]);
  return run;
}

/** Eight tasks of 4 ms; task 3's first try fails (transient) while tasks 3 to 6 are in flight. */
const eight = () => Array.from({ length: 8 }, (_, i) => (i === 3 ? task(ko('busy'), ok('v3')) : task(ok(`v${i}`))));

describe('the reference model of retry', () => {
  it('window pacing: pauses, retries ahead of new tasks, and ramps again from the drop', () => {
    const run = simulate({ pacing: 'window', retry: { delay: { kind: 'fixed', ms: 10 } } }, eight());
    // t = 12: task 3 fails with 4 in flight: threshold 2, pause until 22. Tasks 4 to 6 succeed at 12,
    // but they started before the drop and do not prove the new pace: the bound stays 1. At 22 the
    // retry goes alone; its success at 26 raises the bound to 2, and task 7 starts.
    expect(run.drops).toEqual([{ time: 12, index: 3, inFlight: 4, threshold: 2 }]);
    expect(run.invocations.map((c) => [c.index, c.time, c.attempt, c.batch])).toEqual([
      [0, 0, 1, 0],
      [1, 4, 1, 1],
      [2, 4, 1, 1],
      [3, 8, 1, 2],
      [4, 8, 1, 2],
      [5, 8, 1, 2],
      [6, 8, 1, 2],
      [3, 22, 2, 2],
      [7, 26, 1, 3],
    ]);
    expect(run.emissions.map((e) => [e.result.batch, e.result.startIndex, e.result.size, e.time])).toEqual([
      [0, 0, 1, 4],
      [1, 1, 2, 8],
      [2, 3, 4, 26],
      [3, 7, 1, 30],
    ]);
    expect(run.emissions[2].result.values).toEqual(['v3', 'v4', 'v5', 'v6']);
    expect(run.end).toEqual({ kind: 'complete', time: 30 });
  });

  it('batch pacing: the batch with the failure ends, the retry takes the first slot of a batch of initialBatchSize', () => {
    const run = simulate({ retry: { delay: { kind: 'fixed', ms: 10 } } }, eight());
    expect(run.rounds.map((r) => [r.time, r.members])).toEqual([
      [0, [0]],
      [4, [1, 2]],
      [8, [3, 4, 5, 6]],
      [22, [3]], // after the pause; a batch of 1 after the drop
      [26, [7]], // 2 slots (below the threshold 2), the source is done
    ]);
    expect(run.emissions.map((e) => [e.result.batch, e.result.startIndex, e.result.size, e.time])).toEqual([
      [0, 0, 1, 4],
      [1, 1, 2, 8],
      [2, 3, 4, 26],
      [3, 7, 1, 30],
    ]);
    expect(run.end).toEqual({ kind: 'complete', time: 30 });
  });

  it('the pause is the longest of when’s number and the delay; later failures extend it', () => {
    const tasks = [task(ko('r1', { kind: 'after', ms: 15 }), ok('a')), task(ok('b')), task(ko('r2', { kind: 'transient' }, 8), ok('c'))];
    const run = simulate({ pacing: 'window', initialBatchSize: 2, retry: { delay: { kind: 'table', ms: [3, 7] } } }, tasks);
    // Tasks 0 and 1 start at 0; task 0 fails at 4: pause until max(15, delay(1) = 3) = 19, threshold 2.
    // Task 2 waits for the pause, then goes after the retry of task 0.
    expect(run.invocations.map((c) => [c.index, c.time, c.attempt])).toEqual([
      [0, 0, 1],
      [1, 0, 1],
      [0, 19, 2],
      [2, 19, 1],
      [2, 30, 2],
    ]);
    // Task 2 fails at 27; it started after the drop, so it drops again; it pauses until 27 + delay(1).
    expect(run.pauses.map((p) => [p.time, p.index, p.until])).toEqual([
      [4, 0, 19],
      [27, 2, 30],
    ]);
    expect(run.drops.map((d) => [d.time, d.index, d.inFlight, d.threshold])).toEqual([
      [4, 0, 2, 2],
      [27, 2, 1, 2],
    ]);
    expect(run.emissions.map((e) => [e.result.startIndex, e.result.size, e.time])).toEqual([
      [0, 2, 23],
      [2, 1, 34],
    ]);
    expect(run.end).toEqual({ kind: 'complete', time: 34 });
  });

  it('a later transient failure extends the pause; a task started before the drop does not drop again', () => {
    const tasks = [task(ko('x'), ok('a')), task(ko('y', { kind: 'after', ms: 20 }, 8), ok('b')), task(ok('c'))];
    const run = simulate({ pacing: 'window', initialBatchSize: 2, retry: { delay: { kind: 'fixed', ms: 10 } } }, tasks);
    // t = 4: task 0 fails, pause until 14, drop. t = 8: task 1 fails, pause until 28, no second drop.
    // t = 28: both retries, in the order of their failures, before task 2 (bound 2 until 2 successes).
    expect(run.drops.map((d) => [d.time, d.index])).toEqual([[4, 0]]);
    expect(run.invocations.map((c) => [c.index, c.time, c.attempt])).toEqual([
      [0, 0, 1],
      [1, 0, 1],
      [0, 28, 2],
      [1, 28, 2],
      [2, 32, 1],
    ]);
    expect(run.end).toEqual({ kind: 'complete', time: 36 });
  });

  it('a pause of 0 ms holds nothing back: the retry starts in the same instant', () => {
    const run = simulate({ pacing: 'window', retry: { delay: { kind: 'fixed', ms: 0 } } }, [task(ko('busy'), ok('a')), task(ok('b'))]);
    // The drop leaves a bound of 1: task 1 waits for the retry to succeed.
    expect(run.invocations.map((c) => [c.index, c.time, c.attempt])).toEqual([
      [0, 0, 1],
      [0, 4, 2],
      [1, 8, 1],
    ]);
  });

  it('batch pacing: a waiting retry starts a batch without waiting for the source to fill it', () => {
    const scenario: RetryScenario = {
      options: { initialBatchSize: 2, retry: { delay: { kind: 'fixed', ms: 1 } } },
      tasks: [task(ko('busy'), ok('a')), task(ok('b'))],
      source: { kind: 'timed', arrivals: [{ time: 0, count: 2 }], end: { kind: 'never' } },
      unsubscribe: { kind: 'never' },
      knows: 'received',
    };
    const run = simulateRetry(scenario);
    expect(checkRetryInvariants(retryTraceOfModel(scenario, run))).toEqual([]);
    expect(run.rounds.map((r) => [r.time, r.members])).toEqual([
      [0, [0, 1]],
      [5, [0]],
    ]);
    expect(run.emissions.map((e) => [e.result.startIndex, e.result.size, e.time])).toEqual([[0, 2, 9]]);
    expect(run.end).toEqual({ kind: 'open' });
  });

  it('batch pacing: a result completed by its retry is emitted at once, before the batch the retry ran in ends', () => {
    const run = simulate({ initialBatchSize: 2, retry: { delay: { kind: 'fixed', ms: 1 } } }, [
      task(ko('busy'), ok('a')),
      task(ok('b')),
      task(ok('c', 20)),
    ]);
    expect(run.rounds.map((r) => [r.time, r.members])).toEqual([
      [0, [0, 1]],
      [5, [0, 2]],
    ]);
    expect(run.emissions.map((e) => [e.result.startIndex, e.result.size, e.time])).toEqual([
      [0, 2, 9],
      [2, 1, 25],
    ]);
  });

  it('a task out of tries stops the run with the reason of its last try; a queued retry is abandoned with its own', () => {
    const tasks = [task(ko('first'), ko('second'), ok('never')), task(ko('other', { kind: 'transient' }, 8), ok('late'))];
    const run = simulate({ pacing: 'window', initialBatchSize: 2, retry: { maxAttempts: 2, delay: { kind: 'fixed', ms: 1 } } }, tasks);
    expect(run.invocations.map((c) => [c.index, c.time, c.attempt])).toEqual([
      [0, 0, 1],
      [1, 0, 1],
      [0, 5, 2],
    ]);
    // Task 1 fails at 8 (pause until 9); task 0 is out of tries at 9, before that pause ends: the run
    // stops, and task 1 waits for a retry that never comes.
    expect(run.end.kind).toBe('batchError');
    if (run.end.kind !== 'batchError') return;
    expect(run.end.error.cause).toBe('second');
    expect(run.end.error.results).toEqual([
      { index: 0, status: 'rejected', reason: 'second' },
      { index: 1, status: 'abandoned', reason: 'other' },
    ]);
  });

  it('a when that throws makes the failure fatal with the thrown error', () => {
    const thrown = new Error('when failed');
    const run = simulate({ retry: { delay: { kind: 'fixed', ms: 1 } } }, [task(ko('r', { kind: 'throws', error: thrown }), ok('x'))]);
    expect(run.end.kind === 'batchError' && run.end.error.cause).toBe(thrown);
  });

  it(
    `without retries is the model of §2-§9, on ${numRuns} generated scenarios of both pacings`,
    () => {
      const scenarios = fc.oneof(operatorScenario, slowStartScenario, windowOperatorScenario, windowSlowStartScenario);
      fc.assert(
        fc.property(scenarios, fc.constantFrom('maxAttempts' as const, 'when' as const), (s, how) => {
          const model = toModelScenario(s);
          const expected = simulateSlowStart(model);
          const actual = simulateRetry(withoutRetries(model, how));
          expect(actual.invocations.map((c) => [c.index, c.batch, c.time])).toEqual(
            expected.invocations.map((c) => [c.index, c.batch, c.time]),
          );
          expect(actual.emissions).toEqual(expected.emissions);
          expect(actual.end).toEqual(expected.end);
          expect(actual.tornDown).toEqual(expected.tornDown);
          expect(actual.received).toBe(expected.received);
          expect(plainLog(actual.log)).toEqual(expected.log);
          expect(actual.drops).toEqual([]);
        }),
        runs.params(),
      );
    },
    timeout,
  );

  it(
    `keeps the rules of §10 on ${numRuns} generated scenarios with retries (both pacings)`,
    () => {
      fc.assert(
        fc.property(anyRetryScenario, (s) => {
          const scenario = toRetryModelScenario(s);
          expect(checkRetryInvariants(retryTraceOfModel(scenario, simulateRetry(scenario)))).toEqual([]);
        }),
        runs.params(),
      );
    },
    timeout,
  );
});

// --- the operator --------------------------------------------------------------------------------

function expectMatchesRetryModel(observed: RetryObserved, model: RetryModelRun) {
  const rows = (list: { index: number; batch: number; attempt: number; time: number }[]) =>
    JSON.stringify(list.map((c) => [c.index, c.attempt, c.batch, c.time]));
  if (rows(observed.invocations) !== rows(model.invocations))
    expect(observed.invocations.map((c) => [c.index, c.attempt, c.batch, c.time])).toEqual(
      model.invocations.map((c) => [c.index, c.attempt, c.batch, c.time]),
    );
  // `when` is asked once per failed try that has tries left while the run goes on; `delay` after it says transient.
  if (JSON.stringify(observed.calls) !== JSON.stringify(model.calls)) expect(observed.calls).toEqual(model.calls);
  const wrong = observed.invocations.find((c) => c.contextIndex !== c.index);
  if (wrong) throw new Error(`task ${wrong.index} was told index ${wrong.contextIndex}`);
  expect(observed.signalViolations).toEqual([]);

  expect(observed.emissions.map((e) => [e.time, e.value.batch, e.value.startIndex, e.value.size, e.value.successes])).toEqual(
    model.emissions.map((e) => [e.time, e.result.batch, e.result.startIndex, e.result.size, e.result.successes]),
  );
  model.emissions.forEach((e, k) => {
    e.result.values.forEach((v, j) => expectReason(observed.emissions[k].value.values[j], v, `emission ${k} values[${j}]`));
  });

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
      expect(observed.end).toEqual({ kind: 'error', time: end.time, error: end.error });
      break;
    case 'batchError': {
      expect(observed.end.kind).toBe('error');
      if (observed.end.kind !== 'error') break;
      expect(observed.end.time).toBe(end.time);
      const actual = observed.end.error as SlowStartBatchError;
      expect(isSlowStartBatchError(actual)).toBe(true);
      const e = end.error;
      expect({
        batch: actual.batch,
        startIndex: actual.startIndex,
        size: actual.size,
        successes: actual.successes,
        skipped: actual.skipped,
      }).toEqual({
        batch: e.batch,
        startIndex: e.startIndex,
        size: e.size,
        successes: e.successes,
        skipped: e.skipped,
      });
      expect(actual.results.map((r) => [r.index, r.status])).toEqual(e.results.map((r) => [r.index, r.status]));
      e.results.forEach((r, k) => {
        const o = actual.results[k];
        if (r.status === 'fulfilled' && o.status === 'fulfilled') expectReason(o.value, r.value, `results[${k}].value`);
        if (r.status !== 'fulfilled' && o.status !== 'fulfilled') expectReason(o.reason, r.reason, `results[${k}].reason`);
      });
      expectReason(actual.cause, e.cause, 'cause');
      expect(actual.sourceError).toBe(e.sourceError?.error);
      expect(actual.remaining).toHaveLength(e.remaining.length);
      actual.remaining.forEach((f: unknown, k: number) => expect(f).toBe(observed.items[e.remaining[k]]));
      break;
    }
  }
  expect(observed.openTaskSubscriptions).toEqual([]);
  expect(observed.pendingTimersAfterEnd).toBe(0);
  for (const index of model.tornDown) {
    const last = observed.invocations.filter((c) => c.index === index).at(-1);
    if (!last?.signal.aborted) throw new Error(`task ${index} was torn down but its signal did not abort`);
  }
}

/** Tries for hand-made operator scenarios: 4 ms unless said otherwise; failures are transient. */
const succeedsAfter = (value: string, delay: number | null = 4): TryKind => ({ kind: 'observable', value, delay });
const throttledAfter = (reason: string, delay: number | null = 4): TryKind => ({
  kind: 'observableError',
  reason: new Error(reason),
  delay,
  verdict: { kind: 'transient' },
});
const throwsThrottle = (reason: string): TryKind => ({ kind: 'throw', reason: new Error(reason), verdict: { kind: 'transient' } });

/**
 * Counterexamples the properties found in the operator, each reduced by hand, with the section that
 * decides. Each failed until the operator was fixed.
 */
const found: [string, RetryScenarioSpec][] = [
  [
    // §10 (after a drop, no more in flight than the pace allows). Window pacing: tasks 3 and 7 are
    // throttled as they start, at the same instant, with a pause of 0. Task 7's throttle drops the pace
    // to 1 while task 6 (a promise) is in flight; its pause ends no later than task 3's, so the runner
    // went on starting with the room it had counted before, and started task 7 again beside task 6.
    'window: a second throttle whose pause is already under way still stops the tasks being started',
    {
      api: 'operator',
      options: { initialBatchSize: 1, concurrency: 3, maxBatchSize: 3, pacing: 'window', retry: { delay: { kind: 'fixed', ms: 0 } } },
      tasks: [
        { tries: [succeedsAfter('0', null)] },
        { tries: [succeedsAfter('1', null)] },
        { tries: [{ kind: 'promise', ok: true, value: '2', delay: null }] },
        { tries: [throttledAfter('busy', null), succeedsAfter('3', null)] },
        { tries: [succeedsAfter('4', null)] },
        { tries: [succeedsAfter('5', null)] },
        { tries: [{ kind: 'promise', ok: true, value: '6', delay: null }] },
        { tries: [throttledAfter('busy', null), succeedsAfter('7', null)] },
        { tries: [succeedsAfter('8', null)] },
      ],
      source: { kind: 'array' },
      unsubscribe: { kind: 'never' },
    },
  ],
  [
    // §10 "No task at all is invoked until the pause has passed". Window pacing: task 0 succeeds at 4,
    // the bound becomes 2 and task 1 starts and throws a throttle (pause until 9) at once; the operator
    // starts the retry of task 1 in the same instant, at 4, instead of at 9.
    'window: a try that fails synchronously is retried at once, during its own pause',
    {
      api: 'operator',
      options: { pacing: 'window', retry: { delay: { kind: 'fixed', ms: 5 } } },
      tasks: [{ tries: [succeedsAfter('a')] }, { tries: [throwsThrottle('busy'), succeedsAfter('b')] }, { tries: [succeedsAfter('c')] }],
      source: { kind: 'array' },
      unsubscribe: { kind: 'never' },
    },
  ],
  [
    // §10 (the pause; "the batch with the transient failure still runs to its end first"), §4 (a batch
    // runs to its end). Batch pacing, a batch of 2: task 0 throws a throttle (pause until 5); the
    // operator retries it at 0 in the slot of task 1, which moves to a batch of its own at 5: results
    // [0] and [1] instead of [0, 1].
    'batch: a synchronous throttle is retried at once in the running batch, and pushes its sibling out',
    {
      api: 'operator',
      options: { initialBatchSize: 2, retry: { delay: { kind: 'fixed', ms: 5 } } },
      tasks: [{ tries: [throwsThrottle('busy'), succeedsAfter('a')] }, { tries: [succeedsAfter('b')] }],
      source: { kind: 'array' },
      unsubscribe: { kind: 'never' },
    },
  ],
  [
    // §10 ("the batch with the transient failure still runs to its end first"; a retried task takes a
    // slot of the next batch). Batch pacing, a batch of 2 with concurrency 1: task 0 fails at 4 (pause
    // until 9); at 9 the operator starts the retry in the running batch, before task 1, which then
    // runs in a batch of its own.
    'batch with concurrency: after the pause the retry takes the slot of an unstarted task of the running batch',
    {
      api: 'operator',
      options: { initialBatchSize: 2, concurrency: 1, retry: { delay: { kind: 'fixed', ms: 5 } } },
      tasks: [{ tries: [throttledAfter('busy'), succeedsAfter('a')] }, { tries: [succeedsAfter('b')] }],
      source: { kind: 'array' },
      unsubscribe: { kind: 'never' },
    },
  ],
  [
    // §3 (a synchronous source always gives full batches), §8 (slowStart pulls what the next batch
    // needs). slowStart over an array, a pause of 0 ms: the batch after the drop (2 slots) holds the
    // retry and task 2, pulled for it; its result is [2], and [3] follows. slowStartBatch over from() of
    // the same array runs the retry alone (task 2 has not arrived when task 0 is throttled), then
    // [2, 3]. Results: [0, 1], [2], [3] against [0, 1], [2, 3].
    'slowStart, batch pacing: the batch after a 0 ms pause holds the retry and a factory pulled for it',
    {
      api: 'slowStart',
      options: { initialBatchSize: 2, retry: { delay: { kind: 'fixed', ms: 0 } } },
      tasks: [
        { tries: [throttledAfter('busy', 0), succeedsAfter('a', 0)] },
        { tries: [succeedsAfter('b', 0)] },
        { tries: [succeedsAfter('c', 0)] },
        { tries: [succeedsAfter('d', 0)] },
      ],
      source: { kind: 'array' },
      unsubscribe: { kind: 'never' },
    },
  ],
  [
    // §10 (the pause is on the scheduler), §7 and §11 (nothing hanging). Batch pacing with flushAfter 1:
    // task 0 fails at 4 (pause until 14) while task 1 waits. The flush timer is due, fires, finds the
    // pause, and is armed again with delay 0, over and over: in virtual time the run never reaches 14
    // (the harness gives up after 20,000 scheduler actions); with the asyncScheduler it spins a timer
    // every millisecond of the pause.
    'batch with flushAfter: the flush timer spins during a pause',
    {
      api: 'operator',
      options: { initialBatchSize: 1, flushAfter: 1, retry: { delay: { kind: 'fixed', ms: 10 } } },
      tasks: [{ tries: [throttledAfter('busy'), succeedsAfter('a')] }, { tries: [succeedsAfter('b')] }],
      source: { kind: 'array' },
      unsubscribe: { kind: 'never' },
    },
  ],
];

/**
 * Counterexamples the properties found in the reference model (spec/model/retry-model.ts), where the
 * operator was right: each failed until the model was fixed.
 */
const foundInTheModel: [string, RetryScenarioSpec][] = [
  [
    // §10 "No task at all is invoked until the pause has passed", and no later. Batch pacing, one
    // batch of 4: task 1 fails at once (pause until 8); at 8, task 2 starts and fails at once (pause
    // until 16). At 16 the source completes, then task 0 fails (a pause until 24). The operator starts
    // task 3 as the source completes, the pause being over; the model waited for the pause's own timer,
    // which comes after task 0's failure at the same instant, and started task 3 at 24: it did not look
    // at the round when the source completed during one. Found with seed 303 at 20,000 runs.
    'batch: the source completes at the instant a pause ends, during a round held back by it',
    {
      api: 'operator',
      options: { initialBatchSize: 4, growthFactor: 1, maxBatchSize: 4, retry: { delay: { kind: 'table', ms: [8] } } },
      tasks: [
        {
          tries: [
            { kind: 'observableError', reason: new Error('0, try 1'), delay: 16, verdict: { kind: 'after', ms: 0 } },
            { kind: 'observableError', reason: new Error('0, try 2'), delay: 0, verdict: { kind: 'after', ms: 0 } },
            succeedsAfter('0', 0),
          ],
        },
        {
          tries: [
            throttledAfter('1, try 1', null),
            { kind: 'observableError', reason: new Error('1, try 2'), delay: 0, verdict: { kind: 'after', ms: 0 } },
            succeedsAfter('1', 0),
          ],
        },
        { tries: [throwsThrottle('2, try 1'), succeedsAfter('2', null)] },
        { tries: [succeedsAfter('3', 0)] },
      ],
      source: {
        kind: 'subject',
        arrivals: [
          { time: 0, count: 1 },
          { time: 0, count: 1 },
          { time: 0, count: 1 },
          { time: 0, count: 1 },
        ],
        end: { kind: 'complete', time: 16 },
      },
      unsubscribe: { kind: 'never' },
    },
  ],
  [
    // §3 (a synchronous source gives full batches) and §8 (slowStart pulls what the next batch needs).
    // slowStart over an array, batches of 2: task 1 is throttled synchronously (a pause of 0 ms) and
    // its retry fails at 0 too, when `delay` throws and stops the run. The batch after the drop holds
    // the retry and task 2, which slowStart pulls for it before starting either: task 2 runs, and the
    // error reports it. The model delivered the array as `from()` does, task 2 arriving only after the
    // retry had started alone, and never invoked it. Found with seed 31527187.
    'slowStart, batch pacing: the batch a synchronous throttle opens is filled from the array first',
    {
      api: 'slowStart',
      options: {
        initialBatchSize: 2,
        retry: { delay: { kind: 'table', ms: [0], throws: { attempt: 2, error: new Error('delay threw for attempt 2') } } },
      },
      tasks: [
        { tries: [succeedsAfter('0', null)] },
        { tries: [throttledAfter('1, try 1', null), throttledAfter('1, try 2', 0)] },
        { tries: [succeedsAfter('2', null)] },
      ],
      source: { kind: 'array' },
      unsubscribe: { kind: 'never' },
    },
  ],
];

/**
 * Counterexamples the properties found in the rules' checker (spec/model/retry-invariants.ts), run on
 * the reference model: each failed until the checker was fixed. The operator must agree with the model.
 */
const foundInTheChecker: [string, RetryScenarioSpec][] = [
  [
    // §2 (growth from the size that ran), §9 and §10 (the bound, counted from the drop). Batch pacing,
    // batches of 4 then 12: task 15, the last of the second, is throttled (threshold 6, pause 0). Only
    // 16 and 17 wait, so the retry starts the next batch with them: 3 tasks, short of the pace's 4. The
    // batch after it holds min(6, ceil(3 * 3)) = 6 tasks after 3 successes since the drop, where the
    // bound counted from the successes allows 4: the checker applied that bound after a short batch,
    // which it already left unchecked when flushAfter cuts batches short.
    'batch: after a short batch that a retry started, the next one grows from what ran',
    {
      api: 'operator',
      options: {
        initialBatchSize: 4,
        growthFactor: 3,
        concurrency: Infinity,
        pacing: 'batch',
        retry: { maxAttempts: 2, delay: { kind: 'fixed', ms: 0 } },
      },
      tasks: Array.from({ length: 24 }, (_, i) => ({
        tries:
          i === 15
            ? [{ kind: 'throw', reason: new Error('busy'), verdict: { kind: 'after', ms: 0 } }, succeedsAfter('15', null)]
            : [succeedsAfter(String(i), 0)],
      })),
      source: {
        kind: 'subject',
        arrivals: [
          { time: 4, count: 4 },
          { time: 12, count: 14 },
          { time: 16, count: 6 },
        ],
        end: { kind: 'complete', time: 16 },
      },
      unsubscribe: { kind: 'never' },
    },
  ],
];

/** The operator on one scenario: the rules of §10 on its log, and nothing left open or scheduled. */
async function checkRules(s: RetryScenarioSpec) {
  const observed = await runRetryScenario(s);
  expect(checkRetryInvariants(retryTraceOfObserved(s, observed))).toEqual([]);
  expect(observed.signalViolations).toEqual([]);
  expect(observed.openTaskSubscriptions).toEqual([]);
  expect(observed.pendingTimersAfterEnd).toBe(0);
  return observed;
}

describe('counterexamples found by the properties', () => {
  // A defect of the operator, or of the model: either way the two agree now, and the rules hold.
  it.each([...found, ...foundInTheModel.map(([name, s]): [string, RetryScenarioSpec] => [`the model agrees: ${name}`, s])])(
    '%s',
    async (_, s) => {
      const observed = await checkRules(s);
      expectMatchesRetryModel(observed, simulateRetry(toRetryModelScenario(s)));
    },
  );

  it.each(foundInTheChecker)('the model keeps the rules: %s', async (_, s) => {
    const scenario = toRetryModelScenario(s);
    const model = simulateRetry(scenario);
    expect(checkRetryInvariants(retryTraceOfModel(scenario, model))).toEqual([]);
    expectMatchesRetryModel(await checkRules(s), model);
  });
});

whenOperatorHasRetry('retry: the operator against the rules of §10 and the model', () => {
  // `retry.learnRate` and `rateLimit` space starts with pauses of their own: the model does not know
  // them, the rules hold (§13: an announced budget may only make a task start later).
  const flavours = [
    ['', anyRetryScenario, pauseThenUnsubscribe],
    [', with `retry.learnRate`', withLearnRate(anyRetryScenario), withLearnRate(pauseThenUnsubscribe)],
    [', with `rateLimit` (§13)', withRateLimit(anyRetryScenario), withRateLimit(pauseThenUnsubscribe)],
  ] as const;

  it.each(flavours)(
    `keeps the rules of §10 on ${numRuns} generated scenarios (both pacings, arrays, subjects, slowStart)%s`,
    async (_, scenarios) => {
      await fc.assert(
        fc.asyncProperty(scenarios, async (s) => {
          await checkRules(s);
        }),
        runs.params(),
      );
    },
    timeout,
  );

  it.each(flavours)(
    `leaves nothing scheduled when the consumer unsubscribes during a pause, on ${numRuns} generated scenarios%s`,
    async (_, __, scenarios) => {
      await fc.assert(
        fc.asyncProperty(scenarios, async (s) => {
          const observed = await checkRules(s);
          if (observed.end.kind === 'unsubscribed') {
            const after = observed.invocations.filter((c) => c.time > (observed.end as { time: number }).time);
            expect(after).toEqual([]);
          }
        }),
        runs.params(),
      );
    },
    timeout,
  );

  it(
    `agrees with the reference model on ${numRuns} generated scenarios (both pacings)`,
    async () => {
      await fc.assert(
        fc.asyncProperty(anyRetryScenario, async (s) => {
          const model = simulateRetry(toRetryModelScenario(s));
          const observed = await runRetryScenario(s);
          expectMatchesRetryModel(observed, model);
        }),
        runs.params(),
      );
    },
    timeout,
  );
});
