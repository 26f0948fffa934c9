// The runner against a copy of the runner it replaces (base-src/, from 9bd12c4), on generated
// scenarios over a plain host: the whole log of each must be the same, every emit, error and
// complete, clock read, timer armed and cancelled, feed request, stop and drain, factory call,
// subscription and teardown, and error reported as unhandled.
import fc from 'fast-check';
import type { Cancellable, FactoryFeed, FactorySink, RunnerHost, TaskObserver } from '../../src/host';
import { resolveOptions } from '../../src/options';
import { createRunner as createNewRunner } from '../../src/runner';
import { createRunner as createOldRunner } from './base-src/runner';

type Log = unknown[];

/** What a generated factory does when it is called. */
type Behaviour = 'manual' | 'sync-ok' | 'sync-error' | 'throws' | 'not-a-function' | 'stops';

type Action =
  | { kind: 'push'; behaviour: Behaviour }
  | { kind: 'end' }
  | { kind: 'fail' }
  | { kind: 'settle'; pick: number; ok: boolean; value: number }
  | { kind: 'advance'; by: number }
  | { kind: 'stop' };

interface Scenario {
  options: Record<string, unknown>;
  pushes: boolean;
  /** What `retry.when` answers, by the task's index and attempt. */
  verdicts: (boolean | number)[];
  actions: Action[];
}

/** A task the scenario settles by hand. */
interface Manual {
  id: number;
  observer: TaskObserver;
  settled: boolean;
}

function describe_(value: unknown): unknown {
  if (value instanceof Error) {
    const fields = value as unknown as Record<string, unknown>;
    if (value.name === 'SlowStartBatchError') {
      return {
        message: value.message,
        batch: fields.batch,
        startIndex: fields.startIndex,
        size: fields.size,
        successes: fields.successes,
        results: describe_(fields.results),
        cause: describe_(fields.cause),
        remaining: (fields.remaining as { id?: number }[]).map((factory) => factory.id),
        unfinished: (fields.unfinished as { id?: number }[]).map((factory) => factory.id),
        resumeFrom: fields.resumeFrom,
        sourceError: 'sourceError' in value ? describe_(fields.sourceError) : 'none',
      };
    }
    return `${value.name}: ${value.message}`;
  }
  if (Array.isArray(value)) return value.map(describe_);
  if (typeof value === 'object' && value !== null) {
    return Object.fromEntries(Object.entries(value).map(([key, entry]) => [key, describe_(entry)]));
  }
  return value;
}

type CreateRunner = (
  host: RunnerHost<unknown>,
  createFeed: (sink: FactorySink) => FactoryFeed,
  options: ReturnType<typeof resolveOptions>,
) => { start(): void; stop(): void };

/** Runs one scenario on one runner and returns its log. */
function play(createRunner: CreateRunner, scenario: Scenario): Log {
  const log: Log = [];
  let now = 0;
  let nextTimer = 0;
  const timers: { id: number; at: number; action: () => void; cancelled: boolean }[] = [];
  const open: Manual[] = [];
  let nextTask = 0;
  let nextFactory = 0;
  let sink: FactorySink | undefined;
  const host: RunnerHost<unknown> = {
    subscribeTask(input: unknown, observer: TaskObserver): Cancellable {
      if (typeof input !== 'object' || input === null || !('manual' in input)) throw new TypeError('not a task');
      const behaviour = (input as { manual: Behaviour }).manual;
      const id = nextTask++;
      log.push(['subscribe', id]);
      if (behaviour === 'sync-ok') {
        observer.next(id);
        observer.complete();
      } else if (behaviour === 'sync-error') {
        observer.error(new Error(`task ${id} failed`));
      } else {
        open.push({ id, observer, settled: false });
      }
      return { unsubscribe: () => log.push(['unsubscribe', id]) };
    },
    now: () => {
      log.push(['now', now]);
      return now;
    },
    schedule(action, delay): Cancellable {
      const timer = { id: nextTimer++, at: now + delay, action, cancelled: false };
      log.push(['schedule', timer.id, delay]);
      timers.push(timer);
      return {
        unsubscribe: () => {
          if (!timer.cancelled) log.push(['cancel', timer.id]);
          timer.cancelled = true;
        },
      };
    },
    emit: (result) => log.push(['emit', describe_(result)]),
    error: (error) => log.push(['error', describe_(error)]),
    complete: () => log.push(['complete']),
    reportUnhandled: (error) => log.push(['unhandled', describe_(error)]),
  };
  const createFeed = (given: FactorySink): FactoryFeed => {
    sink = given;
    return {
      pushes: scenario.pushes ? true : undefined,
      start: () => log.push(['feed start']),
      request: (count) => log.push(['request', count]),
      drain: (done) => {
        log.push(['drain']);
        done([]);
      },
      stop: () => log.push(['feed stop']),
    };
  };
  const verdictOf = (index: number, attempt: number) => scenario.verdicts[(index * 3 + attempt) % scenario.verdicts.length] ?? true;
  const { retry, ...rest } = scenario.options;
  const options = resolveOptions({
    ...rest,
    ...(retry === undefined
      ? {}
      : {
          retry: {
            ...(retry as object),
            when: (_error: unknown, context: { index: number; attempt: number }) => verdictOf(context.index, context.attempt),
          },
        }),
  });
  const runner = createRunner(host, createFeed, options);
  runner.start();
  for (const action of scenario.actions) {
    switch (action.kind) {
      case 'push': {
        const id = nextFactory++;
        const behaviour = action.behaviour;
        const factory =
          behaviour === 'not-a-function'
            ? { id }
            : Object.assign(
                (context: { index: number; batch: number; attempt: number }) => {
                  log.push(['invoke', id, context.index, context.batch, context.attempt]);
                  if (behaviour === 'throws') throw new Error(`factory ${id} threw`);
                  if (behaviour === 'stops') runner.stop();
                  return { manual: behaviour === 'stops' ? 'manual' : behaviour };
                },
                { id },
              );
        sink?.push(factory);
        break;
      }
      case 'end':
        sink?.end();
        break;
      case 'fail':
        sink?.fail(new Error('source failed'));
        break;
      case 'settle': {
        const candidates = open.filter((task) => !task.settled);
        const task = candidates.at(action.pick % Math.max(1, candidates.length));
        if (task === undefined) break;
        task.settled = true;
        log.push(['settle', task.id, action.ok]);
        if (action.ok) {
          task.observer.next(action.value);
          task.observer.complete();
        } else {
          task.observer.error(new Error(`task ${task.id} failed`));
        }
        break;
      }
      case 'advance': {
        now += action.by;
        for (const timer of timers.filter((entry) => !entry.cancelled && entry.at <= now).sort((a, b) => a.at - b.at || a.id - b.id)) {
          if (timer.cancelled) continue;
          timer.cancelled = true;
          log.push(['fire', timer.id]);
          timer.action();
        }
        break;
      }
      case 'stop':
        runner.stop();
        break;
    }
  }
  return log;
}

const behaviour = fc.oneof(
  { weight: 12, arbitrary: fc.constant<Behaviour>('manual') },
  { weight: 4, arbitrary: fc.constant<Behaviour>('sync-ok') },
  { weight: 1, arbitrary: fc.constant<Behaviour>('sync-error') },
  { weight: 1, arbitrary: fc.constant<Behaviour>('throws') },
  { weight: 1, arbitrary: fc.constant<Behaviour>('not-a-function') },
  { weight: 1, arbitrary: fc.constant<Behaviour>('stops') },
);

const action: fc.Arbitrary<Action> = fc.oneof(
  { weight: 10, arbitrary: behaviour.map((kind) => ({ kind: 'push' as const, behaviour: kind })) },
  { weight: 1, arbitrary: fc.constant({ kind: 'end' as const }) },
  { weight: 1, arbitrary: fc.integer({ min: 0, max: 3 }).map((draw) => ({ kind: draw === 0 ? ('fail' as const) : ('end' as const) })) },
  {
    weight: 12,
    arbitrary: fc.record({
      kind: fc.constant('settle' as const),
      pick: fc.nat(20),
      ok: fc.integer({ min: 0, max: 9 }).map((draw) => draw > 2),
      value: fc.nat(100),
    }),
  },
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('advance' as const), by: fc.integer({ min: 0, max: 30 }) }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'stop' as const }) },
);

const options = fc
  .record({
    pacing: fc.constantFrom<'batch' | 'window'>('batch', 'window'),
    initialBatchSize: fc.integer({ min: 1, max: 4 }),
    growthFactor: fc.constantFrom(1, 1.5, 2, 3),
    maxBatchSize: fc.constantFrom(4, 8, Infinity),
    concurrency: fc.constantFrom(1, 2, 3, Infinity),
    flushAfter: fc.option(fc.integer({ min: 0, max: 20 }), { nil: undefined }),
    retry: fc.option(
      fc.record({
        maxAttempts: fc.integer({ min: 1, max: 4 }),
        delay: fc.constantFrom(0, 0, 1, 5, 20),
        learnRate: fc.boolean(),
      }),
      { nil: undefined, freq: 10 },
    ),
  })
  .map(({ pacing, initialBatchSize, maxBatchSize, flushAfter, ...rest }) => ({
    ...rest,
    pacing,
    initialBatchSize,
    maxBatchSize: Math.max(initialBatchSize, maxBatchSize),
    ...(pacing === 'batch' && flushAfter !== undefined ? { flushAfter } : {}),
  }));

const scenario: fc.Arbitrary<Scenario> = fc.record({
  options,
  pushes: fc.boolean(),
  verdicts: fc.array(fc.oneof(fc.constant(true), fc.constant(false), fc.integer({ min: 0, max: 20 })), { minLength: 1, maxLength: 8 }),
  actions: fc.array(action, { maxLength: 80 }),
});

const numRuns = Number(process.env.FC_NUM_RUNS ?? 20000);

/** What a log shows, to check that the scenarios reach every part of the runner. */
const reached = {
  emit: (log: Log) => log.some((entry) => (entry as unknown[])[0] === 'emit'),
  complete: (log: Log) => log.some((entry) => (entry as unknown[])[0] === 'complete'),
  'a failed run': (log: Log) => log.some((entry) => (entry as unknown[])[0] === 'error' && typeof (entry as unknown[])[1] === 'object'),
  "the source's error": (log: Log) =>
    log.some((entry) => (entry as unknown[])[0] === 'error' && (entry as unknown[])[1] === 'Error: source failed'),
  'a timer that fired': (log: Log) => log.some((entry) => (entry as unknown[])[0] === 'fire'),
  'a timer cancelled': (log: Log) => log.some((entry) => (entry as unknown[])[0] === 'cancel'),
  'a retried task': (log: Log) => log.some((entry) => (entry as unknown[])[0] === 'invoke' && ((entry as unknown[])[4] as number) > 1),
  'a teardown': (log: Log) => log.some((entry) => (entry as unknown[])[0] === 'unsubscribe'),
  'a request': (log: Log) => log.some((entry) => (entry as unknown[])[0] === 'request'),
};

describe('the runner against the runner it replaces', () => {
  it(`logs the same on ${numRuns} generated scenarios`, () => {
    const counts = Object.fromEntries(Object.keys(reached).map((name) => [name, 0]));
    fc.assert(
      fc.property(scenario, (generated) => {
        const log = play(createNewRunner, generated);
        expect(log).toEqual(play(createOldRunner, generated));
        for (const [name, test] of Object.entries(reached)) if (test(log)) counts[name]++;
      }),
      { numRuns },
    );
    console.log(`scenarios reaching each part of the runner, of ${numRuns}:`, counts);
    for (const count of Object.values(counts)) expect(count).toBeGreaterThan(numRuns / 100);
  }, 600_000);
});
