import type { Cancellable, TaskObserver } from './host.js';
import type { ResultGroup } from './result-book.js';
import { contextView, LazyTaskContext } from './task-context.js';
import type { TaskContext } from './types.js';

/**
 * One task: its place in the results, its context, its subscription and the observer of its
 * notifications. Declared once for the module, not once per run: a class made inside `createRunner`
 * would give every subscription's tasks a shape of their own, and the code they all pass through
 * would slow down after a few subscriptions.
 */
export class TaskRun<T> implements TaskObserver {
  /** The last value the task emitted. */
  private last: unknown;
  /** Set once the task has completed or errored. */
  settled = false;
  /** The task's subscription; undefined until `subscribe` has returned. */
  subscription: Cancellable | undefined;
  /** The context's state, and what the factory is given: a read-only view of it. */
  readonly lazyContext: LazyTaskContext;
  readonly context: TaskContext;

  constructor(
    /** The result that reports the task, and the task's position in it. */
    readonly group: ResultGroup<T>,
    readonly position: number,
    /** What the source delivered: normally a task factory, checked only when invoked. */
    readonly factory: unknown,
    index: number,
    /** The runner's `settle`. */
    private readonly onSettle: (run: TaskRun<T>, fulfilled: boolean, outcome: unknown) => void,
  ) {
    this.lazyContext = new LazyTaskContext(index, group.index);
    this.context = new Proxy(this.lazyContext, contextView);
  }

  next(value: unknown): void {
    this.last = value;
  }

  error(reason: unknown): void {
    this.onSettle(this, false, reason);
  }

  complete(): void {
    this.onSettle(this, true, this.last);
  }

  /** Closes the task's subscription and aborts its signal; a teardown that throws still aborts it. */
  tearDown(reportUnhandled: (error: unknown) => void): void {
    try {
      this.subscription?.unsubscribe();
    } catch (error) {
      reportUnhandled(error);
    }
    this.lazyContext.abort();
  }
}
