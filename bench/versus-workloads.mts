/**
 * The workloads of bench:versus (versus.mts), which imports this module once per build, as
 * `versus-workloads.mjs?build=NAME`, and once more for the floor: every function that a build's operator
 * calls (the factories, the tasks, the subscriber) is then that build's own, as are the modules below,
 * imported with the same query. Shared, they would give V8 one set of type feedback for the objects of
 * both builds, and what one build does could change the code that runs the other's tasks.
 */
import type { Observable } from 'rxjs';
import type { Build } from './build.mjs';
import type * as GatedTasksModule from './gated-tasks.mjs';
import type * as IdleRunModule from './idle-run.mjs';

const instance = new URL(import.meta.url).search;
const own = async <T,>(file: string): Promise<T> => (await import(new URL(`./${file}${instance}`, import.meta.url).href)) as T;
const { gatedTasks } = await own<typeof GatedTasksModule>('gated-tasks.mjs');
const { BATCHES, runOnce } = await own<typeof IdleRunModule>('idle-run.mjs');

/** A complete run of a workload by one build, or why that build cannot run it (an option it lacks). */
export type Run = (() => Promise<unknown>) | { unsupported: string };

function expectCount(actual: number, expected: number, what: string): void {
  if (actual !== expected) throw new Error(`Sanity check failed: ${what} was ${actual}, expected ${expected}`);
}

/** Subscribes and resolves with the tasks the results report; rejects on the run's error. */
function tasksReported(source: Observable<{ size: number }>): Promise<number> {
  return new Promise((resolve, reject) => {
    let tasks = 0;
    source.subscribe({
      next: (result) => (tasks += result.size),
      error: reject,
      complete: () => resolve(tasks),
    });
  });
}

const counted = (tasks: number, what: string, source: () => Observable<{ size: number }>) => async () => {
  expectCount(await tasksReported(source()), tasks, what);
};

/** Undefined when `attempt` runs; otherwise what it threw, e.g. the TypeError of an option an old build lacks. */
function refusal(attempt: () => unknown): string | undefined {
  try {
    attempt();
    return undefined;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}

const syncFactories = ({ rxjs }: Build, tasks: number): Array<() => Observable<number>> =>
  Array.from({ length: tasks }, (_, i) => () => rxjs.of(i));

export function syncBatch(build: Build, tasks: number): Run {
  const factories = syncFactories(build, tasks);
  return counted(tasks, 'tasks reported by slowStartBatch()', () => build.rxjs.from(factories).pipe(build.api.slowStartBatch()));
}

export function syncWindow(build: Build, tasks: number): Run {
  const unsupported = refusal(() => build.api.slowStartBatch({ pacing: 'window' }));
  if (unsupported !== undefined) return { unsupported };
  const factories = syncFactories(build, tasks);
  return counted(tasks, 'tasks reported by slowStartBatch(window)', () =>
    build.rxjs.from(factories).pipe(build.api.slowStartBatch({ pacing: 'window' })),
  );
}

export function slowStartSync(build: Build, tasks: number): Run {
  const factories = syncFactories(build, tasks);
  return counted(tasks, 'tasks reported by slowStart()', () => build.api.slowStart(factories));
}

export function slowStartSyncWindow(build: Build, tasks: number): Run {
  const unsupported = refusal(() => build.api.slowStart([], { pacing: 'window' }));
  if (unsupported !== undefined) return { unsupported };
  const factories = syncFactories(build, tasks);
  return counted(tasks, 'tasks reported by slowStart(window)', () => build.api.slowStart(factories, { pacing: 'window' }));
}

const promiseFactories = (tasks: number): Array<() => Promise<number>> => Array.from({ length: tasks }, (_, i) => async () => i);

export function promise(build: Build, tasks: number): Run {
  const factories = promiseFactories(tasks);
  return counted(tasks, 'tasks reported by slowStart()', () => build.api.slowStart(factories));
}

export function promiseFloor(tasks: number): () => Promise<unknown> {
  const factories = promiseFactories(tasks);
  return async () => {
    expectCount((await Promise.all(factories.map((factory) => factory()))).length, tasks, 'values of Promise.all');
  };
}

/** One batch of `tasks` promise tasks, all pending until the last is invoked. */
export function promiseWide(build: Build, tasks: number): Run {
  const gated = gatedTasks(tasks);
  const run = counted(tasks, 'tasks reported by slowStart()', () => build.api.slowStart(gated.factories, { initialBatchSize: tasks }));
  return async () => {
    gated.reset();
    await run();
  };
}

export function promiseWideFloor(tasks: number): () => Promise<unknown> {
  const gated = gatedTasks(tasks);
  return async () => {
    gated.reset();
    expectCount((await Promise.all(gated.factories.map((factory) => factory()))).length, tasks, 'values of Promise.all');
  };
}

/** The idle scenario's run (idle-run.mts) through the build's slowStart, with its gaps between batches. */
export function gap(build: Build): () => Promise<IdleRunModule.Round> {
  const { slowStart } = build.api;
  return () =>
    runOnce(async (tasks) => {
      expectCount(await valuesEmitted(slowStart(tasks)), BATCHES, 'batches emitted');
    });
}

/** Resolves with the number of values emitted. */
function valuesEmitted(source: Observable<unknown>): Promise<number> {
  return new Promise((resolve, reject) => {
    let values = 0;
    source.subscribe({ next: () => values++, error: reject, complete: () => resolve(values) });
  });
}
