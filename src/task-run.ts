import type { Cancellable, TaskObserver } from './host.js';
import type { ResultGroup } from './result-book.js';
import { createContext, type ContextSource } from './task-context.js';
import type { TaskKey } from './events.js';
import type { TaskContext } from './types.js';

/**
 * One task: its place in the results, its context, its subscription and the observer of its
 * notifications. Declared once for the module, not once per run: a class made inside `createRunner`
 * would give every subscription's tasks a shape of their own, and the code they all pass through
 * would slow down after a few subscriptions.
 */
export class TaskRun<T> implements TaskObserver, ContextSource {
  /** The last value the task emitted. */
  private last: unknown;
  /** Set once the task has completed or errored. */
  settled = false;
  /** The task's subscription; undefined until `subscribe` has returned. */
  subscription: Cancellable | undefined;
  /** The tasks started before and after it that are still running: the task set's list. */
  before: TaskRun<T> | undefined;
  after: TaskRun<T> | undefined;
  /** Made on first read of `signal`. */
  private controller: AbortController | undefined;
  /** Set once the task is torn down, so a signal read later is born aborted. */
  private tornDown = false;
  /** When the try started, on the scheduler's clock; read only when the run reports its events. */
  startedAt = 0;
  /** What the factory is given: an ordinary object with this task's `index`, `batch`, `attempt` and `signal`. */
  readonly context: TaskContext;

  constructor(
    /** The result that reports the task, and the task's position in it. */
    readonly group: ResultGroup<T>,
    readonly position: number,
    /** What the source delivered: normally a task factory, checked only when invoked; let go once settled. */
    public factory: unknown,
    /** Which try this is, from 1. */
    readonly attempt: number,
    /** How many times the pace had dropped when the task started, as the pacing handed it out. */
    readonly drops: number,
    /** The try's place among the run's tries in the order they started, from 1. */
    readonly order: number,
    /** The task's key, the same across runs: for its context. */
    key: TaskKey,
    /** Whether a checkpoint the run resumes had the task in doubt: an earlier try may have taken effect. */
    inDoubt: boolean,
    /** The runner's `settle`. */
    private readonly onSettle: (run: TaskRun<T>, fulfilled: boolean, outcome: unknown) => void,
  ) {
    this.context = createContext(this, key, inDoubt);
  }

  /** The task's position in the source. */
  get index(): number {
    return this.group.startIndex + this.position;
  }

  /** The index of the result that reports the task. */
  get batch(): number {
    return this.group.index;
  }

  get signal(): AbortSignal {
    if (this.controller === undefined) {
      this.controller = new AbortController();
      if (this.tornDown) this.controller.abort();
    }
    return this.controller.signal;
  }

  /** Aborts the task's signal, now or, if it is read later, at birth. */
  abort(): void {
    this.tornDown = true;
    this.controller?.abort();
  }

  next(value: unknown): void {
    this.last = value;
  }

  error(reason: unknown): void {
    this.onSettle(this, false, reason);
  }

  complete(): void {
    const value = this.last;
    this.last = undefined;
    this.onSettle(this, true, value);
  }

  /** Closes the task's subscription and aborts its signal; a teardown that throws still aborts it. */
  tearDown(reportUnhandled: (error: unknown) => void): void {
    try {
      this.subscription?.unsubscribe();
    } catch (error) {
      reportUnhandled(error);
    }
    this.abort();
  }
}
