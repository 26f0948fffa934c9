/**
 * §15 on generated scenarios: a job whose tasks succeed, are throttled, fail for a moment or fail as
 * items, in both pacings, through `slowStart()` and the operator. Its process is killed at a generated
 * instant (the run is cut off just after one of its events), and its last stored checkpoint is a
 * generated one of those made before the kill, as a store that writes only now and then would have it.
 * A second run resumes that checkpoint, read back from JSON, and runs to the end. The rules:
 * - nothing is lost: every task succeeded in one run or the other, or failed for good as an item;
 * - the second run invokes no task the checkpoint has as succeeded or failed;
 * - a task succeeds in both runs only if the checkpoint had it in doubt, or it started after the
 *   checkpoint was made: exactly once overall, in-doubt tasks counted;
 * - the second run's contexts say `inDoubt` for exactly the checkpoint's tasks in doubt, with their keys;
 * - its last checkpoint has every task done, none in doubt, a sequence that carried on, and `completed`.
 * The same again on the reference model's scenarios whose tasks all succeed.
 */
import fc from 'fast-check';
import { from, map, mergeMap, of, Subject, throwError, timer, VirtualTimeScheduler } from 'rxjs';
import {
  slowStart,
  slowStartBatch,
  slowStartCheckpoint,
  type SlowStartCheckpoint,
  type SlowStartEvent,
  type SlowStartOptions,
  type TaskFactory,
} from '../../src/index';
import { KeySet } from '../../src/checkpoint/key-set';
import { options as modelOptions, successfulTask, tasksOf, windowOptions } from '../model/arbitraries.js';
import type { ScenarioOptions, TaskKind } from '../model/harness.js';
import { propertyRuns } from '../support/property-runs.js';

const runs = propertyRuns(__filename);
/** Fewer for the model's scenarios: a few thousand tasks, run three times each. */
const MODEL_RUNS = Math.min(runs.numRuns, 100);

type Kind = 'ok' | 'throttle' | 'transient' | 'item';
interface Step {
  readonly kind: Kind;
  /** How long the try takes, in virtual ms; `null` for a synchronous one. */
  readonly ms: number | null;
}
interface Scenario {
  readonly api: 'slowStart' | 'operator';
  readonly options: ScenarioOptions;
  readonly keyed: boolean;
  readonly tasks: Step[][];
  /**
   * Where the kill falls (after that many events, modulo the first run's), and which checkpoint before it
   * was stored: how many before the last (modulo those made), or the last, as a store of every one has it.
   */
  readonly killAt: number;
  readonly storedBack: number;
}

class KindError extends Error {
  constructor(readonly kind: Kind) {
    super(kind);
  }
}

const step: fc.Arbitrary<Step> = fc.record({
  kind: fc.oneof(
    { weight: 6, arbitrary: fc.constant<Kind>('ok') },
    { weight: 1, arbitrary: fc.constant<Kind>('throttle') },
    { weight: 2, arbitrary: fc.constant<Kind>('transient') },
    { weight: 1, arbitrary: fc.constant<Kind>('item') },
  ),
  ms: fc.integer({ min: 0, max: 30 }),
});

const cut = {
  killAt: fc.integer({ min: 0, max: 1_000_000 }),
  storedBack: fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 1_000_000 })),
};

const scenario: fc.Arbitrary<Scenario> = fc.record({
  api: fc.constantFrom('slowStart' as const, 'operator' as const),
  options: fc.record({
    pacing: fc.constantFrom('batch' as const, 'window' as const),
    initialBatchSize: fc.integer({ min: 1, max: 3 }),
    concurrency: fc.oneof(fc.integer({ min: 1, max: 4 }), fc.constant(Infinity)),
  }),
  keyed: fc.boolean(),
  tasks: fc.array(fc.array(step, { minLength: 1, maxLength: 3 }), { minLength: 1, maxLength: 12 }),
  ...cut,
});

/** How long a successful task of the model takes: `null` for one that completes synchronously. */
function msOf(task: TaskKind): number | null {
  switch (task.kind) {
    case 'observable':
      return task.delay;
    case 'promise':
      return task.delay ?? 0;
    default:
      return null;
  }
}

/**
 * The reference model's scenarios (spec/model/arbitraries.ts) whose tasks all succeed: its options in
 * both pacings (growth factors, caps, `flushAfter`, up to a few thousand tasks) and its tasks, each one
 * try that succeeds synchronously or after its delay. A promise task settles by a timer of its delay,
 * or at once: the kill falls between events, which a microtask would not change.
 */
const modelScenario: fc.Arbitrary<Scenario> = fc.record({
  api: fc.constantFrom('slowStart' as const, 'operator' as const),
  options: fc.oneof(modelOptions, windowOptions),
  keyed: fc.boolean(),
  tasks: tasksOf(successfulTask).map((tasks) => tasks.map((task): Step[] => [{ kind: 'ok', ms: msOf(task) }])),
  ...cut,
});

interface Run {
  readonly checkpoints: SlowStartCheckpoint[];
  /** Each try invoked: its key, whether its context said in doubt, and the checkpoints made before it. */
  readonly invoked: { key: string | number; inDoubt: boolean; after: number }[];
  /** The keys that succeeded, with the checkpoints made before their success. */
  readonly succeeded: { key: string | number; after: number }[];
  readonly events: SlowStartEvent[];
  ended: 'completed' | 'errored' | 'open';
}

/** Runs the job, resuming `resume` if given; `killAfter` cuts it off once that many events have come. */
function run(s: Scenario, resume: SlowStartCheckpoint | undefined, killAfter = Infinity): Run {
  const scheduler = new VirtualTimeScheduler();
  const result: Run = { checkpoints: [], invoked: [], succeeded: [], events: [], ended: 'open' };
  const keys = s.keyed ? s.tasks.map((_, index) => `item-${index}`) : undefined;
  const events = new Subject<SlowStartEvent>();
  /** Set by the kill, from the events' listener. */
  const job = { killed: false };
  const factories = s.tasks.map((steps): TaskFactory<number> => (context) => {
    result.invoked.push({ key: context.key, inDoubt: context.inDoubt, after: result.checkpoints.length });
    const { kind, ms } = steps[Math.min(context.attempt, steps.length) - 1];
    const settle = ms === null ? of(0) : timer(ms, scheduler);
    return kind === 'ok' ? settle.pipe(map(() => 1)) : settle.pipe(mergeMap(() => throwError(() => new KindError(kind))));
  });
  events.pipe(slowStartCheckpoint()).subscribe((checkpoint) => {
    if (!job.killed) result.checkpoints.push(checkpoint);
  });
  const options = {
    ...s.options,
    scheduler,
    keys,
    resume,
    events: (event) => {
      if (job.killed) return;
      result.events.push(event);
      if (event.type === 'succeeded') result.succeeded.push({ key: event.key, after: result.checkpoints.length });
      events.next(event);
      if (result.events.length >= killAfter) job.killed = true;
    },
    retry: {
      when: (error) => (error as KindError).kind as Exclude<Kind, 'ok'>,
      maxAttempts: 3,
      delay: 5,
      outOfTries: 'item',
      maxConsecutiveItemFailures: Infinity,
    },
  } as SlowStartOptions<number>;
  const output = s.api === 'slowStart' ? slowStart(factories, options) : from(factories).pipe(slowStartBatch(options));
  const subscription = output.subscribe({ error: () => (result.ended = 'errored'), complete: () => (result.ended = 'completed') });
  // The kill: nothing after it is reported or stored; what was in flight may still have taken effect.
  while (!job.killed && scheduler.actions.length > 0) {
    scheduler.maxFrames = scheduler.actions[0].delay;
    scheduler.flush();
  }
  if (job.killed) subscription.unsubscribe();
  return result;
}

function checkResume(s: Scenario): void {
  const first = run(s, undefined);
  expect(first.ended).toBe('completed');
  const killAfter = 1 + (s.killAt % first.events.length);
  const killed = run(s, undefined, killAfter);
  if (killed.checkpoints.length === 0) return;
  const stored = JSON.parse(
    JSON.stringify(killed.checkpoints[killed.checkpoints.length - 1 - (s.storedBack % killed.checkpoints.length)]),
  ) as SlowStartCheckpoint;
  const storedAfter = stored.sequence;
  const second = run(s, stored);
  expect(second.ended).toBe('completed');

  const all = s.tasks.map((_, index) => (s.keyed ? `item-${index}` : index));
  const done = (checkpoint: SlowStartCheckpoint) => [KeySet.from(checkpoint.succeeded), KeySet.from(checkpoint.failed)];
  const [storedSucceeded, storedFailed] = done(stored);
  const inDoubt = KeySet.from(stored.inDoubt);
  // The second run invokes nothing the checkpoint has done, and says in doubt exactly for its tasks in doubt.
  for (const { key, inDoubt: said } of second.invoked) {
    expect([key, storedSucceeded.has(key) || storedFailed.has(key)]).toEqual([key, false]);
    expect([key, said]).toEqual([key, inDoubt.has(key)]);
  }
  // Nothing lost.
  const end = second.checkpoints.at(-1)!;
  const [endSucceeded, endFailed] = done(end);
  for (const key of all) expect([key, endSucceeded.has(key) || endFailed.has(key)]).toEqual([key, true]);
  expect([end.inDoubt, end.ended, end.sequence > stored.sequence]).toEqual([[], 'completed', true]);
  // Exactly once, in-doubt tasks counted: a task that succeeded before the kill succeeds again only if it
  // was in doubt in the checkpoint or started after it was made.
  const startedAfterStored = new Set(killed.invoked.filter((invoked) => invoked.after >= storedAfter).map((invoked) => invoked.key));
  const againSucceeded = new Set(second.succeeded.map((success) => success.key));
  for (const { key } of killed.succeeded) {
    if (againSucceeded.has(key)) expect([key, inDoubt.has(key) || startedAfterStored.has(key)]).toEqual([key, true]);
  }
}

describe('§15: a job killed at any instant and resumed from a stored checkpoint', () => {
  it(
    `loses nothing and does each task once, in-doubt tasks counted, on ${runs.numRuns} generated scenarios`,
    () => {
      fc.assert(fc.property(scenario, checkResume), runs.params());
    },
    runs.timeout,
  );

  it(
    `the same on ${MODEL_RUNS} of the reference model's scenarios whose tasks succeed (its options in both pacings, up to thousands of tasks)`,
    () => {
      fc.assert(fc.property(modelScenario, checkResume), { ...runs.params(), numRuns: MODEL_RUNS });
    },
    runs.timeout,
  );
});
