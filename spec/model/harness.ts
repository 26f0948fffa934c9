/**
 * Runs one generated scenario against the real operator in virtual time and records everything the
 * properties compare with the reference model.
 *
 * Time: a plain RxJS `VirtualTimeScheduler` (the base of `TestScheduler`) stepped one action at a time.
 * `TestScheduler.run` cannot be used because promise tasks settle in microtasks, which its synchronous
 * flush never lets run; stepping by hand lets the driver drain the microtask queue after every action,
 * exactly like the event loop and like the model. Every task delay, source arrival and `flushAfter`
 * timer goes through this scheduler, so a run is deterministic.
 */
import { Observable, Subject, Subscription, VirtualTimeScheduler, from, take, tap, type ObservableInput } from 'rxjs';
import {
  SlowStartBatchError,
  slowStart,
  slowStartBatch,
  type BatchResult,
  type SlowStartOptions,
  type TaskContext,
  type TaskFactory,
} from '../../src/index.js';
import type { Trace, TraceEnd } from './invariants.js';
import {
  OPERATOR_MADE_ERROR,
  type ModelScenario,
  type Settlement,
  type TaskPlan,
  type TraceEvent,
  type UnsubscribePlan,
} from './slow-start-model.js';

/** How a task is built. Each kind maps to one `TaskPlan` of the model (see `toTaskPlan`). */
export type TaskKind =
  /** An observable that emits `values` and completes, synchronously or after `delay`. */
  | { kind: 'observable'; values: unknown[]; delay: number | null; valuesEarly: boolean }
  /** An observable that emits `valuesBefore` values and errors with `reason`. */
  | { kind: 'observableError'; valuesBefore: unknown[]; reason: unknown; delay: number | null }
  /** A factory returning an array (an `ObservableInput` that completes synchronously). */
  | { kind: 'array'; values: unknown[] }
  /** A promise that resolves or rejects: already settled (`delay: null`) or settled by a timer. */
  | { kind: 'promise'; ok: boolean; valueOrReason: unknown; delay: number | null }
  /** A factory that throws. */
  | { kind: 'throw'; reason: unknown }
  /** A factory returning something that is not an `ObservableInput`. */
  | { kind: 'notInput'; returned: unknown }
  /** A source item that is not a function at all. */
  | { kind: 'notFunction'; item: unknown };

export type SourceKind =
  | { kind: 'array' }
  | { kind: 'generator' }
  | {
      kind: 'subject';
      /** Item groups: `count` items arriving `gap` time units after the previous group. */
      arrivals: { time: number; count: number }[];
      end: { kind: 'complete'; time: number } | { kind: 'error'; time: number; error: unknown } | { kind: 'never' };
    };

/**
 * The options of a scenario: those of §1 and `pacing` (§9), without `scheduler` (the harness brings its
 * own). Written out here so that scenarios can name `pacing` whether or not the operator's types know it.
 */
export interface ScenarioOptions {
  initialBatchSize?: number;
  growthFactor?: number;
  maxBatchSize?: number;
  concurrency?: number;
  flushAfter?: number;
  pacing?: 'batch' | 'window';
}

/** The operator's options for a scenario, with the virtual-time scheduler. */
function operatorOptions(options: ScenarioOptions, scheduler: VirtualTimeScheduler): SlowStartOptions {
  // The operator's types tie `flushAfter` to batch pacing; a scenario's options are wider.
  return { ...options, scheduler } as SlowStartOptions;
}

/** Whether the operator accepts `pacing: 'window'` (§9) yet. */
export const operatorHasWindowPacing: boolean = (() => {
  try {
    slowStartBatch(operatorOptions({ pacing: 'window' }, new VirtualTimeScheduler()));
    return true;
  } catch {
    return false;
  }
})();

export interface Scenario {
  api: 'operator' | 'slowStart';
  options: ScenarioOptions;
  tasks: TaskKind[];
  source: SourceKind;
  unsubscribe: UnsubscribePlan;
}

export function toTaskPlan(task: TaskKind): TaskPlan {
  const timed = (delay: number | null, viaPromise: boolean): Settlement =>
    delay === null ? (viaPromise ? { kind: 'microtask' } : { kind: 'sync' }) : { kind: 'timer', delay, viaPromise };
  switch (task.kind) {
    case 'observable':
      return { outcome: { ok: true, value: task.values.at(-1) }, settles: timed(task.delay, false), isFunction: true };
    case 'observableError':
      return { outcome: { ok: false, reason: task.reason }, settles: timed(task.delay, false), isFunction: true };
    case 'array':
      return { outcome: { ok: true, value: task.values.at(-1) }, settles: { kind: 'sync' }, isFunction: true };
    case 'promise':
      return {
        outcome: task.ok ? { ok: true, value: task.valueOrReason } : { ok: false, reason: task.valueOrReason },
        settles: timed(task.delay, true),
        isFunction: true,
      };
    case 'throw':
      return { outcome: { ok: false, reason: task.reason }, settles: { kind: 'sync' }, isFunction: true };
    case 'notInput':
      return { outcome: { ok: false, reason: OPERATOR_MADE_ERROR }, settles: { kind: 'sync' }, isFunction: true };
    case 'notFunction':
      return { outcome: { ok: false, reason: OPERATOR_MADE_ERROR }, settles: { kind: 'sync' }, isFunction: false };
  }
}

export function toModelScenario(s: Scenario): ModelScenario {
  return {
    options: s.options,
    tasks: s.tasks.map(toTaskPlan),
    source: s.source.kind === 'subject' ? { kind: 'timed', arrivals: s.source.arrivals, end: s.source.end } : { kind: 'sync' },
    unsubscribe: s.unsubscribe,
    knows: s.api === 'slowStart' && s.source.kind === 'array' ? 'all' : 'received',
  };
}

export interface Observed {
  invocations: { index: number; batch: number; time: number; contextIndex: number }[];
  emissions: { time: number; value: BatchResult<unknown> }[];
  end:
    | { kind: 'complete'; time: number }
    | { kind: 'error'; time: number; error: unknown }
    | { kind: 'unsubscribed'; time: number }
    | { kind: 'open' };
  /** The source items, by index, so `remaining` can be checked by identity. */
  items: unknown[];
  /** Per invoked task: its context signal. */
  signals: Map<number, AbortSignal>;
  /** Tasks whose signal was already aborted when they settled on their own. */
  abortedBeforeSettling: number[];
  /** Task subscriptions still open after the end. */
  openTaskSubscriptions: number[];
  /** Scheduler actions of the operator or of the tasks still pending right after the end. */
  pendingTimersAfterEnd: number;
  /** Violations seen while running: more than `concurrency` tasks at once, or two batches at once. */
  concurrencyViolations: string[];
  /** Generator sources: items pulled, and whether its `finally` ran. */
  generator?: { pulled: number; closed: boolean };
  /** Items the operator received from its source (`slowStartBatch` only). */
  received: number;
  /**
   * What happened, in order: invocations, the moments the operator learnt of a task's outcome (for a
   * promise: the reaction just before the operator's own), emissions, the source's end, an unsubscription
   * and the end of the stream.
   */
  log: (TraceEvent | { type: 'end' })[];
}

/** Lets every queued microtask (promise reactions) run. */
const nextMacrotask = () => new Promise<void>((resolve) => setImmediate(resolve));

export async function runScenario(s: Scenario): Promise<Observed> {
  const scheduler = new VirtualTimeScheduler();
  const harnessActions = new Set<unknown>();
  const concurrency = s.options.concurrency ?? Infinity;

  const observed: Observed = {
    invocations: [],
    emissions: [],
    end: { kind: 'open' },
    items: [],
    signals: new Map(),
    abortedBeforeSettling: [],
    openTaskSubscriptions: [],
    pendingTimersAfterEnd: 0,
    concurrencyViolations: [],
    received: 0,
    log: [],
  };
  const note = (event: TraceEvent | { type: 'end' }) => observed.log.push(event);
  const noteSettled = (index: number, ok: boolean) => note({ type: 'settle', index, ok, time: scheduler.now() });
  const window = s.options.pacing === 'window';

  const running = new Map<number, number>(); // task index -> its batch
  /** Set when a promise task has settled or been created settled: its reaction is a queued microtask. */
  let promiseSettled = false;
  const drainMicrotasks = async () => {
    while (promiseSettled) {
      promiseSettled = false;
      await nextMacrotask();
    }
  };
  const openSubscriptions = new Set<number>();
  const started = (index: number, batch: number) => {
    for (const [other, otherBatch] of running) {
      // Window pacing runs tasks of different results side by side (§9).
      if (otherBatch !== batch && !window)
        observed.concurrencyViolations.push(`task ${index} (batch ${batch}) started while task ${other} (batch ${otherBatch}) ran`);
    }
    running.set(index, batch);
    if (running.size > concurrency)
      observed.concurrencyViolations.push(`${running.size} tasks ran at once with concurrency ${concurrency}`);
  };
  const settled = (index: number, signal: AbortSignal) => {
    if (signal.aborted) observed.abortedBeforeSettling.push(index);
    running.delete(index);
  };

  const taskObservable = (index: number, task: Extract<TaskKind, { kind: 'observable' | 'observableError' }>, signal: AbortSignal) =>
    new Observable<unknown>((subscriber) => {
      openSubscriptions.add(index);
      const finish = () => {
        settled(index, signal);
        noteSettled(index, task.kind === 'observable');
        if (task.kind === 'observable') {
          if (!task.valuesEarly) for (const v of task.values) subscriber.next(v);
          subscriber.complete();
        } else {
          for (const v of task.valuesBefore) subscriber.next(v);
          subscriber.error(task.reason);
        }
      };
      if (task.kind === 'observable' && task.valuesEarly) for (const v of task.values) subscriber.next(v);
      let timer: Subscription | undefined;
      if (task.delay === null) finish();
      else timer = scheduler.schedule(finish, task.delay);
      return () => {
        timer?.unsubscribe();
        openSubscriptions.delete(index);
        running.delete(index);
      };
    });

  const makeItem = (index: number, task: TaskKind): unknown => {
    if (task.kind === 'notFunction') return task.item;
    const factory: TaskFactory<unknown> = (context: TaskContext) => {
      observed.invocations.push({ index, batch: context.batch, time: scheduler.now(), contextIndex: context.index });
      note({ type: 'invoke', index, batch: context.batch, time: scheduler.now() });
      observed.signals.set(index, context.signal);
      started(index, context.batch);
      switch (task.kind) {
        case 'observable':
        case 'observableError':
          return taskObservable(index, task, context.signal);
        case 'array':
          settled(index, context.signal);
          noteSettled(index, true);
          return task.values;
        case 'promise': {
          const settle = (resolve: (v: unknown) => void, reject: (r: unknown) => void) => {
            settled(index, context.signal);
            promiseSettled = true;
            if (task.ok) resolve(task.valueOrReason);
            else reject(task.valueOrReason);
          };
          // A promise cannot be cancelled: its timer is the outside world's, not the operator's.
          const promise =
            task.delay === null
              ? new Promise(settle)
              : new Promise((resolve, reject) => {
                  harnessActions.add(scheduler.schedule(() => settle(resolve, reject), task.delay!));
                });
          // Registered before the operator's own reaction, this one runs just before it.
          promise.then(
            () => noteSettled(index, true),
            () => noteSettled(index, false),
          );
          return promise;
        }
        case 'throw':
          settled(index, context.signal);
          noteSettled(index, false);
          throw task.reason;
        case 'notInput':
          settled(index, context.signal);
          noteSettled(index, false);
          return task.returned as ObservableInput<unknown>;
      }
    };
    return factory;
  };
  observed.items = s.tasks.map((t, i) => makeItem(i, t));
  const factories = observed.items as TaskFactory<unknown>[];

  let generatorState: { pulled: number; closed: boolean } | undefined;
  function* generate() {
    try {
      for (const f of factories) {
        generatorState!.pulled++;
        yield f;
      }
    } finally {
      generatorState!.closed = true;
    }
  }

  // The operator's only timers, the flush timers, run on the virtual clock too.
  const options = operatorOptions(s.options, scheduler);
  let subject: Subject<TaskFactory<unknown>> | undefined;
  let output: Observable<BatchResult<unknown>>;
  if (s.api === 'slowStart') {
    if (s.source.kind === 'subject') throw new Error('slowStart scenarios use arrays or generators');
    if (s.source.kind === 'generator') generatorState = { pulled: 0, closed: false };
    output = slowStart(s.source.kind === 'array' ? factories : generate(), options);
  } else {
    let source: Observable<TaskFactory<unknown>>;
    if (s.source.kind === 'array') source = from(factories);
    else if (s.source.kind === 'generator') {
      generatorState = { pulled: 0, closed: false };
      source = from(generate());
    } else source = subject = new Subject<TaskFactory<unknown>>();
    const counted = source.pipe(
      tap({
        next: () => observed.received++,
        complete: () => note({ type: 'sourceComplete', time: scheduler.now() }),
        error: () => note({ type: 'sourceError', time: scheduler.now() }),
      }),
    );
    output = counted.pipe(slowStartBatch(options));
  }
  if (s.unsubscribe.kind === 'inNext') output = output.pipe(take(s.unsubscribe.emission + 1));

  let ended = false;
  const noteEnd = () => {
    ended = true;
  };
  const subscription = output.subscribe({
    next: (value) => {
      observed.emissions.push({ time: scheduler.now(), value });
      note({ type: 'emit', result: value, time: scheduler.now() });
      if (s.unsubscribe.kind === 'inNext' && observed.emissions.length === s.unsubscribe.emission + 1)
        note({ type: 'unsubscribe', time: scheduler.now() });
    },
    error: (error: unknown) => {
      observed.end = { kind: 'error', time: scheduler.now(), error };
      note({ type: 'end' });
      noteEnd();
    },
    complete: () => {
      // `take` completes the output when it unsubscribes from the operator inside `next`.
      observed.end =
        s.unsubscribe.kind === 'inNext' && observed.emissions.length === s.unsubscribe.emission + 1
          ? { kind: 'unsubscribed', time: scheduler.now() }
          : { kind: 'complete', time: scheduler.now() };
      if (observed.end.kind === 'complete') note({ type: 'end' });
      noteEnd();
    },
  });

  // Harness actions are created in the model's order: arrivals, then the source's end, then the unsubscription.
  const harness = (work: () => void, delay: number) => {
    harnessActions.add(scheduler.schedule(work, delay));
  };
  if (s.source.kind === 'subject') {
    let next = 0;
    for (const a of s.source.arrivals) {
      const first = next;
      next += a.count;
      harness(() => {
        for (let k = first; k < first + a.count; k++) subject!.next(factories[k]);
      }, a.time);
    }
    const end = s.source.end;
    if (end.kind === 'complete') harness(() => subject!.complete(), end.time);
    else if (end.kind === 'error') harness(() => subject!.error(end.error), end.time);
  }
  if (s.unsubscribe.kind === 'at') {
    harness(() => {
      if (ended) return;
      note({ type: 'unsubscribe', time: scheduler.now() });
      subscription.unsubscribe();
      observed.end = { kind: 'unsubscribed', time: scheduler.now() };
      noteEnd();
    }, s.unsubscribe.time);
  }

  const pendingTimers = () => scheduler.actions.filter((a) => !harnessActions.has(a)).length;
  await drainMicrotasks();
  // `ended` is set by the callbacks above, which TypeScript's flow analysis does not follow.
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition
  while (!ended && scheduler.actions.length > 0) {
    const action = scheduler.actions.shift()!;
    scheduler.frame = action.delay;
    const error = action.execute(action.state, action.delay);
    if (error) throw error;
    await drainMicrotasks();
  }
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition
  if (ended) observed.pendingTimersAfterEnd = pendingTimers();
  else {
    // Nothing more will happen: end the run as a consumer would, which must leave nothing behind either.
    subscription.unsubscribe();
    await drainMicrotasks();
    observed.pendingTimersAfterEnd = pendingTimers();
  }
  observed.openTaskSubscriptions = [...openSubscriptions].sort((a, b) => a - b);
  if (generatorState) observed.generator = generatorState;
  return observed;
}

/** The log of an operator's run, for the invariants of §9 (invariants.ts). */
export function traceOfObserved(s: Scenario, observed: Observed): Trace {
  const tasks = s.tasks.map(toTaskPlan);
  const known = s.api === 'operator' ? observed.received : s.source.kind === 'array' ? s.tasks.length : (observed.generator?.pulled ?? 0);
  const end = traceEndOf(observed);
  return { options: s.options, tasks, log: observed.log, end, known, seesEveryFailure: false, showsSourceEnd: s.api === 'operator' };
}

/**
 * How an operator's run ended, as the invariants read it: a `SlowStartBatchError` with its factories
 * turned back into source indexes (by identity; -1 for one that is not the expected item).
 */
export function traceEndOf(observed: Pick<Observed, 'end' | 'items'>): TraceEnd {
  let end: TraceEnd;
  if (observed.end.kind === 'error') {
    const error = observed.end.error;
    if (error instanceof SlowStartBatchError) {
      const firstRemaining = error.startIndex + error.size;
      end = {
        kind: 'batchError',
        error: {
          batch: error.batch,
          startIndex: error.startIndex,
          size: error.size,
          successes: error.successes,
          cause: error.cause,
          results: error.results.map((r) =>
            r.status === 'fulfilled'
              ? { index: r.index, status: 'fulfilled' as const, value: r.value }
              : { index: r.index, status: r.status, reason: r.reason },
          ),
          remaining: error.remaining.map((f: unknown, k: number) =>
            Object.is(f, observed.items[firstRemaining + k]) ? firstRemaining + k : -1,
          ),
          unfinished: ((): number[] => {
            const expected = [
              ...error.results.filter((r) => r.status !== 'fulfilled').map((r) => r.index),
              ...error.remaining.map((_: unknown, k: number) => firstRemaining + k),
            ];
            return error.unfinished.map((f: unknown, k: number) => (Object.is(f, observed.items[expected[k]]) ? expected[k] : -1));
          })(),
          resumeFrom: error.resumeFrom,
        },
      };
    } else end = { kind: 'sourceError' };
  } else end = { kind: observed.end.kind };
  return end;
}
