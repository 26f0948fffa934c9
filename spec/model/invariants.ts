/**
 * The invariants of §9, checked on the log of one run, whoever produced it: the reference model
 * (`traceOfModel`) or the real operator (`traceOfObserved` in harness.ts). Unlike the comparison with
 * the model, which needs the model to be right, these checks state the contract directly:
 *
 * - the bound: whenever a task is invoked, the tasks in flight (invoked, not settled) are at most
 *   `min(s(k), concurrency)` with S(k) <= successes so far < S(k + 1) (both pacings);
 * - results cover the source in order, without gaps or overlap, each as soon as it is due, with the
 *   values of its tasks and cumulative `successes`;
 * - `context.batch` is the `batch` of the result that reports the task (for the error: the failing
 *   batch in batch pacing; the result the index falls in, in window pacing);
 * - no factory is invoked after the run stops (a failure, a source error, an unsubscription, the end);
 * - nothing is lost: every invoked task is in an emitted result or in the error's `results`, and every
 *   factory the run knows of and did not invoke is in `remaining`.
 *
 * Each check returns the violations it found as sentences, so a failing property says what broke.
 */
import {
  OPERATOR_MADE_ERROR,
  Ramp,
  type ExpectedBatchResult,
  type ExpectedOutcome,
  type ModelOptions,
  type ModelRun,
  type ModelScenario,
  type TaskPlan,
  type TraceEvent,
} from './slow-start-model.js';

export type TraceEnd =
  | { kind: 'complete' | 'unsubscribed' | 'open' | 'sourceError' }
  | {
      kind: 'batchError';
      error: {
        batch: number;
        startIndex: number;
        size: number;
        successes: number;
        cause: unknown;
        results: ExpectedOutcome[];
        /** Source indices of `remaining`, -1 for an entry that is not the factory expected there. */
        remaining: number[];
        /** The operator's `unfinished` (-1 as above) and `resumeFrom`, for resuming a run (§11). */
        unfinished?: number[];
        resumeFrom?: number;
      };
    };

export interface Trace {
  options: ModelOptions;
  tasks: TaskPlan[];
  /** The events in the order they happened, ending with `end` if the stream ended. */
  log: (TraceEvent | { type: 'end' })[];
  end: TraceEnd;
  /** How many factories the run knows of: received (the operator), pulled, or the whole array. */
  known: number;
  /** False when the log cannot show when an item that is not a function failed (the operator's log). */
  seesEveryFailure: boolean;
  /** False when the log cannot show when the source ended (`slowStart()` owns its source). */
  showsSourceEnd: boolean;
}

export function traceOfModel(scenario: ModelScenario, run: ModelRun): Trace {
  const log: Trace['log'] = [...run.log];
  let end: TraceEnd;
  if (run.end.kind === 'batchError') {
    const e = run.end.error;
    end = { kind: 'batchError', error: { ...e } };
  } else end = { kind: run.end.kind };
  if (run.end.kind !== 'open' && run.end.kind !== 'unsubscribed') log.push({ type: 'end' });
  return {
    options: scenario.options,
    tasks: scenario.tasks,
    log,
    end,
    known: scenario.knows === 'all' ? scenario.tasks.length : run.received,
    seesEveryFailure: true,
    showsSourceEnd: true,
  };
}

/** A value or reason as the plan says; the operator makes its own TypeErrors. */
function sameOutcome(actual: unknown, expected: unknown): boolean {
  if (expected === OPERATOR_MADE_ERROR) return actual === OPERATOR_MADE_ERROR || actual instanceof TypeError;
  return Object.is(actual, expected);
}

export function checkInvariants(trace: Trace): string[] {
  const violations: string[] = [];
  const fail = (message: string) => {
    if (violations.length < 20) violations.push(message);
  };
  const { options, tasks, log, end } = trace;
  const window = options.pacing === 'window';
  const ramp = new Ramp(options);
  const concurrency = options.concurrency ?? Infinity;
  // With `flushAfter`, a short batch grows from the size it ran (§2, §3c), which the bound of §9 does
  // not allow for: a batch of 1 then a flushed one of 2 at growth 3 is followed by a batch of 6 while
  // §9 allows 3 after 3 successes. The bound is checked where the two sections agree.
  const checksBound = window || options.flushAfter === undefined;

  const inFlight = new Set<number>();
  const invokedBatch = new Map<number, number>();
  const settledAt = new Map<number, number>();
  let successes = 0;
  let lastInvoked = -1;
  let firstFailure: { index: number; position: number } | undefined;
  let failingBatch: number | undefined;
  let sourceErrorAt: number | undefined;
  let maxBatchBeforeSourceError = -1;
  let maxBatch = -1;
  let unsubscribedAt: number | undefined;
  let endedAt: number | undefined;
  const emits: { result: ExpectedBatchResult; position: number }[] = [];
  let sourceEndAt: number | undefined;

  log.forEach((event, position) => {
    if (endedAt !== undefined) fail(`${event.type} after the stream ended`);
    switch (event.type) {
      case 'invoke': {
        const { index, batch } = event;
        if (index <= lastInvoked) fail(`task ${index} invoked after task ${lastInvoked} (source order, once each)`);
        lastInvoked = Math.max(lastInvoked, index);
        invokedBatch.set(index, batch);
        inFlight.add(index);
        if (inFlight.size > concurrency) fail(`${inFlight.size} tasks in flight with concurrency ${concurrency}`);
        if (checksBound && inFlight.size > ramp.bound(successes))
          fail(`task ${index} made ${inFlight.size} in flight after ${successes} successes; §9 allows ${ramp.bound(successes)}`);
        if (window && batch !== ramp.indexOf(index)) fail(`task ${index} was told batch ${batch}; its result is ${ramp.indexOf(index)}`);
        if (firstFailure !== undefined) {
          // Batch pacing runs the failing batch to its end. The batch of an item that is not a function
          // is not in the log: the first invocation after its failure names it (the same or the next batch).
          failingBatch ??= end.kind === 'batchError' ? end.error.batch : invokedBatch.get(firstFailure.index);
          if (failingBatch === undefined && batch <= maxBatch + 1) failingBatch = batch;
          if (window || batch !== failingBatch) fail(`task ${index} (batch ${batch}) invoked after task ${firstFailure.index} failed`);
        }
        if (sourceErrorAt !== undefined && (window || batch > maxBatchBeforeSourceError))
          fail(`task ${index} (batch ${batch}) invoked after the source errored`);
        if (unsubscribedAt !== undefined) fail(`task ${index} invoked after the unsubscription`);
        maxBatch = Math.max(maxBatch, batch);
        break;
      }
      case 'settle':
        if (settledAt.has(event.index)) fail(`task ${event.index} settled twice`);
        settledAt.set(event.index, position);
        inFlight.delete(event.index);
        if (event.ok) successes++;
        else firstFailure ??= { index: event.index, position };
        break;
      case 'emit':
        if (unsubscribedAt !== undefined) fail(`result ${event.result.batch} emitted after the unsubscription`);
        emits.push({ result: event.result, position });
        break;
      case 'sourceError':
        sourceErrorAt = position;
        sourceEndAt = position;
        maxBatchBeforeSourceError = maxBatch;
        break;
      case 'sourceComplete':
        sourceEndAt = position;
        break;
      case 'unsubscribe':
        unsubscribedAt = position;
        break;
      case 'end':
        endedAt = position;
        break;
    }
  });

  // Results: in order, contiguous, each as soon as it is due.
  let covered = 0;
  emits.forEach(({ result, position }, k) => {
    const { batch, startIndex, size, values } = result;
    const last = k === emits.length - 1;
    if (batch !== k) fail(`result ${k} has batch ${batch}`);
    if (startIndex !== covered) fail(`result ${k} starts at ${startIndex}; the results before it end at ${covered}`);
    if (size < 1 || values.length !== size) fail(`result ${k} has size ${size} and ${values.length} values`);
    if (result.successes !== startIndex + size) fail(`result ${k} says ${result.successes} successes; it ends at ${startIndex + size}`);
    if (checksBound && size !== ramp.size(k)) {
      const sourceEnded = trace.showsSourceEnd ? sourceEndAt !== undefined && sourceEndAt < position : true;
      if (!(last && sourceEnded && size < ramp.size(k))) fail(`result ${k} has size ${size}; the ramp says ${ramp.size(k)}`);
    }
    let trigger = k > 0 ? emits[k - 1].position : -1;
    // A result cut short by the source's end is due from that end on; `slowStart` does not show it.
    let showsWhenDue = true;
    if (size < ramp.size(k)) {
      if (sourceEndAt === undefined) showsWhenDue = false;
      else trigger = Math.max(trigger, sourceEndAt);
    }
    for (let j = 0; j < values.length; j++) {
      const index = startIndex + j;
      const outcome = (tasks[index] as TaskPlan | undefined)?.outcome;
      if (!outcome?.ok) {
        fail(`result ${k} reports task ${index}, which does not succeed`);
        continue;
      }
      if (!sameOutcome(values[j], outcome.value)) fail(`result ${k} values[${j}] is ${String(values[j])}, not task ${index}'s value`);
      if (invokedBatch.get(index) !== batch) fail(`task ${index} was told batch ${invokedBatch.get(index)}; result ${batch} reports it`);
      const settled = settledAt.get(index);
      if (settled === undefined || settled > position) fail(`result ${k} reports task ${index} before it settled`);
      else trigger = Math.max(trigger, settled);
    }
    for (let p = trigger + 1; showsWhenDue && p < position; p++) {
      if (log[p].type === 'settle') {
        const between = log
          .slice(trigger + 1, position)
          .map((e) => (e.type === 'invoke' || e.type === 'settle' ? `${e.type} ${e.index}` : e.type))
          .join(', ');
        fail(`result ${k} was due, and was emitted only after: ${between}`);
        break;
      }
    }
    covered = startIndex + size;
  });

  // Whatever ends the stream, except the consumer, reports every task it invoked.
  if (end.kind === 'complete' || end.kind === 'sourceError' || end.kind === 'batchError') {
    const reported = end.kind === 'batchError' ? end.error.startIndex + end.error.size : covered;
    for (const index of invokedBatch.keys()) if (index >= reported) fail(`task ${index} was invoked and no result or error reports it`);
  }

  if (end.kind === 'batchError') {
    const e = end.error;
    if (e.startIndex !== covered) fail(`the error starts at ${e.startIndex}; the results before it end at ${covered}`);
    if (e.results.length !== e.size) fail(`the error has size ${e.size} and ${e.results.length} results`);
    let errorSuccesses = covered;
    e.results.forEach((r, j) => {
      const index = e.startIndex + j;
      if (r.index !== index) fail(`error results[${j}] is task ${r.index}, not ${index}`);
      const plan = tasks[index] as TaskPlan | undefined;
      if (!plan) return;
      if (!invokedBatch.has(index) && plan.isFunction) fail(`error results[${j}]: task ${index} was never invoked`);
      const ok = r.status === 'fulfilled';
      if (ok !== plan.outcome.ok) fail(`error results[${j}]: task ${index} is ${r.status}`);
      else if (r.status === 'fulfilled' && plan.outcome.ok && !sameOutcome(r.value, plan.outcome.value))
        fail(`error results[${j}]: wrong value for task ${index}`);
      else if (r.status === 'rejected' && !plan.outcome.ok && !sameOutcome(r.reason, plan.outcome.reason))
        fail(`error results[${j}]: wrong reason for task ${index}`);
      if (ok) errorSuccesses++;
      const told = invokedBatch.get(index);
      if (told !== undefined) {
        const expected = window ? ramp.indexOf(index) : e.batch;
        if (told !== expected) fail(`task ${index} was told batch ${told}; the error reports it as batch ${expected}`);
      }
    });
    // Tasks that succeeded after the failure belong to no result but count in `successes`.
    if (e.successes !== successes) fail(`the error says ${e.successes} successes; ${successes} tasks succeeded`);
    if (e.successes < errorSuccesses)
      fail(`the error says ${e.successes} successes; its results and the results before hold ${errorSuccesses}`);
    if (!e.results.some((r) => r.status === 'rejected')) fail('the error has no rejected task');
    if (trace.seesEveryFailure || !e.results.some((r) => !tasks[r.index].isFunction)) {
      if (firstFailure === undefined) fail('the error has no failure in the log');
      else {
        const expectedBatch = window ? ramp.indexOf(firstFailure.index) : invokedBatch.get(firstFailure.index);
        if (expectedBatch !== undefined && e.batch !== expectedBatch)
          fail(`the error says batch ${e.batch}; the failure first in time (task ${firstFailure.index}) is in ${expectedBatch}`);
        const reason = (tasks[firstFailure.index].outcome as { reason: unknown }).reason;
        if (!sameOutcome(e.cause, reason))
          fail(`the error's cause is not the reason of task ${firstFailure.index}, the failure first in time`);
      }
    }
    const firstRemaining = e.startIndex + e.size;
    if (e.remaining.length !== trace.known - firstRemaining)
      fail(`remaining holds ${e.remaining.length} factories; ${trace.known - firstRemaining} known factories were never invoked`);
    e.remaining.forEach((index, k) => {
      if (index !== firstRemaining + k) fail(`remaining[${k}] is not the factory of task ${firstRemaining + k}`);
    });
    // What a caller resumes: the rejected tasks, then the factories never invoked.
    if (e.unfinished) {
      const expected = [...e.results.filter((r) => r.status === 'rejected').map((r) => r.index), ...e.remaining];
      if (JSON.stringify(e.unfinished) !== JSON.stringify(expected))
        fail(`unfinished holds tasks ${JSON.stringify(e.unfinished)}, not the rejected ones and remaining ${JSON.stringify(expected)}`);
    }
    if (e.resumeFrom !== undefined && e.resumeFrom !== trace.known)
      fail(`resumeFrom is ${e.resumeFrom}; the run knew ${trace.known} factories`);
  } else if (end.kind === 'complete') {
    if (covered !== trace.known) fail(`the stream completed with ${covered} of ${trace.known} tasks reported`);
  } else if (end.kind === 'sourceError') {
    // Checked above: every invoked task is in an emitted result.
  }
  return violations;
}
