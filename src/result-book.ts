// The results of a run, in source order (§4, §5, §9): which tasks each result holds, how they ended,
// and, when the run fails, the outcome of every task that no result reported.
import { SlowStartBatchError } from './slow-start-batch-error.js';
import type { BatchResult, TaskFactory, TaskOutcome } from './types.js';

/** A task that failed as an item, by its position in its result. */
interface ItemFailure {
  readonly position: number;
  readonly reason: unknown;
  readonly factory: unknown;
}

/** What a result with no failed item lists: one frozen array for all of them. */
const noItemFailures: readonly { readonly index: number; readonly reason: unknown }[] = Object.freeze([]);

/** One result in the making: a run of consecutive tasks that share a `context.batch`. */
export interface ResultGroup<T> {
  readonly index: number;
  readonly startIndex: number;
  /** How many tasks the result holds: unknown (Infinity) until it is full or no more can come. */
  size: number;
  /** How many tasks have joined so far, and how many of those have settled. */
  joined: number;
  settled: number;
  /** The value of each fulfilled task, by position in the result. */
  readonly values: (T | undefined)[];
  /** Rejected and abandoned tasks in the order they settled, with their factories, to run them again. */
  readonly failures: { readonly position: number; readonly reason: unknown; readonly factory: unknown; readonly abandoned: boolean }[];
  /** The tasks that failed as items: the result is still emitted, and lists them. */
  readonly items: ItemFailure[];
}

/** How a failed run ends: what its `SlowStartBatchError` reports, apart from what never started. */
export interface RunFailure<T> {
  readonly batch: number;
  readonly startIndex: number;
  readonly size: number;
  readonly successes: number;
  readonly results: TaskOutcome<T>[];
  readonly cause: unknown;
  /** The factories of the rejected and abandoned tasks, in source order. */
  readonly rejected: unknown[];
}

/**
 * Storage for a result's values, reserved at once: tasks settling out of order fill it, and `closeLast`
 * sets the length the result reports.
 */
function reserveValues<T>(room: number): (T | undefined)[] {
  return new Array<T | undefined>(room);
}

/** Keeps the results not yet emitted, oldest first. One book serves one subscription. */
export class ResultBook<T> {
  /** Results not emitted yet; the first is the next to emit. */
  private readonly pending: ResultGroup<T>[] = [];
  /** The result the last task joined, until it is emitted: then no task joins it any more. */
  private last: ResultGroup<T> | undefined;
  /** How many results have begun: the index of the next one. */
  private begun = 0;
  /** How many tasks have joined a result: the source index of the next task. */
  private joined = 0;
  /** How many tasks have succeeded in all. */
  private successes = 0;
  /** The failed items of the results emitted, in source order: to run again once the data is mended. */
  private readonly failedItems: { readonly index: number; readonly factory: unknown }[] = [];
  /** The first failure in time, and the result that holds it. */
  private firstFailure: { readonly batch: number; readonly reason: unknown } | undefined;

  /** Whether a task has failed or been abandoned. */
  get failed(): boolean {
    return this.firstFailure !== undefined;
  }

  /** The source index of the next task to join a result: how many have joined. */
  get nextIndex(): number {
    return this.joined;
  }

  /**
   * Adds the next task in source order to the last result, or to a new one when `begins` (the first
   * task always begins one), and returns that result. `room` is how many tasks the result may hold at
   * most, to keep their values.
   */
  join(begins: boolean, room: number): ResultGroup<T> {
    if (begins) {
      this.last = {
        index: this.begun++,
        startIndex: this.joined,
        size: Infinity,
        joined: 0,
        settled: 0,
        values: reserveValues<T>(room),
        failures: [],
        items: [],
      };
      this.pending.push(this.last);
    }
    const group = this.last as ResultGroup<T>;
    group.joined++;
    this.joined++;
    return group;
  }

  /** No more tasks will join the last result: it holds what it has. */
  closeLast(): void {
    const group = this.last;
    if (group === undefined) return;
    group.size = group.joined;
    group.values.length = group.joined;
  }

  fulfil(group: ResultGroup<T>, position: number, value: T | undefined): void {
    group.values[position] = value;
    group.settled++;
    this.successes++;
  }

  /**
   * A task that failed for good, or was `abandoned` while it waited for a retry; its factory is kept,
   * to run it again.
   */
  reject(group: ResultGroup<T>, position: number, reason: unknown, factory: unknown, abandoned = false): void {
    group.failures.push({ position, reason, factory, abandoned });
    group.settled++;
    this.firstFailure ??= { batch: group.index, reason };
  }

  /** A task failed as an item: its result lists it, and is emitted all the same. */
  failItem(group: ResultGroup<T>, position: number, reason: unknown, factory: unknown): void {
    group.items.push({ position, reason, factory });
    // Written, not left a hole: the result's `values` has a slot for every task, as its `map` sees them.
    group.values[position] = undefined;
    group.settled++;
  }

  /** The next result, once all its tasks and all earlier results are done and it has no failure. */
  takeReady(): BatchResult<T> | undefined {
    const group = this.pending[0] as ResultGroup<T> | undefined;
    if (group === undefined || group.settled < group.size || group.failures.length > 0) return undefined;
    this.pending.shift();
    // An emitted result is closed: no task will join it, and its values are the subscriber's alone.
    if (group === this.last) this.last = undefined;
    const { index, startIndex, size, values, items } = group;
    let itemFailures = noItemFailures;
    if (items.length > 0) {
      items.sort((a, b) => a.position - b.position);
      this.failedItems.push(...items.map(({ position, factory }) => ({ index: startIndex + position, factory })));
      itemFailures = items.map(({ position, reason }) => ({ index: startIndex + position, reason }));
    }
    // Every task reported so far has succeeded but the failed items: the successes up to here.
    return { batch: index, startIndex, size, values, successes: startIndex + size - this.failedItems.length, itemFailures };
  }

  /**
   * The error of a failed run, once its tasks have settled: `remaining` are the factories never
   * invoked, and `sourceError` the source's error, if it errored.
   */
  error(remaining: unknown[], sourceError: { error: unknown } | undefined): SlowStartBatchError<T> {
    const failure = this.failure();
    const unfinished = [...failure.rejected, ...remaining] as TaskFactory<T>[];
    return new SlowStartBatchError<T>({ ...failure, remaining: remaining as TaskFactory<T>[], unfinished, sourceError });
  }

  /** What the error of a failed run reports: every task that no emitted result reported, in source order. */
  failure(): RunFailure<T> {
    const { batch, reason } = this.firstFailure as { batch: number; reason: unknown };
    const results: TaskOutcome<T>[] = [];
    // The failed items of the results emitted come first: they are to be run again too.
    const rejected: unknown[] = this.failedItems.map((item) => item.factory);
    for (const group of this.pending) {
      const reasons = new Map<number, { readonly reason: unknown; readonly factory: unknown; readonly abandoned?: boolean }>();
      for (const failure of [...group.failures, ...group.items]) reasons.set(failure.position, failure);
      for (let position = 0; position < group.joined; position++) {
        const index = group.startIndex + position;
        const failure = reasons.get(position);
        if (failure === undefined) {
          results.push({ index, status: 'fulfilled', value: group.values[position] });
        } else {
          results.push({ index, status: failure.abandoned === true ? 'abandoned' : 'rejected', reason: failure.reason });
          rejected.push(failure.factory);
        }
      }
    }
    const startIndex = this.pending[0].startIndex;
    return { batch, startIndex, size: results.length, successes: this.successes, results, cause: reason, rejected };
  }

  /** The tasks that failed (items included) or were abandoned, with their source indexes and factories, in no order. */
  unsucceeded(): { index: number; factory: unknown }[] {
    const pending = this.pending.flatMap((group) =>
      [...group.failures, ...group.items].map(({ position, factory }) => ({ index: group.startIndex + position, factory })),
    );
    return [...this.failedItems, ...pending];
  }
}
