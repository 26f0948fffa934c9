/**
 * Runs one generated `retry` scenario (§10) against the real operator in virtual time, like
 * harness.ts does for the scenarios without retries: a `VirtualTimeScheduler` stepped one action at a
 * time with the microtasks drained after each. The operator gets that scheduler through its
 * `scheduler` option, so its pauses run in virtual time too; `when` answers from the scenario's plan
 * (per task and try) and `delay` is the plan's number or function, so nothing is random.
 */
import { Observable, Subject, Subscription, VirtualTimeScheduler, from, take, tap } from 'rxjs';
import {
  slowStart,
  slowStartBatch,
  type BatchResult,
  type SlowStartEvent,
  type SlowStartOptions,
  type TaskFactory,
} from '../../src/index.js';
import type { RetryTrace } from './retry-invariants.js';
import type { DelayPlan, RetryPlan, RetryScenario, RetryTaskPlan, RetryTraceEvent, TryPlan, Verdict } from './retry-model.js';
import { traceEndOf, type ScenarioOptions } from './harness.js';
import type { Settlement, UnsubscribePlan } from './slow-start-model.js';

/** One try of a task. Failing tries carry their own reason (an object, so it is told apart by identity). */
export type TryKind =
  | { kind: 'observable'; value: unknown; delay: number | null }
  | { kind: 'observableError'; reason: unknown; delay: number | null; verdict: Verdict }
  | { kind: 'promise'; ok: true; value: unknown; delay: number | null }
  | { kind: 'promise'; ok: false; reason: unknown; delay: number | null; verdict: Verdict }
  | { kind: 'throw'; reason: unknown; verdict: Verdict };

export interface RetryTaskKind {
  tries: TryKind[];
}

export type RetrySourceKind =
  | { kind: 'array' }
  | {
      kind: 'subject';
      arrivals: { time: number; count: number }[];
      end: { kind: 'complete'; time: number } | { kind: 'error'; time: number; error: unknown } | { kind: 'never' };
    };

export interface RetryScenarioSpec {
  api: 'operator' | 'slowStart';
  options: ScenarioOptions & { retry: RetryPlan };
  tasks: RetryTaskKind[];
  source: RetrySourceKind;
  unsubscribe: UnsubscribePlan;
}

function toTryPlan(t: TryKind): TryPlan {
  const timed = (delay: number | null, viaPromise: boolean): Settlement =>
    delay === null ? (viaPromise ? { kind: 'microtask' } : { kind: 'sync' }) : { kind: 'timer', delay, viaPromise };
  switch (t.kind) {
    case 'observable':
      return { outcome: { ok: true, value: t.value }, settles: timed(t.delay, false), verdict: { kind: 'transient' } };
    case 'observableError':
      return { outcome: { ok: false, reason: t.reason }, settles: timed(t.delay, false), verdict: t.verdict };
    case 'promise':
      return t.ok
        ? { outcome: { ok: true, value: t.value }, settles: timed(t.delay, true), verdict: { kind: 'transient' } }
        : { outcome: { ok: false, reason: t.reason }, settles: timed(t.delay, true), verdict: t.verdict };
    case 'throw':
      return { outcome: { ok: false, reason: t.reason }, settles: { kind: 'sync' }, verdict: t.verdict };
  }
}

export function toRetryTaskPlan(task: RetryTaskKind): RetryTaskPlan {
  return { tries: task.tries.map(toTryPlan), isFunction: true };
}

export function toRetryModelScenario(s: RetryScenarioSpec): RetryScenario {
  return {
    options: s.options,
    tasks: s.tasks.map(toRetryTaskPlan),
    source:
      s.source.kind === 'subject'
        ? { kind: 'timed', arrivals: s.source.arrivals, end: s.source.end }
        : s.api === 'slowStart'
          ? { kind: 'sync', pulled: true }
          : { kind: 'sync' },
    unsubscribe: s.unsubscribe,
    knows: s.api === 'slowStart' ? 'all' : 'received',
  };
}

/** The `retry` option the operator gets for a plan: `when` answers from the tasks' plans. */
function retryOption(plan: RetryPlan, tasks: RetryTaskKind[], calls: RetryObserved['calls'], now: () => number) {
  const verdictOf = (index: number, attempt: number): Verdict => {
    const t = tasks[index].tries[Math.min(attempt, tasks[index].tries.length) - 1];
    return 'verdict' in t ? t.verdict : { kind: 'transient' };
  };
  const when = (_error: unknown, context: { index: number; attempt: number }): boolean | number => {
    calls.push({ fn: 'when', index: context.index, attempt: context.attempt, time: now() });
    const v = verdictOf(context.index, context.attempt);
    switch (v.kind) {
      case 'transient':
        return true;
      case 'after':
        return v.ms;
      case 'fatal':
        return false;
      case 'throws':
        throw v.error;
      case 'invalid':
        return v.returned as number;
    }
  };
  const delay = (d: DelayPlan): number | ((attempt: number) => number) => {
    if (d.kind === 'fixed') return d.ms;
    return (attempt: number) => {
      calls.push({ fn: 'delay', index: -1, attempt, time: now() });
      if (d.throws?.attempt === attempt) throw d.throws.error;
      return d.ms[(attempt - 1) % d.ms.length];
    };
  };
  const option: { when: typeof when; delay: number | ((attempt: number) => number); maxAttempts?: number; learnRate?: true } = {
    when,
    delay: delay(plan.delay),
  };
  if (plan.maxAttempts !== undefined) option.maxAttempts = plan.maxAttempts;
  if (plan.learnRate) option.learnRate = true;
  return option;
}

/** Whether the operator accepts `retry` (§10) yet: unknown options are refused at call time. */
export const operatorHasRetry: boolean = (() => {
  try {
    slowStartBatch({ retry: { maxAttempts: 2 } });
    return true;
  } catch {
    return false;
  }
})();

export interface RetryObserved {
  invocations: { index: number; batch: number; attempt: number; time: number; contextIndex: number; signal: AbortSignal }[];
  emissions: { time: number; value: BatchResult<unknown> }[];
  end:
    | { kind: 'complete'; time: number }
    | { kind: 'error'; time: number; error: unknown }
    | { kind: 'unsubscribed'; time: number }
    | { kind: 'open' };
  items: unknown[];
  calls: { fn: 'when' | 'delay'; index: number; attempt: number; time: number }[];
  /** Signals already aborted when their factory was called, or a signal reused for a retry. */
  signalViolations: string[];
  openTaskSubscriptions: string[];
  pendingTimersAfterEnd: number;
  received: number;
  log: (RetryTraceEvent | { type: 'end' })[];
  /** With `listen`: the run's events, each with the length of `log` when it came, to order it among them. */
  events: { event: SlowStartEvent; at: number }[];
}

const nextMacrotask = () => new Promise<void>((resolve) => setImmediate(resolve));

/** Runs a scenario on the operator; with `listen`, its `events` option records the run's events too. */
export async function runRetryScenario(s: RetryScenarioSpec, listen = false): Promise<RetryObserved> {
  const scheduler = new VirtualTimeScheduler();
  const harnessActions = new Set<unknown>();
  const observed: RetryObserved = {
    invocations: [],
    emissions: [],
    end: { kind: 'open' },
    items: [],
    calls: [],
    signalViolations: [],
    openTaskSubscriptions: [],
    pendingTimersAfterEnd: 0,
    received: 0,
    log: [],
    events: [],
  };
  const note = (event: RetryTraceEvent | { type: 'end' }) => observed.log.push(event);
  const noteSettled = (index: number, attempt: number, ok: boolean) => note({ type: 'settle', index, attempt, ok, time: scheduler.now() });

  let promiseSettled = false;
  const drainMicrotasks = async () => {
    while (promiseSettled) {
      promiseSettled = false;
      await nextMacrotask();
    }
  };
  const openSubscriptions = new Set<string>();
  const signalsOf = new Map<number, AbortSignal[]>();

  const taskObservable = (index: number, attempt: number, t: Extract<TryKind, { kind: 'observable' | 'observableError' }>) =>
    new Observable<unknown>((subscriber) => {
      const key = `${index}/${attempt}`;
      openSubscriptions.add(key);
      const finish = () => {
        noteSettled(index, attempt, t.kind === 'observable');
        if (t.kind === 'observable') {
          subscriber.next(t.value);
          subscriber.complete();
        } else subscriber.error(t.reason);
      };
      let timer: Subscription | undefined;
      if (t.delay === null) finish();
      else timer = scheduler.schedule(finish, t.delay);
      return () => {
        timer?.unsubscribe();
        openSubscriptions.delete(key);
      };
    });

  const factoryOf =
    (index: number, task: RetryTaskKind): TaskFactory<unknown> =>
    (context) => {
      const attempt = (context as unknown as { attempt: number }).attempt;
      const time = scheduler.now();
      const signal = context.signal;
      observed.invocations.push({ index, batch: context.batch, attempt, time, contextIndex: context.index, signal });
      note({ type: 'invoke', index, batch: context.batch, attempt, time });
      if (signal.aborted) observed.signalViolations.push(`task ${index} attempt ${attempt} got an aborted signal`);
      const earlier = signalsOf.get(index) ?? [];
      if (earlier.includes(signal)) observed.signalViolations.push(`task ${index} attempt ${attempt} got the signal of an earlier try`);
      signalsOf.set(index, [...earlier, signal]);
      const t = task.tries[Math.min(attempt, task.tries.length) - 1] as TryKind | undefined;
      if (!t) throw new Error(`harness: task ${index} has no try ${attempt}`);
      switch (t.kind) {
        case 'observable':
        case 'observableError':
          return taskObservable(index, attempt, t);
        case 'promise': {
          const settle = (resolve: (v: unknown) => void, reject: (r: unknown) => void) => {
            promiseSettled = true;
            if (t.ok) resolve(t.value);
            else reject(t.reason);
          };
          const promise =
            t.delay === null
              ? new Promise(settle)
              : new Promise((resolve, reject) => {
                  harnessActions.add(scheduler.schedule(() => settle(resolve, reject), t.delay!));
                });
          promise.then(
            () => noteSettled(index, attempt, true),
            () => noteSettled(index, attempt, false),
          );
          return promise;
        }
        case 'throw':
          noteSettled(index, attempt, false);
          throw t.reason;
      }
    };
  observed.items = s.tasks.map((t, i) => factoryOf(i, t));
  const factories = observed.items as TaskFactory<unknown>[];

  const options = {
    ...s.options,
    retry: retryOption(s.options.retry, s.tasks, observed.calls, () => scheduler.now()),
    scheduler,
    ...(listen ? { events: (event: SlowStartEvent) => observed.events.push({ event, at: observed.log.length }) } : {}),
  } as unknown as SlowStartOptions;
  let subject: Subject<TaskFactory<unknown>> | undefined;
  let output: Observable<BatchResult<unknown>>;
  if (s.api === 'slowStart') {
    if (s.source.kind !== 'array') throw new Error('slowStart scenarios use arrays');
    output = slowStart(factories, options);
  } else {
    const source: Observable<TaskFactory<unknown>> = s.source.kind === 'array' ? from(factories) : (subject = new Subject());
    output = source
      .pipe(
        tap({
          next: () => observed.received++,
          complete: () => note({ type: 'sourceComplete', time: scheduler.now() }),
          error: () => note({ type: 'sourceError', time: scheduler.now() }),
        }),
      )
      .pipe(slowStartBatch(options));
  }
  if (s.unsubscribe.kind === 'inNext') output = output.pipe(take(s.unsubscribe.emission + 1));

  let ended = false;
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
      ended = true;
    },
    complete: () => {
      observed.end =
        s.unsubscribe.kind === 'inNext' && observed.emissions.length === s.unsubscribe.emission + 1
          ? { kind: 'unsubscribed', time: scheduler.now() }
          : { kind: 'complete', time: scheduler.now() };
      if (observed.end.kind === 'complete') note({ type: 'end' });
      ended = true;
    },
  });

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
      ended = true;
    }, s.unsubscribe.time);
  }

  const pendingTimers = () => scheduler.actions.filter((a) => !harnessActions.has(a)).length;
  await drainMicrotasks();
  let steps = 0;
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition
  while (!ended && scheduler.actions.length > 0) {
    if (++steps > 20_000) throw new Error('harness: more than 20,000 scheduler actions (a timer loop?)');
    const action = scheduler.actions.shift()!;
    scheduler.frame = action.delay;
    const error = action.execute(action.state, action.delay);
    if (error) throw error;
    await drainMicrotasks();
  }
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition
  if (ended) observed.pendingTimersAfterEnd = pendingTimers();
  else {
    subscription.unsubscribe();
    await drainMicrotasks();
    observed.pendingTimersAfterEnd = pendingTimers();
  }
  observed.openTaskSubscriptions = [...openSubscriptions].sort();
  return observed;
}

/** The log of an operator's run, for the rules of §10 (retry-invariants.ts). */
export function retryTraceOfObserved(s: RetryScenarioSpec, observed: RetryObserved): RetryTrace {
  const known = s.api === 'operator' ? observed.received : s.tasks.length;
  const end = traceEndOf(observed);
  return { options: s.options, tasks: s.tasks.map(toRetryTaskPlan), log: observed.log, end, known, showsSourceEnd: s.api === 'operator' };
}
