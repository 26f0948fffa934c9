/**
 * The rules of §10, checked on the log of one run with `retry`, whoever produced it: the reference
 * model (`retryTraceOfModel`) or the operator (`retryTraceOfObserved` in retry-harness.ts). They state
 * the contract directly, from the scenario's plan, without the model's run:
 *
 * - nothing is invoked during a pause: no invocation before `t + max(when's number, delay(attempt))`
 *   for any transient failure at `t` (several failures: the latest end);
 * - a retried task goes ahead of every new one (window pacing: no new task starts while a retry waits;
 *   batch pacing, when the log names the batches: not in a later batch than the retry's), with
 *   `attempt + 1`, the same `batch`, after a transient failure of its previous try;
 * - a task is tried at most `maxAttempts` times;
 * - after a drop the tasks in flight keep the bound of §9 counted from the drop, with the pace of
 *   §10 (window pacing always; batch pacing from the batch after the one with the drop, when the log
 *   names the batches, since the batch with the drop runs to its end);
 * - no factory invoked after the run stopped (window pacing) or after an unsubscription;
 * - nothing lost: every try settles before the stream ends; results cover the source in order with the
 *   values of the successful tries; the error reports every invoked task that no result reported,
 *   a queued retry `abandoned` with the reason of its last try, and `remaining` holds the rest.
 */
import type { TraceEnd } from './invariants.js';
import {
  classify,
  tryOf,
  type RetryModelOptions,
  type RetryModelRun,
  type RetryScenario,
  type RetryTaskPlan,
  type RetryTraceEvent,
} from './retry-model.js';
import { OPERATOR_MADE_ERROR, Ramp, sizeAfter, type ModelOptions, type TaskOutcome } from './slow-start-model.js';

/**
 * The bound of §9 after `successes` successes, written here apart from the model's `Pace` so that the
 * two are checked against each other: without a threshold the ramp of §2; after a drop, from
 * `initialBatchSize` by `growthFactor` up to the threshold, then one task more per round.
 */
function paceBound(options: ModelOptions, threshold: number | undefined, successes: number): number {
  let size = options.initialBatchSize ?? 1;
  let start = 0;
  while (start + size <= successes) {
    start += size;
    const grown = sizeAfter(size, options);
    size = threshold === undefined ? grown : size < threshold ? Math.min(grown, threshold) : Math.min(grown, size + 1);
  }
  return Math.min(size, options.concurrency ?? Infinity);
}

export interface RetryTrace {
  options: RetryModelOptions;
  tasks: RetryTaskPlan[];
  log: (RetryTraceEvent | { type: 'end' })[];
  end: TraceEnd;
  known: number;
  /** False when the log cannot show when the source ended (`slowStart()` owns its source). */
  showsSourceEnd: boolean;
}

export function retryTraceOfModel(scenario: RetryScenario, run: RetryModelRun): RetryTrace {
  const log: RetryTrace['log'] = [...run.log];
  const end: TraceEnd = run.end.kind === 'batchError' ? { kind: 'batchError', error: { ...run.end.error } } : { kind: run.end.kind };
  if (run.end.kind !== 'open' && run.end.kind !== 'unsubscribed') log.push({ type: 'end' });
  return {
    options: scenario.options,
    tasks: scenario.tasks,
    log,
    end,
    known: scenario.knows === 'all' ? scenario.tasks.length : run.received,
    showsSourceEnd: true,
  };
}

function sameOutcome(actual: unknown, expected: unknown): boolean {
  if (expected === OPERATOR_MADE_ERROR) return actual === OPERATOR_MADE_ERROR || actual instanceof TypeError;
  return Object.is(actual, expected);
}

export function checkRetryInvariants(trace: RetryTrace): string[] {
  const violations: string[] = [];
  const fail = (message: string) => {
    if (violations.length < 20) violations.push(message);
  };
  const { options, tasks, log, end } = trace;
  const window = options.pacing === 'window';
  const maxAttempts = options.retry.maxAttempts ?? 3;
  const concurrency = options.concurrency ?? Infinity;
  const ramp = new Ramp(options);
  const checksBound = window || options.flushAfter === undefined;

  const inFlight = new Map<number, number>();
  const attempts = new Map<number, number>();
  const batchOf = new Map<number, number>();
  const roundOf = new Map<number, number | undefined>();
  const finals = new Map<number, TaskOutcome>();
  /** Transient failures whose retry has not started: the reason, the round, where in the log. */
  const pending = new Map<number, { reason: unknown; round: number | undefined; position: number }>();
  let pauseEnd = -Infinity;
  let pauseCause = '';
  let stoppedRun = false;
  let firstFatal: number | undefined;
  let epoch = 0;
  const startEpoch = new Map<number, number>();
  let threshold: number | undefined;
  let sinceDrop = 0;
  let dropped = false;
  let dropRound: number | undefined;
  let lastNew = -1;
  let unsubscribed = false;
  let ended = false;
  const emits: { batch: number; startIndex: number; size: number; values: unknown[]; successes: number; position: number }[] = [];
  let sourceEnded = false;
  /** Batch pacing, when the trace knows rounds: the batch being started, its tasks, and the pace's size for it. */
  let openRound: number | undefined;
  let roundTasks = 0;
  let roundSize = 0;
  /**
   * Set once a batch ran short of the pace's size (a waiting retry starts a batch without waiting for
   * the source to fill it): the next batch grows from what ran (§2), which §9's bound, counted from the
   * successes, does not foresee. From then on the bound is not checked, as with `flushAfter`.
   */
  let shortBatchRan = false;

  log.forEach((event, position) => {
    if (ended) fail(`${event.type} after the stream ended`);
    switch (event.type) {
      case 'invoke': {
        const { index, batch, attempt, time, round } = event;
        if (unsubscribed) fail(`task ${index} invoked after the unsubscription`);
        if (time < pauseEnd)
          fail(`task ${index} (attempt ${attempt}) invoked at ${time}, during the pause until ${pauseEnd} (${pauseCause})`);
        const previous = attempts.get(index) ?? 0;
        if (attempt !== previous + 1) fail(`task ${index} invoked with attempt ${attempt} after attempt ${previous}`);
        if (attempt > maxAttempts) fail(`task ${index} tried ${attempt} times; maxAttempts is ${maxAttempts}`);
        attempts.set(index, attempt);
        if (attempt === 1) {
          if (index <= lastNew) fail(`new task ${index} invoked after new task ${lastNew} (source order)`);
          lastNew = Math.max(lastNew, index);
          batchOf.set(index, batch);
          if (window && batch !== ramp.indexOf(index)) fail(`task ${index} was told batch ${batch}; its result is ${ramp.indexOf(index)}`);
          for (const [other, p] of pending) {
            if (window) fail(`new task ${index} invoked while the retry of task ${other} waited`);
            else if (round !== undefined && p.round !== undefined && p.round < round)
              fail(`new task ${index} invoked in batch round ${round} while the retry of task ${other} (round ${p.round}) waited`);
          }
        } else {
          if (!pending.has(index)) fail(`task ${index} retried (attempt ${attempt}) without a transient failure of attempt ${previous}`);
          pending.delete(index);
          if (batch !== batchOf.get(index)) fail(`retried task ${index} was told batch ${batch}, not ${batchOf.get(index)}`);
        }
        if (window && stoppedRun) fail(`task ${index} invoked after the run stopped`);
        if (inFlight.has(index)) fail(`task ${index} invoked while its previous try was in flight`);
        inFlight.set(index, attempt);
        roundOf.set(index, round);
        startEpoch.set(index, epoch);
        if (inFlight.size > concurrency) fail(`${inFlight.size} tasks in flight with concurrency ${concurrency}`);
        if (!window && round !== undefined && round !== openRound) {
          if (openRound !== undefined && roundTasks < roundSize) shortBatchRan = true;
          [openRound, roundTasks, roundSize] = [round, 0, paceBound(options, threshold, sinceDrop)];
        }
        roundTasks++;
        const enforce =
          checksBound && !shortBatchRan && (window || !dropped || (round !== undefined && dropRound !== undefined && round > dropRound));
        const bound = paceBound(options, threshold, sinceDrop);
        if (enforce && inFlight.size > bound)
          fail(
            `task ${index} (attempt ${attempt}) made ${inFlight.size} in flight after ${sinceDrop} successes` +
              `${dropped ? ` since the drop (threshold ${threshold})` : ''}; the pace allows ${bound}`,
          );
        break;
      }
      case 'settle': {
        const { index, attempt, ok, time } = event;
        if (inFlight.get(index) !== attempt) {
          fail(`task ${index} settled attempt ${attempt}, which was not in flight`);
          break;
        }
        const before = inFlight.size;
        inFlight.delete(index);
        const task = tasks[index];
        const outcome = tryOf(task, attempt).outcome;
        if (ok !== outcome.ok) fail(`task ${index} attempt ${attempt} settled ok=${ok}; its plan says ${outcome.ok}`);
        if (outcome.ok) {
          finals.set(index, outcome);
          // Only a task started since the last drop proves the new pace.
          if (startEpoch.get(index) === epoch) sinceDrop++;
          break;
        }
        if (stoppedRun) {
          finals.set(index, outcome);
          firstFatal ??= index;
          break;
        }
        const c = classify(task, attempt, options.retry);
        if (!c.retry) {
          finals.set(index, { ok: false, reason: c.reason });
          firstFatal ??= index;
          stoppedRun = true;
          break;
        }
        pending.set(index, { reason: outcome.reason, round: roundOf.get(index), position });
        if (time + c.pause > pauseEnd) {
          pauseEnd = time + c.pause;
          pauseCause = `task ${index} attempt ${attempt} failed at ${time}`;
        }
        if (startEpoch.get(index) === epoch) {
          epoch++;
          // Half of what was in flight at the failure, the failing task included; at least initialBatchSize.
          threshold = Math.max(options.initialBatchSize ?? 1, Math.floor(before / 2));
          sinceDrop = 0;
          dropped = true;
          dropRound = roundOf.get(index);
        }
        break;
      }
      case 'emit':
        if (unsubscribed) fail(`result ${event.result.batch} emitted after the unsubscription`);
        emits.push({ ...event.result, position });
        event.result.values.forEach((v, j) => {
          const index = event.result.startIndex + j;
          const final = finals.get(index);
          if (!final?.ok) fail(`result ${event.result.batch} reports task ${index}, which has not succeeded`);
          else if (!sameOutcome(v, final.value))
            fail(`result ${event.result.batch} values[${j}] is not the value of task ${index}'s successful try`);
          if (batchOf.get(index) !== event.result.batch)
            fail(`task ${index} was told batch ${batchOf.get(index)}; result ${event.result.batch} reports it`);
        });
        break;
      case 'sourceError':
        stoppedRun = true;
        sourceEnded = true;
        break;
      case 'sourceComplete':
        sourceEnded = true;
        break;
      case 'unsubscribe':
        unsubscribed = true;
        break;
      case 'end':
        ended = true;
        break;
    }
  });

  // Results: in order, contiguous, with the sizes of §2 in window pacing.
  let covered = 0;
  emits.forEach((r, k) => {
    if (r.batch !== k) fail(`result ${k} has batch ${r.batch}`);
    if (r.startIndex !== covered) fail(`result ${k} starts at ${r.startIndex}; the results before it end at ${covered}`);
    if (r.size < 1 || r.values.length !== r.size) fail(`result ${k} has size ${r.size} and ${r.values.length} values`);
    if (r.successes !== r.startIndex + r.size) fail(`result ${k} says ${r.successes} successes; it ends at ${r.startIndex + r.size}`);
    const cutShort =
      k === emits.length - 1 && r.size < ramp.size(k) && (trace.showsSourceEnd ? sourceEnded : r.startIndex + r.size === trace.known);
    if (window && r.size !== ramp.size(k) && !cutShort) fail(`result ${k} has size ${r.size}; the ramp says ${ramp.size(k)}`);
    covered = r.startIndex + r.size;
  });

  if (end.kind === 'complete' || end.kind === 'sourceError' || end.kind === 'batchError') {
    for (const [index, attempt] of inFlight) fail(`task ${index} attempt ${attempt} never settled before the end`);
    const reported = end.kind === 'batchError' ? end.error.startIndex + end.error.size : covered;
    for (const index of attempts.keys()) if (index >= reported) fail(`task ${index} was invoked and no result or error reports it`);
  }
  if (end.kind === 'complete') {
    if (covered !== trace.known) fail(`the stream completed with ${covered} of ${trace.known} tasks reported`);
    if (pending.size > 0) fail(`the stream completed with retries waiting: ${[...pending.keys()].join(', ')}`);
  }
  if (end.kind === 'sourceError' && pending.size > 0)
    fail(`the source's error ended the stream with retries waiting (${[...pending.keys()].join(', ')}): they are lost`);
  if (end.kind === 'batchError') {
    const e = end.error;
    if (e.startIndex !== covered) fail(`the error starts at ${e.startIndex}; the results before it end at ${covered}`);
    if (e.results.length !== e.size) fail(`the error has size ${e.size} and ${e.results.length} results`);
    e.results.forEach((r, j) => {
      const index = e.startIndex + j;
      if (r.index !== index) fail(`error results[${j}] is task ${r.index}, not ${index}`);
      if (!attempts.has(index)) fail(`error results[${j}]: task ${index} was never invoked`);
      const expected: TaskOutcome | undefined =
        finals.get(index) ?? (pending.has(index) ? { ok: false, reason: pending.get(index)!.reason } : undefined);
      if (!expected) {
        fail(`error results[${j}]: task ${index} has no outcome`);
        return;
      }
      const status = expected.ok ? 'fulfilled' : pending.has(index) && !finals.has(index) ? 'abandoned' : 'rejected';
      if (r.status !== status) fail(`error results[${j}]: task ${index} is ${r.status}, not ${status}`);
      else if (r.status === 'fulfilled' && expected.ok && !sameOutcome(r.value, expected.value))
        fail(`error results[${j}]: wrong value for task ${index}`);
      else if (r.status !== 'fulfilled' && !expected.ok && !sameOutcome(r.reason, expected.reason))
        fail(`error results[${j}]: task ${index} is not ${status} with the reason of its last try`);
    });
    const successes = [...finals.values()].filter((o) => o.ok).length;
    if (e.successes !== successes) fail(`the error says ${e.successes} successes; ${successes} tasks succeeded`);
    if (!e.results.some((r) => r.status !== 'fulfilled')) fail('the error has no rejected or abandoned task');
    let causeIndex = firstFatal;
    let cause: unknown;
    if (causeIndex !== undefined) cause = (finals.get(causeIndex) as { reason: unknown }).reason;
    else {
      const oldest = [...pending].sort((a, b) => a[1].position - b[1].position)[0] as [number, { reason: unknown }] | undefined;
      if (oldest) [causeIndex, cause] = [oldest[0], oldest[1].reason];
    }
    if (causeIndex === undefined) fail('the error has neither a fatal failure nor a waiting retry');
    else {
      if (!sameOutcome(e.cause, cause)) fail(`the error's cause is not the reason of task ${causeIndex}'s failure`);
      if (e.batch !== batchOf.get(causeIndex))
        fail(`the error says batch ${e.batch}; task ${causeIndex}, its cause, is in ${batchOf.get(causeIndex)}`);
    }
    const firstRemaining = e.startIndex + e.size;
    if (e.remaining.length !== trace.known - firstRemaining)
      fail(`remaining holds ${e.remaining.length} factories; ${trace.known - firstRemaining} known factories were never invoked`);
    e.remaining.forEach((index, k) => {
      if (index !== firstRemaining + k) fail(`remaining[${k}] is not the factory of task ${firstRemaining + k}`);
    });
    // What a caller resumes: the rejected and abandoned tasks, then the factories never invoked.
    if (e.unfinished) {
      const expected = [...e.results.filter((r) => r.status !== 'fulfilled').map((r) => r.index), ...e.remaining];
      if (JSON.stringify(e.unfinished) !== JSON.stringify(expected))
        fail(`unfinished holds tasks ${JSON.stringify(e.unfinished)}, not the rejected ones and remaining ${JSON.stringify(expected)}`);
    }
    if (e.resumeFrom !== undefined && e.resumeFrom !== trace.known)
      fail(`resumeFrom is ${e.resumeFrom}; the run knew ${trace.known} factories`);
  }
  return violations;
}
