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
 * The model is written for clarity, not speed, and shares no code with `src/`.
 */

export interface ModelOptions {
  initialBatchSize?: number;
  growthFactor?: number;
  maxBatchSize?: number;
  concurrency?: number;
  flushAfter?: number;
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
 * `min(maxBatchSize, max(initialBatchSize, ceil(ranSize * growthFactor)))`.
 *
 * A growth factor is read as the decimal people write: `1.1` means 10 % more, so 10 tasks grow to 11,
 * although `10 * 1.1` is `11.000000000000002` in binary floating point. A factor within 1e-9 of a whole
 * number of hundredths is therefore computed in exact integer hundredths; any other factor uses the
 * floating-point product as it is.
 */
export function sizeAfter(ranSize: number, options: ModelOptions): number {
  const o = resolved(options);
  const hundredths = Math.round(o.growthFactor * 100);
  let grown =
    Math.abs(o.growthFactor * 100 - hundredths) < 1e-9
      ? Math.ceil((ranSize * hundredths) / 100) // ranSize * hundredths is an exact integer
      : Math.ceil(ranSize * o.growthFactor);
  // A factor above 1 grows a batch by at least one task, however close to 1 it is.
  if (o.growthFactor > 1) grown = Math.max(grown, ranSize + 1);
  return Math.min(o.maxBatchSize, Math.max(o.initialBatchSize, grown));
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

export type TaskOutcome = { ok: true; value: unknown } | { ok: false; reason: unknown };

export interface TaskPlan {
  outcome: TaskOutcome;
  settles: Settlement;
  /** False for a source item that is not a function: it fails without any call (§4). */
  isFunction: boolean;
}

/** Stand-in for a reason the operator itself creates (an item that is not a function, a bad return value). */
export const OPERATOR_MADE_ERROR: unique symbol = Symbol('an error made by the operator');

export type SourcePlan =
  /** `from(array)` or a generator: every item during the subscription, then completion. */
  | { kind: 'sync' }
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
  { index: number; status: 'fulfilled'; value: unknown } | { index: number; status: 'rejected'; reason: unknown };

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

export interface ModelRun {
  /** Every batch that started, the failing one included. */
  batches: { batch: number; startIndex: number; size: number; time: number }[];
  /** Factory calls in order (items that are not functions are not called). */
  invocations: { index: number; batch: number; time: number }[];
  emissions: { time: number; result: ExpectedBatchResult }[];
  end: ModelEnd;
  /** Tasks that were running when the consumer unsubscribed. */
  tornDown: number[];
  /** Items the source delivered before the stream ended. */
  received: number;
}

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

export function simulateSlowStart(scenario: ModelScenario): ModelRun {
  const options = resolved(scenario.options);
  const { tasks, source, unsubscribe } = scenario;

  const run: ModelRun = { batches: [], invocations: [], emissions: [], end: { kind: 'open' }, tornDown: [], received: 0 };

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

  // --- the operator's state ---
  let stopped = false;
  const arrivalTime: number[] = [];
  let waiting: number[] = [];
  let sourceCompleted = false;
  let sourceError: { error: unknown } | undefined;
  let batch: RunningBatch | undefined;
  let nextBatch = 0;
  let lastRanSize: number | undefined;
  let successes = 0;
  let flushTimerFor: number | undefined;

  const end = (e: ModelEnd) => {
    run.end = e;
    stopped = true;
  };

  const nextSize = () => (lastRanSize === undefined ? options.initialBatchSize : sizeAfter(lastRanSize, scenario.options));

  const settleTask = (index: number) => {
    if (stopped || !batch || !batch.active.has(index)) return;
    batch.active.delete(index);
    const outcome = tasks[index].outcome;
    batch.outcomes[index - batch.startIndex] = outcome;
    if (!outcome.ok) batch.failures.push(outcome.reason);
    batch.settled++;
    pump();
  };

  const startTask = (index: number, b: RunningBatch) => {
    const plan = tasks[index];
    if (plan.isFunction) run.invocations.push({ index, batch: b.batch, time: now });
    b.active.add(index);
    const s = plan.settles;
    if (s.kind === 'sync' || !plan.isFunction) settleTask(index);
    else if (s.kind === 'microtask') micro.push(() => settleTask(index));
    else schedule(s.delay, () => (s.viaPromise ? micro.push(() => settleTask(index)) : settleTask(index)));
  };

  const finishBatch = (b: RunningBatch) => {
    batch = undefined;
    const batchSuccesses = b.outcomes.filter((o) => o!.ok).length;
    successes += batchSuccesses;
    if (b.failures.length > 0) {
      const known = scenario.knows === 'all' ? tasks.length : run.received;
      const firstSkipped = b.startIndex + b.size;
      const error: ExpectedBatchError = {
        batch: b.batch,
        startIndex: b.startIndex,
        size: b.size,
        failed: b.failures.length,
        successes,
        results: b.outcomes.map((o, offset) =>
          o!.ok
            ? { index: b.startIndex + offset, status: 'fulfilled' as const, value: o!.value }
            : { index: b.startIndex + offset, status: 'rejected' as const, reason: o!.reason },
        ),
        cause: b.failures[0],
        skipped: known - firstSkipped,
        remaining: Array.from({ length: known - firstSkipped }, (_, k) => firstSkipped + k),
      };
      if (sourceError) error.sourceError = sourceError;
      end({ kind: 'batchError', time: now, error });
      return;
    }
    lastRanSize = b.size;
    const values = b.outcomes.map((o) => (o as { value: unknown }).value);
    run.emissions.push({ time: now, result: { batch: b.batch, startIndex: b.startIndex, size: b.size, values, successes } });
    if (unsubscribe.kind === 'inNext' && unsubscribe.emission === run.emissions.length - 1) {
      end({ kind: 'unsubscribed', time: now });
      return;
    }
    if (sourceError) end({ kind: 'sourceError', time: now, error: sourceError.error });
  };

  /** Decides, when no batch runs, whether the next one starts now (§3); false when nothing can happen yet. */
  const startNextBatchIfDue = (): boolean => {
    if (sourceError) {
      end({ kind: 'sourceError', time: now, error: sourceError.error });
      return false;
    }
    if (waiting.length === 0) {
      if (sourceCompleted) end({ kind: 'complete', time: now });
      return false;
    }
    const size = nextSize();
    const deadline = options.flushAfter === undefined ? Infinity : arrivalTime[waiting[0]] + options.flushAfter;
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
        outcomes: new Array(members.length).fill(undefined),
        failures: [],
      };
      run.batches.push({ batch: batch.batch, startIndex: batch.startIndex, size: batch.size, time: now });
      return true;
    }
    if (deadline !== Infinity && flushTimerFor !== deadline) {
      flushTimerFor = deadline;
      schedule(deadline - now, pump);
    }
    return false;
  };

  // One loop instead of recursion, so thousands of synchronous tasks need no deep stack.
  let pumping = false;
  const pump = () => {
    if (pumping) return;
    pumping = true;
    try {
      while (!stopped) {
        if (batch) {
          if (batch.settled === batch.size) finishBatch(batch);
          else if (batch.active.size < options.concurrency && batch.nextOffset < batch.size) {
            startTask(batch.startIndex + batch.nextOffset++, batch);
          } else break;
        } else if (!startNextBatchIfDue()) break;
      }
    } finally {
      pumping = false;
    }
  };

  const arrive = () => {
    const index = run.received++;
    arrivalTime[index] = now;
    waiting.push(index);
    pump();
  };

  // --- the scenario ---
  // `stopped` is set inside the closures above, which TypeScript's flow analysis does not follow.
  /* eslint-disable @typescript-eslint/no-unnecessary-condition */
  if (source.kind === 'sync') {
    // The whole source runs inside the subscription, one item at a time, until the stream ends.
    for (let i = 0; i < tasks.length && !stopped; i++) arrive();
    if (!stopped) {
      sourceCompleted = true;
      pump();
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
        if (sourceEnd.kind === 'complete') sourceCompleted = true;
        else sourceError = { error: sourceEnd.error };
        if (!batch) pump(); // a running batch first settles (§6)
      });
    }
  }
  if (unsubscribe.kind === 'at') {
    schedule(unsubscribe.time, () => {
      if (stopped) return;
      run.tornDown = batch ? [...batch.active].sort((a, b) => a - b) : [];
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
