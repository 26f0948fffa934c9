// §12 on generated scenarios: the events of a run, folded, give exactly its outcome. The scenarios are
// those of the retry properties (both pacings, arrays, subjects, slowStart, unsubscribing at any time),
// run with an `events` listener; the model's runs are the reference for what started when.
import fc from 'fast-check';
import { isSlowStartBatchError, type SlowStartEvent } from '../../src/index.js';
import { initialState, nextState, type SlowStartState, type TaskStatus } from '../../src/run-state.js';
import {
  runRetryScenario,
  toRetryModelScenario,
  type RetryObserved,
  type RetryScenarioSpec,
  type TryKind,
} from '../model/retry-harness.js';
import { anyRetryScenario, pauseThenUnsubscribe, withLearnRate } from '../model/retry-arbitraries.js';
import { simulateRetry, type RetryModelRun } from '../model/retry-model.js';
import { propertyRuns } from '../support/property-runs.js';

const runs = propertyRuns(__filename);
const { numRuns, timeout } = runs;

type End = Extract<SlowStartEvent, { type: 'end' }>;
const finals = new Set<SlowStartEvent['type']>(['succeeded', 'failed', 'abandoned', 'cancelled', 'skipped']);

/**
 * Every rule of §12 that one run's events must keep, as a list of what broke (empty when none did):
 * the order of each task's events, one final account per task, the results and the end where the
 * stream has them, and a live state that adds up.
 */
function eventViolations(s: RetryScenarioSpec, observed: RetryObserved): string[] {
  const problems: string[] = [];
  const fail = (message: string) => problems.push(message);
  const events = observed.events.map((e) => e.event);
  if (events[0]?.type !== 'start' || events[1]?.type !== 'pace') fail('a run begins with start, then its pace');
  const ends = events.filter((e): e is End => e.type === 'end');
  if (ends.length !== 1 || events.at(-1)?.type !== 'end') fail(`a run ends once, last: ${ends.length} ends`);

  // Each task: received (unless never pulled), each try started then settled, one final account.
  type Where = 'received' | 'inFlight' | 'retrying' | 'final';
  const where = new Map<number, Where>();
  const attempts = new Map<number, number>();
  const finalOf = new Map<number, SlowStartEvent['type']>();
  for (const e of events) {
    if (!('index' in e)) continue;
    const was = where.get(e.index);
    if (e.key !== e.index) fail(`task ${e.index} has key ${String(e.key)}`);
    const step = (allowed: (Where | undefined)[], to: Where) => {
      if (!allowed.includes(was)) fail(`task ${e.index}: ${e.type} when ${String(was)}`);
      where.set(e.index, to);
    };
    switch (e.type) {
      case 'received':
        step([undefined], 'received');
        break;
      case 'started':
        step(['received', 'retrying'], 'inFlight');
        if (e.attempt !== (attempts.get(e.index) ?? 0) + 1) fail(`task ${e.index} started attempt ${e.attempt}`);
        attempts.set(e.index, e.attempt);
        break;
      case 'throttled':
        step(['inFlight'], 'retrying');
        break;
      case 'succeeded':
      case 'failed':
      case 'cancelled':
        step(['inFlight'], 'final');
        break;
      case 'abandoned':
        step(['retrying'], 'final');
        break;
      case 'skipped':
        step([undefined, 'received'], 'final');
        break;
    }
    if (finals.has(e.type)) finalOf.set(e.index, e.type);
  }
  for (const [index, w] of where) if (w !== 'final') fail(`task ${index} has no final account (${w})`);
  const accounted = [...finalOf.keys()].sort((a, b) => a - b);
  if (s.api === 'slowStart' && accounted.length !== s.tasks.length)
    fail(`slowStart accounts for ${accounted.length} of ${s.tasks.length} tasks`);
  if (s.api === 'operator' && events.filter((e) => e.type === 'received').length !== observed.received)
    fail(`received ${observed.received} factories, reported ${events.filter((e) => e.type === 'received').length}`);

  // The tries started are the factories invoked.
  const started = events.flatMap((e) => (e.type === 'started' ? [[e.index, e.attempt, e.batch, e.time]] : []));
  const invoked = observed.invocations.map((c) => [c.index, c.attempt, c.batch, c.time]);
  // A listener that unsubscribes is not in these scenarios, so every try started is invoked.
  if (JSON.stringify(started) !== JSON.stringify(invoked)) fail(`started ${JSON.stringify(started)}, invoked ${JSON.stringify(invoked)}`);

  // Each result reported, in order, before it is emitted.
  const results = observed.events.filter((e) => e.event.type === 'result');
  const emits = observed.log.flatMap((entry, at) => (entry.type === 'emit' ? [at] : []));
  if (results.length !== observed.emissions.length) fail(`${results.length} results reported, ${observed.emissions.length} emitted`);
  results.forEach(({ event, at }, k) => {
    if ((event as Extract<SlowStartEvent, { type: 'result' }>).result !== observed.emissions[k]?.value)
      fail(`result ${k} is not the one emitted`);
    if (at > emits[k]) fail(`result ${k} was reported after its emission`);
  });

  // The end: how, its error, its accounts, and what to run again.
  const end = ends[0] as End | undefined;
  if (end === undefined) return problems;
  const how = observed.end.kind === 'complete' ? 'completed' : observed.end.kind === 'error' ? 'failed' : 'cancelled';
  if (end.how !== how) fail(`the end says ${end.how}; the stream ${observed.end.kind}`);
  const endAt = observed.events.find((e) => e.event === end)!.at;
  const streamEnd = observed.log.findIndex((entry) => entry.type === 'end');
  if (streamEnd !== -1 && endAt > streamEnd) fail('the end was reported after the stream ended');
  if (observed.end.kind === 'error' && !Object.is(end.error, observed.end.error)) fail("the end's error is not the stream's");
  for (const type of finals) {
    const count = [...finalOf.values()].filter((t) => t === type).length;
    if (end[type as keyof End] !== count) fail(`the end counts ${String(end[type as keyof End])} ${type}, the events ${count}`);
  }
  const unsucceeded = accounted.filter((index) => finalOf.get(index) !== 'succeeded');
  if (JSON.stringify(end.unfinishedKeys) !== JSON.stringify(unsucceeded))
    fail(`unfinished keys ${JSON.stringify(end.unfinishedKeys)}, not the tasks that did not succeed ${JSON.stringify(unsucceeded)}`);
  end.unfinished.forEach((factory, k) => {
    if (factory !== observed.items[end.unfinishedKeys[k] as number])
      fail(`unfinished[${k}] is not task ${String(end.unfinishedKeys[k])}'s factory`);
  });
  const error = observed.end.kind === 'error' ? observed.end.error : undefined;
  if (isSlowStartBatchError(error)) {
    if (error.unfinished.length !== end.unfinished.length || error.unfinished.some((f, k) => f !== end.unfinished[k]))
      fail("the end's unfinished are not the error's");
    for (const r of error.results) {
      const expected = r.status === 'fulfilled' ? 'succeeded' : r.status === 'rejected' ? 'failed' : 'abandoned';
      if (finalOf.get(r.index) !== expected)
        fail(`results say task ${r.index} is ${r.status}; its account is ${String(finalOf.get(r.index))}`);
    }
  }

  // The live state adds up, at every event, to the tasks' accounts so far; and at the end to the end's.
  let state = initialState();
  const inFlight = new Set<string>();
  for (const e of events) {
    state = nextState(state, e);
    if (e.type === 'started') inFlight.add(`${e.index}`);
    if (e.type === 'succeeded' || e.type === 'failed' || e.type === 'throttled' || e.type === 'cancelled') inFlight.delete(`${e.index}`);
    if (state.inFlight !== inFlight.size)
      fail(`at ${e.type}${'index' in e ? ` of ${e.index}` : ''}: the state has ${state.inFlight} in flight, the events ${inFlight.size}`);
  }
  const counts = (st: SlowStartState) => [
    st.succeeded,
    st.failed,
    st.abandoned,
    st.cancelled,
    st.skipped,
    st.waiting,
    st.inFlight,
    st.retrying,
  ];
  const expectedCounts = [end.succeeded, end.failed, end.abandoned, end.cancelled, end.skipped, 0, 0, 0];
  if (JSON.stringify(counts(state)) !== JSON.stringify(expectedCounts))
    fail(`the final state counts ${JSON.stringify(counts(state))}, the end ${JSON.stringify(expectedCounts)}`);
  for (const [index, type] of finalOf) {
    if (state.tasks.get(index) !== (type as TaskStatus))
      fail(`the state says task ${index} is ${String(state.tasks.get(index))}, not ${type}`);
  }
  return problems;
}

/**
 * Against the model: the tries start as the model starts them, and at the end of every instant before
 * the run's end the state has the model's tasks in flight.
 */
function modelViolations(observed: RetryObserved, model: RetryModelRun): string[] {
  const problems: string[] = [];
  const events = observed.events.map((e) => e.event);
  const endTime = events.find((e) => e.type === 'end')?.time ?? Infinity;
  let state = initialState();
  const stateAt = new Map<number, number>();
  for (const e of events) {
    state = nextState(state, e);
    // An arrival is not timed, and changes nothing in flight.
    if ('time' in e) stateAt.set(e.time, state.inFlight);
  }
  let modelInFlight = 0;
  const modelAt = new Map<number, number>();
  for (const entry of model.log) {
    if (entry.type === 'invoke') modelInFlight++;
    if (entry.type === 'settle') modelInFlight--;
    if ('time' in entry) modelAt.set(entry.time, modelInFlight);
  }
  for (const [time, count] of modelAt) {
    if (time < endTime && stateAt.has(time) && stateAt.get(time) !== count)
      problems.push(`at ${time} the state has ${stateAt.get(time)} in flight, the model ${count}`);
  }
  return problems;
}

/** A try that succeeds with `value` after `delay` ms, or at once when `delay` is null. */
const succeeds = (value: string, delay: number | null): TryKind => ({ kind: 'observable', value: { value }, delay });

/** Counterexamples the properties found, each reduced by hand; each failed until the operator was fixed. */
const found: [string, RetryScenarioSpec][] = [
  [
    // §12 (every task accounted for once). Window pacing, results of 1 then up to 3, two at a time:
    // task 3 waits when the source errors at 5; at 10 tasks 1 and 2 succeed, and the run, ending,
    // closes their result and emits it, and the consumer unsubscribes on it. The runner had taken the
    // waiting factories before that emission, so the cancel that followed found none: task 3 had no
    // final account. Found with seed 606 at 20,000 runs.
    'window: the consumer leaves on the result the end of a run emits, after the source errored',
    {
      api: 'operator',
      options: { initialBatchSize: 1, growthFactor: 3, concurrency: 2, pacing: 'window', retry: { delay: { kind: 'fixed', ms: 5 } } },
      tasks: [
        { tries: [succeeds('0', null)] },
        { tries: [succeeds('1', 10)] },
        { tries: [succeeds('2', 10)] },
        { tries: [succeeds('3', 10)] },
      ],
      source: {
        kind: 'subject',
        arrivals: [{ time: 0, count: 4 }],
        end: { kind: 'error', time: 5, error: new Error('the source failed') },
      },
      unsubscribe: { kind: 'inNext', emission: 1 },
    },
  ],
];

describe('counterexamples of the events found by the properties', () => {
  it.each(found)('%s', async (_, s) => {
    expect(eventViolations(s, await runRetryScenario(s, true))).toEqual([]);
  });
});

describe('the events of a run (§12), on generated scenarios', () => {
  it(
    `add up to its outcome: each task accounted for once, results and the end where the stream has them (${numRuns} scenarios, both pacings, arrays, subjects, slowStart)`,
    async () => {
      await fc.assert(
        fc.asyncProperty(fc.oneof(anyRetryScenario, pauseThenUnsubscribe, withLearnRate(anyRetryScenario)), async (s) => {
          expect(eventViolations(s, await runRetryScenario(s, true))).toEqual([]);
        }),
        runs.params(),
      );
    },
    timeout,
  );

  it(
    `have the model's tasks in flight at the end of every instant (${numRuns} scenarios)`,
    async () => {
      await fc.assert(
        fc.asyncProperty(anyRetryScenario, async (s) => {
          const observed = await runRetryScenario(s, true);
          expect(modelViolations(observed, simulateRetry(toRetryModelScenario(s)))).toEqual([]);
        }),
        runs.params(),
      );
    },
    timeout,
  );
});
