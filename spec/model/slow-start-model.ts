/**
 * The reference model of the slow-start contract, used only by tests.
 *
 * Two layers, both pure:
 *
 * 1. `kubernetesSlowStart` is Kubernetes' `slowStartBatch` loop transcribed line by line and generalised
 *    by contract §2 (initial size, growth factor, cap). It knows nothing about time: every task runs
 *    synchronously, like the Kubernetes tests. The conformance cases check this layer.
 *
 * 2. `simulateSlowStart` adds what an RxJS source brings: factories arriving over virtual time, tasks that
 *    settle synchronously, one microtask later (a promise) or after a delay, a `concurrency` limit, the
 *    `flushAfter` timer (§3c), source completion and errors (§3b, §6) and an unsubscription (§7). It is a
 *    small discrete-event simulation of JavaScript's event loop: macro events ordered by (time, creation
 *    order) exactly like RxJS' `VirtualTimeScheduler`, and a FIFO of microtasks drained after each one.
 *    Whenever nothing is in flight, the batch decisions are the Kubernetes loop's: the property
 *    "simulation of a synchronous array = kubernetesSlowStart" checks that the two layers agree.
 *
 * 3. Window pacing (§9) is a second operator inside the same simulation: `Ramp` gives the sizes
 *    s0, s1, ... of §2 when every task succeeds, their prefix sums S(k), the bound
 *    `min(s(k), concurrency)` while S(k) <= successes < S(k+1), and the result a task belongs to. See
 *    `windowPacing` for the rule and for the choices made where §9 is silent.
 *
 * Every run also keeps a log of what happened in order (invocations, settlements, emissions, the
 * source's end, an unsubscription), on which `invariants.ts` checks the bound and the bookkeeping of §9
 * at every instant, for the model and for the operator alike.
 *
 * The model is written for clarity, not speed, and shares no code with `src/`.
 */

export interface ModelOptions {
  initialBatchSize?: number;
  growthFactor?: number;
  maxBatchSize?: number;
  concurrency?: number;
  flushAfter?: number;
  /** §9: `'batch'` (the default) is Kubernetes' barrier; `'window'` admits a task as soon as the bound has room. */
  pacing?: 'batch' | 'window';
}

const DEFAULTS = { initialBatchSize: 1, growthFactor: 2, maxBatchSize: Infinity, concurrency: Infinity };

function resolved(options: ModelOptions) {
  return {
    initialBatchSize: options.initialBatchSize ?? DEFAULTS.initialBatchSize,
    growthFactor: options.growthFactor ?? DEFAULTS.growthFactor,
    maxBatchSize: options.maxBatchSize ?? DEFAULTS.maxBatchSize,
    concurrency: options.concurrency ?? DEFAULTS.concurrency,
    flushAfter: options.flushAfter,
  };
}

/**
 * §2: the size the batch after a successful batch of `ranSize` tasks may hold,
 * `min(maxBatchSize, max(initialBatchSize, ceil(ranSize * growthFactor)))`, with two readings of `ceil`:
 *
 * - Floating-point noise is not growth: `100 * 1.1` is `110.00000000000001` in binary floating point and
 *   means 110. A product within `2 * Number.EPSILON` of a whole number, relative to its size, counts as
 *   that whole number; any other product is rounded up.
 * - A growth factor above 1 always grows: a batch that succeeded licenses at least one task more
 *   (`1 * 1.0000001` would otherwise stay at 1 for ever).
 */
export function sizeAfter(ranSize: number, options: ModelOptions): number {
  const o = resolved(options);
  const product = ranSize * o.growthFactor;
  const whole = Math.round(product);
  const isNoise = Math.abs(product - whole) <= 2 * Number.EPSILON * product;
  let grown = isNoise ? whole : Math.ceil(product);
  if (o.growthFactor > 1 && grown <= ranSize) grown = ranSize + 1;
  return Math.min(o.maxBatchSize, Math.max(o.initialBatchSize, grown));
}

/**
 * §9: the batch sizes s0, s1, ... of §2 when every task succeeds, and their prefix sums
 * S(0) = 0, S(k + 1) = S(k) + s(k). The same numbers serve twice: the bound on the tasks in flight after
 * a number of successes, and (window pacing) the result a source index belongs to.
 */
export class Ramp {
  private readonly sizes: number[] = [];
  private readonly starts: number[] = [0];

  constructor(private readonly options: ModelOptions) {}

  /** s(k). */
  size(k: number): number {
    while (this.sizes.length <= k) this.grow();
    return this.sizes[k];
  }

  /** S(k): how many tasks come before the k-th batch of the ramp. */
  start(k: number): number {
    while (this.starts.length <= k) this.grow();
    return this.starts[k];
  }

  /** The k with S(k) <= n < S(k + 1). */
  indexOf(n: number): number {
    while (this.starts[this.starts.length - 1] <= n) this.grow();
    let low = 0;
    let high = this.starts.length - 1; // starts[high] > n >= starts[low]
    while (high - low > 1) {
      const middle = (low + high) >> 1;
      if (this.starts[middle] <= n) low = middle;
      else high = middle;
    }
    return low;
  }

  /** How many tasks may be in flight once `successes` tasks have succeeded: min(s(k), concurrency). */
  bound(successes: number): number {
    return Math.min(this.size(this.indexOf(successes)), resolved(this.options).concurrency);
  }

  private grow() {
    const last = this.sizes.at(-1);
    const next = last === undefined ? resolved(this.options).initialBatchSize : sizeAfter(last, this.options);
    this.sizes.push(next);
    this.starts.push(this.starts[this.starts.length - 1] + next);
  }
}

export interface KubernetesRun {
  batchSizes: number[];
  invoked: number;
  successes: number;
  errors: boolean;
}

/**
 * Kubernetes' loop (pkg/controller/replicaset/replica_set.go):
 *
 *     for batchSize := min(remaining, initialBatchSize); batchSize > 0; batchSize = min(2*batchSize, remaining) {
 *         ... run batchSize calls, wg.Wait() ...
 *         successes += batchSize - len(errCh)
 *         if len(errCh) > 0 { return successes, <-errCh }
 *         remaining -= batchSize
 *     }
 *
 * with `2*batchSize` generalised to §2's `sizeAfter`. `succeeds(k)` says whether the k-th call (0-based,
 * in invocation order) succeeds.
 */
export function kubernetesSlowStart(count: number, options: ModelOptions, succeeds: (call: number) => boolean): KubernetesRun {
  const batchSizes: number[] = [];
  let remaining = count;
  let successes = 0;
  let invoked = 0;
  const initial = resolved(options).initialBatchSize;
  for (let batchSize = Math.min(remaining, initial); batchSize > 0; batchSize = Math.min(sizeAfter(batchSize, options), remaining)) {
    batchSizes.push(batchSize);
    let failed = 0;
    for (let i = 0; i < batchSize; i++) {
      if (succeeds(invoked)) successes++;
      else failed++;
      invoked++;
    }
    if (failed > 0) return { batchSizes, invoked, successes, errors: true };
    remaining -= batchSize;
  }
  return { batchSizes, invoked, successes, errors: false };
}

// ---------------------------------------------------------------------------------------------------
// The timed simulation
// ---------------------------------------------------------------------------------------------------

/** When a task's outcome reaches the operator, counted from the moment the task is started. */
export type Settlement =
  /** During the factory call or the subscription (a throw, `of(...)`, an array, a bad return value). */
  | { kind: 'sync' }
  /** One microtask later: an already settled promise. */
  | { kind: 'microtask' }
  /** A scheduled action `delay` later; a promise settled by that action adds one microtask hop. */
  | { kind: 'timer'; delay: number; viaPromise: boolean };

/** `abandoned`: the retry model's task that waited for a retry when the run stopped. */
export type TaskOutcome = { ok: true; value: unknown } | { ok: false; reason: unknown; abandoned?: true };

export interface TaskPlan {
  outcome: TaskOutcome;
  settles: Settlement;
  /** False for a source item that is not a function: it fails without any call (§4). */
  isFunction: boolean;
}

/** Stand-in for a reason the operator itself creates (an item that is not a function, a bad return value). */
export const OPERATOR_MADE_ERROR: unique symbol = Symbol('an error made by the operator');

export type SourcePlan =
  /**
   * `from(array)` or a generator: every item during the subscription, then completion. `pulled`:
   * `slowStart` over an array, which the run pulls from as it needs items (the retry model tells it apart).
   */
  | { kind: 'sync'; pulled?: true }
  /** A subject fed by scheduled actions: `count` items at each `time`, then the end. */
  | {
      kind: 'timed';
      arrivals: { time: number; count: number }[];
      end: { kind: 'complete'; time: number } | { kind: 'error'; time: number; error: unknown } | { kind: 'never' };
    };

export type UnsubscribePlan =
  | { kind: 'never' }
  | { kind: 'at'; time: number }
  /** Synchronously inside the consumer's `next` handler for the emission with this 0-based number. */
  | { kind: 'inNext'; emission: number };

export interface ModelScenario {
  options: ModelOptions;
  tasks: TaskPlan[];
  source: SourcePlan;
  unsubscribe: UnsubscribePlan;
  /** What `skipped` counts: the factories received (the operator) or the whole array (`slowStart(array)`). */
  knows: 'received' | 'all';
}

export interface ExpectedBatchResult {
  batch: number;
  startIndex: number;
  size: number;
  values: unknown[];
  successes: number;
}

export type ExpectedOutcome =
  { index: number; status: 'fulfilled'; value: unknown } | { index: number; status: 'rejected' | 'abandoned'; reason: unknown };

export interface ExpectedBatchError {
  batch: number;
  startIndex: number;
  size: number;
  failed: number;
  successes: number;
  results: ExpectedOutcome[];
  cause: unknown;
  skipped: number;
  /** Source indices of the factories `remaining` must hold, in order. */
  remaining: number[];
  /** Present when the source errored while the failing batch ran (§6). */
  sourceError?: { error: unknown };
}

export type ModelEnd =
  | { kind: 'complete'; time: number }
  | { kind: 'batchError'; time: number; error: ExpectedBatchError }
  | { kind: 'sourceError'; time: number; error: unknown }
  | { kind: 'unsubscribed'; time: number }
  /** Nothing ended the stream: the source never completes and nobody unsubscribed. */
  | { kind: 'open' };

/** One thing that happened, in the order it happened. */
export type TraceEvent =
  | { type: 'invoke'; index: number; batch: number; time: number }
  /** A task's outcome reached the operator. An item that is not a function settles when its turn comes. */
  | { type: 'settle'; index: number; ok: boolean; time: number }
  | { type: 'emit'; result: ExpectedBatchResult; time: number }
  | { type: 'sourceComplete' | 'sourceError' | 'unsubscribe'; time: number };

export interface ModelRun {
  /** Every batch that started, the failing one included (batch pacing; window pacing has no batches). */
  batches: { batch: number; startIndex: number; size: number; time: number }[];
  /** Factory calls in order (items that are not functions are not called). */
  invocations: { index: number; batch: number; time: number }[];
  emissions: { time: number; result: ExpectedBatchResult }[];
  end: ModelEnd;
  /** Tasks that were running when the consumer unsubscribed. */
  tornDown: number[];
  /** Items the source delivered before the stream ended. */
  received: number;
  /** Everything above, and the settlements, in the order it happened. */
  log: TraceEvent[];
}

/** What the two pacings share: the clock, the run being recorded, how tasks start and how the stream ends. */
interface Simulation {
  readonly scenario: ModelScenario;
  readonly concurrency: number;
  readonly flushAfter: number | undefined;
  readonly run: ModelRun;
  now(): number;
  schedule(delay: number, work: () => void): void;
  stopped(): boolean;
  end(e: ModelEnd): void;
  /** Calls the factory (if the item is one) and makes `settled(index)` happen when its plan says. */
  start(index: number, batch: number, settled: (index: number) => void): void;
  settleNoted(index: number): void;
  /** Emits a result; true when the consumer unsubscribed inside `next` (the stream has then ended). */
  emit(result: ExpectedBatchResult, inFlight: () => number[]): boolean;
  /** Ends the stream with the `SlowStartBatchError` of §5 / §9 for these unreported outcomes. */
  fail(
    batch: number,
    startIndex: number,
    outcomes: TaskOutcome[],
    cause: unknown,
    successes: number,
    sourceError?: { error: unknown },
  ): void;
}

/** How a pacing receives what the source does. */
interface Pacing {
  arrive(index: number): void;
  complete(): void;
  error(error: unknown): void;
  /** The tasks in flight, for an unsubscription from outside `next`. */
  inFlight(): number[];
}

export function simulateSlowStart(scenario: ModelScenario): ModelRun {
  const options = resolved(scenario.options);
  const { tasks, source, unsubscribe } = scenario;

  const run: ModelRun = {
    batches: [],
    invocations: [],
    emissions: [],
    end: { kind: 'open' },
    tornDown: [],
    received: 0,
    log: [],
  };

  // --- the event loop: macro events by (time, creation order), microtasks drained after each ---
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

  const sim: Simulation = {
    scenario,
    concurrency: options.concurrency,
    flushAfter: options.flushAfter,
    run,
    now: () => now,
    schedule,
    stopped: () => stopped,
    end,
    start(index, batch, settled) {
      const plan = tasks[index];
      if (plan.isFunction) {
        run.invocations.push({ index, batch, time: now });
        run.log.push({ type: 'invoke', index, batch, time: now });
      }
      const s = plan.settles;
      if (s.kind === 'sync' || !plan.isFunction) settled(index);
      else if (s.kind === 'microtask') micro.push(() => settled(index));
      else schedule(s.delay, () => (s.viaPromise ? micro.push(() => settled(index)) : settled(index)));
    },
    settleNoted(index) {
      run.log.push({ type: 'settle', index, ok: tasks[index].outcome.ok, time: now });
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
            : { index: startIndex + offset, status: 'rejected' as const, reason: o.reason },
        ),
        cause,
        skipped: known - firstSkipped,
        remaining: Array.from({ length: known - firstSkipped }, (_, k) => firstSkipped + k),
      };
      if (sourceError) error.sourceError = sourceError;
      end({ kind: 'batchError', time: now, error });
    },
  };

  const pacing = scenario.options.pacing === 'window' ? windowPacing(sim) : batchPacing(sim);

  const arrive = () => {
    pacing.arrive(run.received++);
  };

  // --- the scenario ---
  // `stopped` is set inside the closures above, which TypeScript's flow analysis does not follow.
  /* eslint-disable @typescript-eslint/no-unnecessary-condition */
  if (source.kind === 'sync') {
    // The whole source runs inside the subscription, one item at a time, until the stream ends.
    for (let i = 0; i < tasks.length && !stopped; i++) arrive();
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

// ---------------------------------------------------------------------------------------------------
// Batch pacing: §2-§6, Kubernetes' loop with a source, `concurrency` and `flushAfter`
// ---------------------------------------------------------------------------------------------------

interface RunningBatch {
  batch: number;
  startIndex: number;
  size: number;
  nextOffset: number;
  active: Set<number>;
  settled: number;
  outcomes: (TaskOutcome | undefined)[];
  /** Failures in the order they reached the operator. */
  failures: unknown[];
}

function batchPacing(sim: Simulation): Pacing {
  const { scenario } = sim;
  const arrivalTime: number[] = [];
  let waiting: number[] = [];
  let sourceCompleted = false;
  let sourceError: { error: unknown } | undefined;
  let batch: RunningBatch | undefined;
  let nextBatch = 0;
  let lastRanSize: number | undefined;
  let successes = 0;
  let flushTimerFor: number | undefined;

  const nextSize = () =>
    lastRanSize === undefined ? resolved(scenario.options).initialBatchSize : sizeAfter(lastRanSize, scenario.options);

  const settleTask = (index: number) => {
    if (sim.stopped() || !batch || !batch.active.has(index)) return;
    sim.settleNoted(index);
    batch.active.delete(index);
    const outcome = scenario.tasks[index].outcome;
    batch.outcomes[index - batch.startIndex] = outcome;
    if (!outcome.ok) batch.failures.push(outcome.reason);
    batch.settled++;
    pump();
  };

  const finishBatch = (b: RunningBatch) => {
    batch = undefined;
    const outcomes = b.outcomes as TaskOutcome[];
    successes += outcomes.filter((o) => o.ok).length;
    if (b.failures.length > 0) {
      sim.fail(b.batch, b.startIndex, outcomes, b.failures[0], successes, sourceError);
      return;
    }
    lastRanSize = b.size;
    const values = outcomes.map((o) => (o as { value: unknown }).value);
    if (sim.emit({ batch: b.batch, startIndex: b.startIndex, size: b.size, values, successes }, () => [])) return;
    if (sourceError) sim.end({ kind: 'sourceError', time: sim.now(), error: sourceError.error });
  };

  /** Decides, when no batch runs, whether the next one starts now (§3); false when nothing can happen yet. */
  const startNextBatchIfDue = (): boolean => {
    const now = sim.now();
    if (sourceError) {
      sim.end({ kind: 'sourceError', time: now, error: sourceError.error });
      return false;
    }
    if (waiting.length === 0) {
      if (sourceCompleted) sim.end({ kind: 'complete', time: now });
      return false;
    }
    const size = nextSize();
    const deadline = sim.flushAfter === undefined ? Infinity : arrivalTime[waiting[0]] + sim.flushAfter;
    if (waiting.length >= size || sourceCompleted || now >= deadline) {
      const members = waiting.slice(0, Math.min(size, waiting.length));
      waiting = waiting.slice(members.length);
      batch = {
        batch: nextBatch++,
        startIndex: members[0],
        size: members.length,
        nextOffset: 0,
        active: new Set(),
        settled: 0,
        outcomes: new Array<TaskOutcome | undefined>(members.length).fill(undefined),
        failures: [],
      };
      sim.run.batches.push({ batch: batch.batch, startIndex: batch.startIndex, size: batch.size, time: now });
      return true;
    }
    if (deadline !== Infinity && flushTimerFor !== deadline) {
      flushTimerFor = deadline;
      sim.schedule(deadline - now, pump);
    }
    return false;
  };

  // One loop instead of recursion, so thousands of synchronous tasks need no deep stack.
  let pumping = false;
  const pump = () => {
    if (pumping) return;
    pumping = true;
    try {
      while (!sim.stopped()) {
        if (batch) {
          if (batch.settled === batch.size) finishBatch(batch);
          else if (batch.active.size < sim.concurrency && batch.nextOffset < batch.size) {
            const index = batch.startIndex + batch.nextOffset++;
            batch.active.add(index);
            sim.start(index, batch.batch, settleTask);
          } else break;
        } else if (!startNextBatchIfDue()) break;
      }
    } finally {
      pumping = false;
    }
  };

  return {
    arrive(index) {
      arrivalTime[index] = sim.now();
      waiting.push(index);
      pump();
    },
    complete() {
      sourceCompleted = true;
      if (!batch) pump();
    },
    error(error) {
      sourceError = { error };
      if (!batch) pump(); // a running batch first settles (§6)
    },
    inFlight: () => (batch ? [...batch.active] : []),
  };
}

// ---------------------------------------------------------------------------------------------------
// Window pacing: §9
// ---------------------------------------------------------------------------------------------------

/**
 * Window pacing, §9: the tasks in flight never exceed `min(s(k), concurrency)` while
 * S(k) <= successes < S(k + 1), and a task starts, in source order, as soon as that bound has room and
 * its factory has arrived. Results group the source into ranges of the sizes s0, s1, ... (the last one
 * shorter when the source ends), and a result is emitted as soon as its tasks and all earlier results
 * are done. `context.batch` of a task is the result its index falls in.
 *
 * Where §9 is silent, the model does what a careful RxJS user would expect:
 *
 * - Admission is greedy and immediate. With a synchronous source, a task starts as its factory arrives
 *   if the bound has room; nothing waits for a result's range to fill (there is no barrier to wait
 *   for). Tasks that settle synchronously therefore run one after another inside the subscription.
 * - When a task settles, the results it completes are emitted first, then new tasks are admitted. So a
 *   consumer that unsubscribes inside `next` stops every later invocation, including those the same
 *   settlement would have allowed (§7).
 * - A result's `successes` is cumulative over the results, `startIndex + size`: the same number batch
 *   pacing reports for the same range. Tasks of later results that already succeeded are counted in the
 *   error's `successes`, not in an earlier result's.
 * - After a failure, the rule for results still holds until the stream ends: a result before the
 *   failing one whose tasks all succeed (they were in flight at the failure) is still emitted, so
 *   the error's `results` start at the first task that no emitted result could report. The operator
 *   stays subscribed to the source until the error, as in batch pacing: factories that arrive meanwhile
 *   are in `remaining`, a source error meanwhile is the error's `sourceError`.
 * - A source error (§6) stops admissions at once (waiting factories are skipped). The tasks in flight
 *   settle; then every invoked task is reported before the source's error: the results due are
 *   emitted, the last one shortened to the invoked tasks if the source's end cut it (as completion
 *   does), so that no outcome is lost. A failure among them makes the error a `SlowStartBatchError`
 *   with `sourceError`.
 * - Unsubscribing (also inside `next`) tears down the tasks in flight, as in batch pacing (§7).
 */
function windowPacing(sim: Simulation): Pacing {
  const { scenario } = sim;
  const { tasks } = scenario;
  const ramp = new Ramp(scenario.options);
  /** Factories received and not yet started are `received .. started - 1`: tasks start in source order. */
  let received = 0;
  let started = 0;
  const inFlight = new Set<number>();
  const outcomes: TaskOutcome[] = [];
  let successes = 0;
  /** Tasks 0 .. succeededPrefix - 1 have all succeeded. */
  let succeededPrefix = 0;
  /** The failure first in time. */
  let failure: number | undefined;
  /** Emitted results report tasks 0 .. reported - 1; the next result is `nextResult`. */
  let reported = 0;
  let nextResult = 0;
  let sourceCompleted = false;
  let sourceError: { error: unknown } | undefined;

  const settleTask = (index: number) => {
    if (sim.stopped() || !inFlight.has(index)) return;
    sim.settleNoted(index);
    inFlight.delete(index);
    const outcome = tasks[index].outcome;
    outcomes[index] = outcome;
    if (outcome.ok) successes++;
    else failure ??= index;
    while (succeededPrefix < started && outcomes[succeededPrefix]?.ok) succeededPrefix++;
    pump();
  };

  /** Where the next result ends if it is due now. */
  const dueResultEnd = (): number | undefined => {
    let end = ramp.start(nextResult + 1);
    if (sourceCompleted) end = Math.min(end, received);
    if (sourceError) end = Math.min(end, started);
    return end > reported && succeededPrefix >= end ? end : undefined;
  };

  let pumping = false;
  const pump = () => {
    if (pumping) return;
    pumping = true;
    try {
      while (!sim.stopped()) {
        const end = dueResultEnd();
        if (end !== undefined) {
          const values = outcomes.slice(reported, end).map((o) => (o as { value: unknown }).value);
          const result = { batch: nextResult, startIndex: reported, size: end - reported, values, successes: end };
          reported = end;
          nextResult++;
          sim.emit(result, () => [...inFlight]);
          continue;
        }
        const admitting = failure === undefined && !sourceError;
        if (admitting && started < received && inFlight.size < ramp.bound(successes)) {
          const index = started++;
          inFlight.add(index);
          sim.start(index, ramp.indexOf(index), settleTask);
          continue;
        }
        if (inFlight.size > 0) break;
        if (failure !== undefined) {
          const cause = (tasks[failure].outcome as { reason: unknown }).reason;
          sim.fail(ramp.indexOf(failure), reported, outcomes.slice(reported, started), cause, successes, sourceError);
        } else if (sourceError) {
          sim.end({ kind: 'sourceError', time: sim.now(), error: sourceError.error });
        } else if (sourceCompleted && started === received) {
          sim.end({ kind: 'complete', time: sim.now() });
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
    inFlight: () => [...inFlight],
  };
}
