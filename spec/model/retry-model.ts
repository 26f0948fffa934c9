/**
 * The reference model of `retry` (contract §10), used only by tests.
 *
 * It is the timed simulation of `slow-start-model.ts` (the same event loop: macro events by
 * (time, creation order) like RxJS' `VirtualTimeScheduler`, a FIFO of microtasks drained after each)
 * with both pacings taught to retry. It shares `Ramp` and `sizeAfter` with that model and no code with
 * `src/`. With no retry at all (`maxAttempts: 1`, or `when` saying false) it must give exactly the runs
 * of `simulateSlowStart`: a property checks that.
 *
 * The rules, §10 and the choices made where §10 is silent:
 *
 * - **Transient or not.** A failed try of attempt `a` is transient when `a < maxAttempts`, `when`
 *   returns `true` or a finite number >= 0, and `delay(a)` returns. `when` is asked first, on every try
 *   (what kind a failure is matters on the last one too, §14); `delay` only when `when` says transient
 *   and the task has tries left. A `when` or `delay` that throws
 *   makes the failure fatal with the thrown error as its reason; a `when` that returns anything else
 *   makes it fatal with a `TypeError`. Once the run has stopped (a fatal failure, a source error),
 *   failures are not classified any more: the task is reported `rejected` with its own reason.
 * - **The pause.** A transient failure at time `t` pauses every invocation until
 *   `t + max(when's number, delay(a))`; a later transient failure extends it to the latest end. A pause
 *   of 0 ms (or one whose end has come) holds nothing back: the retry may start at once, in the same
 *   instant, with no timer. One scheduler action at a time ends a pause: it is set at the failure, and
 *   when it fires during a pause that was extended, another is set for the rest. In batch pacing no
 *   batch starts during a pause, and the running batch invokes no more tasks.
 * - **The retry.** The task's factory goes to a FIFO of retries (in the order of their failures) that
 *   is served before any factory never invoked; it is called with `attempt + 1`, a fresh signal, the
 *   same `index` and the same `batch` (the result that reports it). In batch pacing retries take the
 *   first slots of the next batch and count toward its size. A retry waiting is a reason for a batch to
 *   start (§3 gains a fourth case): the next batch starts, once the pause is over, with the retries and
 *   the new factories waiting, up to its size, without waiting for the batch to fill.
 * - **The drop.** A transient failure of a task invoked after the last drop (or before any) drops the
 *   pace: threshold `T = max(initialBatchSize, floor(n / 2))` with `n` the tasks in flight just before
 *   the failure, the failing one included. The pace starts again: `p0 = initialBatchSize`, then
 *   `p(k+1) = min(sizeAfter(p(k)), T)` below the threshold and `min(sizeAfter(p(k)), p(k) + 1)` from it
 *   on, whatever `growthFactor` is (so with `growthFactor: 1` a run grows by one task per round after
 *   a throttle, where §2 alone would keep it at `initialBatchSize`). The bound of §9 is then
 *   `min(p(k), concurrency)` with the successes since the drop of the tasks started since counted.
 *   In batch pacing the batch with the drop runs to its end; the next batch holds `initialBatchSize`
 *   tasks (growth after a batch with a drop does not apply), the ones after grow by the pace.
 * - **Results.** Window pacing groups the source by the sizes of §2 as before (a retried task keeps its
 *   result); a result is emitted as soon as its tasks and all earlier results are done. In batch pacing
 *   a result is the range of new tasks a batch took (so it may be shorter than the batch). In both, a
 *   result is emitted as soon as its tasks (retries included) and all earlier results are done: in
 *   batch pacing a result completed by a retry may come before the end of the batch the retry ran
 *   in, and also when a sibling of that retry has failed for good.
 * - **The end.** When the run stops, queued retries are not run: they are `abandoned` with the reason
 *   of their last try. The error's `results` are every invoked task no result reported (§9), `cause`
 *   the fatal failure first in time (or, after a source error with retries queued, the oldest of
 *   those retries' failures), `batch` the result of that task.
 */
import {
  OPERATOR_MADE_ERROR,
  Ramp,
  sizeAfter,
  type ExpectedBatchError,
  type ExpectedBatchResult,
  type ModelEnd,
  type ModelOptions,
  type Settlement,
  type SourcePlan,
  type TaskOutcome,
  type UnsubscribePlan,
} from './slow-start-model.js';

/** What `when` does for a failed try. */
export type Verdict =
  | { kind: 'transient' }
  /** A number of ms (a Retry-After). */
  | { kind: 'after'; ms: number }
  | { kind: 'fatal' }
  | { kind: 'throws'; error: unknown }
  /** Returns something that is neither a boolean nor a finite number >= 0. */
  | { kind: 'invalid'; returned: unknown };

export interface TryPlan {
  outcome: TaskOutcome;
  settles: Settlement;
  /** What `when` answers if this try fails. */
  verdict: Verdict;
}

export interface RetryTaskPlan {
  /** Try `a` (1-based) follows `tries[min(a, tries.length) - 1]`. */
  tries: TryPlan[];
  /** False for a source item that is not a function: every try fails at once without a call. */
  isFunction: boolean;
}

export type DelayPlan =
  | { kind: 'fixed'; ms: number }
  /** `delay(attempt)` is `ms[(attempt - 1) % ms.length]`, or throws `error` for attempt `throwsAt`. */
  | { kind: 'table'; ms: number[]; throws?: { attempt: number; error: unknown } };

export interface RetryPlan {
  maxAttempts?: number;
  delay: DelayPlan;
  /**
   * `retry.learnRate`, for the operator only: the model does not know it, so a run with it is checked
   * against the rules of §10 (retry-invariants.ts), not against the model.
   */
  learnRate?: true;
}

export interface RetryModelOptions extends ModelOptions {
  retry: RetryPlan;
}

export interface RetryScenario {
  options: RetryModelOptions;
  tasks: RetryTaskPlan[];
  source: SourcePlan;
  unsubscribe: UnsubscribePlan;
  knows: 'received' | 'all';
}

export type RetryTraceEvent =
  | { type: 'invoke'; index: number; batch: number; attempt: number; time: number; round?: number }
  | { type: 'settle'; index: number; attempt: number; ok: boolean; time: number }
  | { type: 'emit'; result: ExpectedBatchResult; time: number }
  | { type: 'sourceComplete' | 'sourceError' | 'unsubscribe'; time: number };

export interface RetryModelRun {
  invocations: { index: number; batch: number; attempt: number; time: number }[];
  emissions: { time: number; result: ExpectedBatchResult }[];
  end: ModelEnd;
  tornDown: number[];
  received: number;
  log: RetryTraceEvent[];
  drops: { time: number; index: number; inFlight: number; threshold: number }[];
  pauses: { time: number; index: number; attempt: number; until: number }[];
  /** Batch pacing: the batches (rounds) that started, retries first. */
  rounds: { time: number; members: number[]; size: number }[];
  /** Calls of `when` and of a `delay` function (index -1: `delay` is not told the task), in order. */
  calls: { fn: 'when' | 'delay'; index: number; attempt: number; time: number }[];
}

/** The `delay` of a plan, as the operator will call it. */
export function delayOf(plan: DelayPlan, attempt: number): { ok: true; ms: number } | { ok: false; error: unknown } {
  if (plan.kind === 'fixed') return { ok: true, ms: plan.ms };
  if (plan.throws?.attempt === attempt) return { ok: false, error: plan.throws.error };
  return { ok: true, ms: plan.ms[(attempt - 1) % plan.ms.length] };
}

export function tryOf(task: RetryTaskPlan, attempt: number): TryPlan {
  return task.tries[Math.min(attempt, task.tries.length) - 1];
}

export type Classification = { retry: true; pause: number } | { retry: false; reason: unknown };

/** §10: is the failure of try `attempt` of `task` transient, and for how long does it pause the run? */
export function classify(task: RetryTaskPlan, attempt: number, retry: RetryPlan): Classification {
  const t = tryOf(task, attempt);
  const reason = (t.outcome as { reason: unknown }).reason;
  let wait = 0;
  const v = t.verdict;
  switch (v.kind) {
    case 'fatal':
      return { retry: false, reason };
    case 'throws':
      return { retry: false, reason: v.error };
    case 'invalid':
      return { retry: false, reason: OPERATOR_MADE_ERROR };
    case 'after':
      wait = v.ms;
      break;
    case 'transient':
      break;
  }
  if (attempt >= (retry.maxAttempts ?? 3)) return { retry: false, reason };
  const d = delayOf(retry.delay, attempt);
  if (!d.ok) return { retry: false, reason: d.error };
  return { retry: true, pause: Math.max(wait, d.ms) };
}

/**
 * The pace of §9 and §10: sizes p0, p1, ... and their prefix sums. Without a threshold it is the ramp of
 * §2; after a drop, slow start up to the threshold and one task more per round from it on.
 */
export class Pace {
  private readonly sizes: number[] = [];
  private readonly starts: number[] = [0];

  constructor(
    private readonly options: ModelOptions,
    readonly threshold?: number,
  ) {}

  /** The size after a round of `s` tasks. */
  next(s: number): number {
    const grown = sizeAfter(s, this.options);
    if (this.threshold === undefined) return grown;
    return s < this.threshold ? Math.min(grown, this.threshold) : Math.min(grown, s + 1);
  }

  size(k: number): number {
    while (this.sizes.length <= k) this.grow();
    return this.sizes[k];
  }

  indexOf(n: number): number {
    while (this.starts[this.starts.length - 1] <= n) this.grow();
    let k = 0;
    while (this.starts[k + 1] <= n) k++;
    return k;
  }

  bound(successes: number): number {
    return Math.min(this.size(this.indexOf(successes)), this.options.concurrency ?? Infinity);
  }

  private grow() {
    const last = this.sizes.at(-1);
    const next = last === undefined ? (this.options.initialBatchSize ?? 1) : this.next(last);
    this.sizes.push(next);
    this.starts.push(this.starts[this.starts.length - 1] + next);
  }
}

/** The threshold of a drop with `inFlight` tasks in flight at the failure. */
export function thresholdAfter(inFlight: number, options: ModelOptions): number {
  return Math.max(options.initialBatchSize ?? 1, Math.floor(inFlight / 2));
}

interface Core {
  readonly scenario: RetryScenario;
  readonly run: RetryModelRun;
  readonly concurrency: number;
  readonly flushAfter: number | undefined;
  now(): number;
  schedule(delay: number, work: () => void): void;
  stopped(): boolean;
  end(e: ModelEnd): void;
  paused(): boolean;
  /** Invokes try `attempt` of task `index`; `settled(index, attempt)` when its plan says. */
  start(index: number, batch: number, attempt: number, settled: (index: number, attempt: number) => void, round?: number): void;
  settleNoted(index: number, attempt: number, ok: boolean): void;
  /** A success of task `index`: counts toward the pace if the task started since the last drop. */
  succeeded(index: number): void;
  /** A transient failure: pauses, and drops the pace if the task started after the last drop. True on a drop. */
  transient(index: number, attempt: number, inFlightBefore: number, pause: number): boolean;
  pace(): Pace;
  successesSinceDrop(): number;
  /**
   * `slowStart` over an array (a pulled source) during its subscription: delivers up to `count` items
   * now, ahead of the loop that delivers the rest. Does nothing for any other source.
   */
  pullAhead(count: number): void;
  emit(result: ExpectedBatchResult, inFlight: () => number[]): boolean;
  fail(
    batch: number,
    startIndex: number,
    outcomes: TaskOutcome[],
    cause: unknown,
    successes: number,
    sourceError?: { error: unknown },
  ): void;
}

interface Pacing {
  arrive(index: number): void;
  complete(): void;
  error(error: unknown): void;
  inFlight(): number[];
  resume(): void;
}

export function simulateRetry(scenario: RetryScenario): RetryModelRun {
  const { tasks, source, unsubscribe, options } = scenario;
  const run: RetryModelRun = {
    invocations: [],
    emissions: [],
    end: { kind: 'open' },
    tornDown: [],
    received: 0,
    log: [],
    drops: [],
    pauses: [],
    rounds: [],
    calls: [],
  };

  let now = 0;
  let created = 0;
  const macro: { time: number; order: number; work: () => void }[] = [];
  const micro: (() => void)[] = [];
  const schedule = (delay: number, work: () => void) => {
    macro.push({ time: now + delay, order: created++, work });
  };
  const takeNextMacro = () => {
    let best = 0;
    for (let i = 1; i < macro.length; i++) {
      const a = macro[i];
      const b = macro[best];
      if (a.time < b.time || (a.time === b.time && a.order < b.order)) best = i;
    }
    return macro.splice(best, 1)[0];
  };

  let stopped = false;
  const end = (e: ModelEnd) => {
    run.end = e;
    stopped = true;
  };

  // The pace and the pause.
  let pace = new Pace(options);
  let sinceDrop = 0;
  let epoch = 0;
  const startEpoch: number[] = [];
  /** The pause lasts until then; one timer at a time ends it (set again for the rest if it was extended). */
  let pausedUntil = -Infinity;
  let pauseTimer = false;
  const armPause = () => {
    if (pauseTimer || pausedUntil <= now) return;
    pauseTimer = true;
    schedule(pausedUntil - now, () => {
      pauseTimer = false;
      armPause();
      pacing.resume();
    });
  };
  // eslint-disable-next-line prefer-const -- assigned once the pacing exists
  let pacing: Pacing;

  const core: Core = {
    scenario,
    run,
    concurrency: options.concurrency ?? Infinity,
    flushAfter: options.flushAfter,
    now: () => now,
    schedule,
    stopped: () => stopped,
    end,
    paused: () => pausedUntil > now,
    start(index, batch, attempt, settled, round) {
      const task = tasks[index];
      startEpoch[index] = epoch;
      if (task.isFunction) {
        run.invocations.push({ index, batch, attempt, time: now });
        run.log.push(
          round === undefined
            ? { type: 'invoke', index, batch, attempt, time: now }
            : { type: 'invoke', index, batch, attempt, time: now, round },
        );
      }
      const s = tryOf(task, attempt).settles;
      if (s.kind === 'sync' || !task.isFunction) settled(index, attempt);
      else if (s.kind === 'microtask') micro.push(() => settled(index, attempt));
      else schedule(s.delay, () => (s.viaPromise ? micro.push(() => settled(index, attempt)) : settled(index, attempt)));
    },
    settleNoted(index, attempt, ok) {
      run.log.push({ type: 'settle', index, attempt, ok, time: now });
    },
    succeeded(index) {
      // A task already in flight when the pace dropped does not prove the new pace.
      if (startEpoch[index] === epoch) sinceDrop++;
    },
    transient(index, attempt, inFlightBefore, ms) {
      const until = now + ms;
      run.pauses.push({ time: now, index, attempt, until });
      pausedUntil = Math.max(pausedUntil, until);
      armPause();
      if (startEpoch[index] !== epoch) return false;
      epoch++;
      const threshold = thresholdAfter(inFlightBefore, options);
      pace = new Pace(options, threshold);
      sinceDrop = 0;
      run.drops.push({ time: now, index, inFlight: inFlightBefore, threshold });
      return true;
    },
    pace: () => pace,
    successesSinceDrop: () => sinceDrop,
    pullAhead(count) {
      if (source.kind !== 'sync' || source.pulled !== true) return;
      for (let k = 0; k < count && run.received < tasks.length && !stopped; k++) arrive();
    },
    emit(result, inFlight) {
      run.emissions.push({ time: now, result });
      run.log.push({ type: 'emit', result, time: now });
      if (unsubscribe.kind === 'inNext' && unsubscribe.emission === run.emissions.length - 1) {
        run.log.push({ type: 'unsubscribe', time: now });
        run.tornDown = inFlight().sort((a, b) => a - b);
        end({ kind: 'unsubscribed', time: now });
        return true;
      }
      return false;
    },
    fail(batch, startIndex, outcomes, cause, successes, sourceError) {
      const known = scenario.knows === 'all' ? tasks.length : run.received;
      const firstSkipped = startIndex + outcomes.length;
      const error: ExpectedBatchError = {
        batch,
        startIndex,
        size: outcomes.length,
        failed: outcomes.filter((o) => !o.ok).length,
        successes,
        results: outcomes.map((o, offset) =>
          o.ok
            ? { index: startIndex + offset, status: 'fulfilled' as const, value: o.value }
            : {
                index: startIndex + offset,
                status: o.abandoned === true ? ('abandoned' as const) : ('rejected' as const),
                reason: o.reason,
              },
        ),
        cause,
        skipped: known - firstSkipped,
        remaining: Array.from({ length: known - firstSkipped }, (_, k) => firstSkipped + k),
      };
      if (sourceError) error.sourceError = sourceError;
      end({ kind: 'batchError', time: now, error });
    },
  };

  pacing = options.pacing === 'window' ? windowPacing(core) : batchPacing(core);

  const arrive = () => {
    pacing.arrive(run.received++);
  };

  /* eslint-disable @typescript-eslint/no-unnecessary-condition */
  if (source.kind === 'sync') {
    while (run.received < tasks.length && !stopped) arrive();
    if (!stopped) {
      run.log.push({ type: 'sourceComplete', time: now });
      pacing.complete();
    }
  } else {
    for (const a of source.arrivals) {
      schedule(a.time, () => {
        for (let k = 0; k < a.count && !stopped; k++) arrive();
      });
    }
    const sourceEnd = source.end;
    if (sourceEnd.kind !== 'never') {
      schedule(sourceEnd.time, () => {
        if (stopped) return;
        if (sourceEnd.kind === 'complete') {
          run.log.push({ type: 'sourceComplete', time: now });
          pacing.complete();
        } else {
          run.log.push({ type: 'sourceError', time: now });
          pacing.error(sourceEnd.error);
        }
      });
    }
  }
  if (unsubscribe.kind === 'at') {
    schedule(unsubscribe.time, () => {
      if (stopped) return;
      run.log.push({ type: 'unsubscribe', time: now });
      run.tornDown = pacing.inFlight().sort((a, b) => a - b);
      end({ kind: 'unsubscribed', time: now });
    });
  }

  const drainMicrotasks = () => {
    while (micro.length > 0 && !stopped) micro.shift()!();
    micro.length = 0;
  };
  drainMicrotasks();
  while (macro.length > 0 && !stopped) {
    const event = takeNextMacro();
    now = event.time;
    event.work();
    drainMicrotasks();
  }
  /* eslint-enable @typescript-eslint/no-unnecessary-condition */
  return run;
}

/** What both pacings keep per task. */
class Book {
  /** Final outcomes: a success, or a failure that will not be retried. */
  readonly outcomes: (TaskOutcome | undefined)[] = [];
  readonly attempts: number[] = [];
  /** Tasks waiting for a retry, in the order of their failures, with the reason of that failure. */
  readonly retries: { index: number; time: number; reason: unknown }[] = [];
  successes = 0;
  /** The fatal failure first in time. */
  fatal: number | undefined;

  constructor(private readonly core: Core) {}

  /** Records how try `attempt` of `index` ended; `stoppedRun`: failures are no longer classified. */
  settle(index: number, attempt: number, inFlightBefore: number, stoppedRun: boolean): { drop: boolean } {
    const { scenario } = this.core;
    const task = scenario.tasks[index];
    const outcome = tryOf(task, attempt).outcome;
    this.core.settleNoted(index, attempt, outcome.ok);
    if (outcome.ok) {
      this.outcomes[index] = outcome;
      this.successes++;
      this.core.succeeded(index);
      return { drop: false };
    }
    if (stoppedRun) {
      this.outcomes[index] = outcome;
      this.fatal ??= index;
      return { drop: false };
    }
    const { retry } = scenario.options;
    const time = this.core.now();
    this.core.run.calls.push({ fn: 'when', index, attempt, time });
    const v = tryOf(task, attempt).verdict.kind;
    if (attempt < (retry.maxAttempts ?? 3) && (v === 'transient' || v === 'after') && retry.delay.kind === 'table')
      this.core.run.calls.push({ fn: 'delay', index: -1, attempt, time });
    const c = classify(task, attempt, retry);
    if (c.retry) {
      this.retries.push({ index, time: this.core.now(), reason: outcome.reason });
      return { drop: this.core.transient(index, attempt, inFlightBefore, c.pause) };
    }
    this.outcomes[index] = { ok: false, reason: c.reason };
    this.fatal ??= index;
    return { drop: false };
  }

  /** The outcome to report for an invoked task when the run ends: queued retries are abandoned with their last reason. */
  reported(index: number): TaskOutcome {
    const o = this.outcomes[index];
    if (o) return o;
    const queued = this.retries.find((r) => r.index === index);
    if (!queued) throw new Error(`model: task ${index} has no outcome to report`);
    return { ok: false, reason: queued.reason, abandoned: true };
  }

  /** The task whose failure is the error's cause, and that cause. */
  cause(): { index: number; reason: unknown } {
    if (this.fatal !== undefined) return { index: this.fatal, reason: (this.outcomes[this.fatal] as { reason: unknown }).reason };
    const oldest = this.retries[0];
    return { index: oldest.index, reason: oldest.reason };
  }
}

// ---------------------------------------------------------------------------------------------------
// Window pacing with retries
// ---------------------------------------------------------------------------------------------------

function windowPacing(core: Core): Pacing {
  const ramp = new Ramp(core.scenario.options);
  const book = new Book(core);
  let received = 0;
  let started = 0;
  const inFlight = new Map<number, number>(); // index -> attempt
  let succeededPrefix = 0;
  let reported = 0;
  let nextResult = 0;
  let sourceCompleted = false;
  let sourceError: { error: unknown } | undefined;

  const runStopped = () => book.fatal !== undefined || sourceError !== undefined;

  const settleTask = (index: number, attempt: number) => {
    if (core.stopped() || inFlight.get(index) !== attempt) return;
    const before = inFlight.size;
    inFlight.delete(index);
    book.settle(index, attempt, before, runStopped());
    while (succeededPrefix < started && book.outcomes[succeededPrefix]?.ok) succeededPrefix++;
    pump();
  };

  const dueResultEnd = (): number | undefined => {
    let end = ramp.start(nextResult + 1);
    if (sourceCompleted) end = Math.min(end, received);
    if (sourceError) end = Math.min(end, started);
    return end > reported && succeededPrefix >= end ? end : undefined;
  };

  const invoke = (index: number) => {
    const attempt = (book.attempts[index] ?? 0) + 1;
    book.attempts[index] = attempt;
    inFlight.set(index, attempt);
    core.start(index, ramp.indexOf(index), attempt, settleTask);
  };

  let pumping = false;
  const pump = () => {
    if (pumping) return;
    pumping = true;
    try {
      while (!core.stopped()) {
        const end = dueResultEnd();
        if (end !== undefined) {
          const values = book.outcomes.slice(reported, end).map((o) => (o as { value: unknown }).value);
          const result = { batch: nextResult, startIndex: reported, size: end - reported, values, successes: end };
          reported = end;
          nextResult++;
          core.emit(result, () => [...inFlight.keys()]);
          continue;
        }
        if (!runStopped() && !core.paused() && inFlight.size < core.pace().bound(core.successesSinceDrop())) {
          const retry = book.retries.shift();
          if (retry) {
            invoke(retry.index);
            continue;
          }
          if (started < received) {
            invoke(started++);
            continue;
          }
        }
        if (inFlight.size > 0) break;
        if (book.fatal !== undefined || (sourceError && book.retries.length > 0)) {
          const { index, reason } = book.cause();
          const outcomes = Array.from({ length: started - reported }, (_, k) => book.reported(reported + k));
          core.fail(ramp.indexOf(index), reported, outcomes, reason, book.successes, sourceError);
        } else if (sourceError) {
          core.end({ kind: 'sourceError', time: core.now(), error: sourceError.error });
        } else if (sourceCompleted && started === received && book.retries.length === 0) {
          core.end({ kind: 'complete', time: core.now() });
        }
        break;
      }
    } finally {
      pumping = false;
    }
  };

  return {
    arrive() {
      received++;
      pump();
    },
    complete() {
      sourceCompleted = true;
      pump();
    },
    error(error) {
      sourceError = { error };
      pump();
    },
    inFlight: () => [...inFlight.keys()],
    resume: () => pump(),
  };
}

// ---------------------------------------------------------------------------------------------------
// Batch pacing with retries
// ---------------------------------------------------------------------------------------------------

interface Round {
  number: number;
  members: number[];
  nextOffset: number;
  active: Map<number, number>; // index -> attempt
  settled: number;
  dropped: boolean;
}

function batchPacing(core: Core): Pacing {
  const { scenario } = core;
  const book = new Book(core);
  const arrivalTime: number[] = [];
  let waiting: number[] = [];
  let sourceCompleted = false;
  let sourceError: { error: unknown } | undefined;
  let round: Round | undefined;
  let rounds = 0;
  /** Results: the range of new tasks each batch took. */
  const results: { batch: number; startIndex: number; size: number }[] = [];
  const resultOf: number[] = [];
  let nextEmit = 0;
  /** New tasks taken by batches: 0 .. assigned - 1. */
  let assigned = 0;
  let lastRanSize: number | undefined;
  let lastRoundDropped = false;
  let flushTimerFor: number | undefined;

  const initial = scenario.options.initialBatchSize ?? 1;
  const nextSize = () => (lastRanSize === undefined || lastRoundDropped ? initial : core.pace().next(lastRanSize));
  const covered = () => (nextEmit < results.length ? results[nextEmit].startIndex : assigned);

  const settleTask = (index: number, attempt: number) => {
    if (core.stopped() || round?.active.get(index) !== attempt) return;
    const before = round.active.size;
    round.active.delete(index);
    round.settled++;
    const { drop } = book.settle(index, attempt, before, book.fatal !== undefined || sourceError !== undefined);
    if (drop) round.dropped = true;
    if (!emitDue()) pump();
  };

  /** Emits, in order, every result whose tasks have all succeeded; true if the consumer left meanwhile. */
  const emitDue = (): boolean => {
    while (nextEmit < results.length) {
      const { batch, startIndex, size } = results[nextEmit];
      const outcomes = Array.from({ length: size }, (_, k) => book.outcomes[startIndex + k]);
      if (!outcomes.every((o) => o?.ok)) break;
      nextEmit++;
      const values = outcomes.map((o) => (o as { value: unknown }).value);
      if (core.emit({ batch, startIndex, size, values, successes: startIndex + size }, () => (round ? [...round.active.keys()] : [])))
        return true;
    }
    return false;
  };

  const failNow = () => {
    const { index, reason } = book.cause();
    const start = covered();
    const outcomes = Array.from({ length: assigned - start }, (_, k) => book.reported(start + k));
    core.fail(resultOf[index], start, outcomes, reason, book.successes, sourceError);
  };

  const finishRound = (r: Round) => {
    round = undefined;
    if (book.fatal !== undefined) {
      failNow();
      return;
    }
    lastRoundDropped = r.dropped;
    lastRanSize = r.members.length;
    emitDue();
  };

  const startNextRoundIfDue = (): boolean => {
    const now = core.now();
    if (sourceError) {
      if (book.retries.length > 0) failNow();
      else core.end({ kind: 'sourceError', time: now, error: sourceError.error });
      return false;
    }
    if (core.paused()) return false;
    const size = nextSize();
    // A batch a retry opens is filled first from a source that is pulled (§3: full batches from a
    // synchronous source); one that pushes has not delivered the rest yet when a task throttles
    // synchronously during the subscription.
    if (book.retries.length > 0) core.pullAhead(size - book.retries.length - waiting.length);
    const available = book.retries.length + waiting.length;
    if (available === 0) {
      if (sourceCompleted) core.end({ kind: 'complete', time: now });
      return false;
    }
    const firstWaiting = Math.min(
      waiting.length > 0 ? arrivalTime[waiting[0]] : Infinity,
      book.retries.length > 0 ? book.retries[0].time : Infinity,
    );
    const deadline = core.flushAfter === undefined ? Infinity : firstWaiting + core.flushAfter;
    if (available >= size || sourceCompleted || now >= deadline || book.retries.length > 0) {
      const retried = book.retries.splice(0, size).map((r) => r.index);
      const fresh = waiting.slice(0, size - retried.length);
      waiting = waiting.slice(fresh.length);
      if (fresh.length > 0) {
        const batch = results.length;
        results.push({ batch, startIndex: fresh[0], size: fresh.length });
        for (const index of fresh) resultOf[index] = batch;
        assigned += fresh.length;
      }
      const members = [...retried, ...fresh];
      round = { number: rounds++, members, nextOffset: 0, active: new Map(), settled: 0, dropped: false };
      core.run.rounds.push({ time: now, members, size });
      return true;
    }
    if (deadline !== Infinity && flushTimerFor !== deadline) {
      flushTimerFor = deadline;
      core.schedule(deadline - now, pump);
    }
    return false;
  };

  let pumping = false;
  const pump = () => {
    if (pumping) return;
    pumping = true;
    try {
      while (!core.stopped()) {
        if (round) {
          if (round.settled === round.members.length) finishRound(round);
          else if (round.active.size < core.concurrency && round.nextOffset < round.members.length && !core.paused()) {
            const index = round.members[round.nextOffset++];
            const attempt = (book.attempts[index] ?? 0) + 1;
            book.attempts[index] = attempt;
            round.active.set(index, attempt);
            core.start(index, resultOf[index], attempt, settleTask, round.number);
          } else break;
        } else if (!startNextRoundIfDue()) break;
      }
    } finally {
      pumping = false;
    }
  };

  return {
    arrive(index) {
      arrivalTime[index] = core.now();
      waiting.push(index);
      pump();
    },
    complete() {
      sourceCompleted = true;
      // Also during a round: one held back by a pause that has just ended goes on at once.
      pump();
    },
    error(error) {
      sourceError = { error };
      if (!round) pump();
    },
    inFlight: () => (round ? [...round.active.keys()] : []),
    resume: () => pump(),
  };
}
