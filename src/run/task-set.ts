// The tasks of a run: invoked in order, counted while in flight, and torn down together (§4, §7).
import type { RunnerHost } from '../host.js';
import { expected } from '../expected.js';
import type { TaskRun } from '../task-run.js';
import type { TaskFactory } from '../types.js';

export class TaskSet<T> {
  /** Tasks invoked and not settled. */
  active = 0;
  /**
   * The first and last task still running after its own `subscribe` returned, linked in the order
   * they started: what a teardown closes. A task leaves the list when it settles, so that nothing keeps
   * finished work; synchronous tasks never join it.
   */
  private first: TaskRun<T> | undefined;
  private last: TaskRun<T> | undefined;
  /** Set once torn down: from then on a factory's task is not subscribed, and no task counts. */
  private tornDown = false;

  constructor(private readonly host: RunnerHost<T>) {}

  /**
   * Calls a task's factory and subscribes to what it returns. A task that fails as it starts reports
   * it at once, through its own `error`.
   */
  invoke(run: TaskRun<T>): void {
    const { factory } = run;
    this.active++;
    try {
      if (typeof factory !== 'function') {
        throw new TypeError(expected(`tasks[${run.index}]`, 'a function returning an ObservableInput', factory));
      }
      const input = (factory as TaskFactory<T>)(run.context);
      // The factory may have caused an unsubscription; then its task must not start.
      if (this.tornDown) {
        run.abort();
        return;
      }
      const subscription = this.host.subscribeTask(input, run);
      if (run.settled) return;
      run.subscription = subscription;
      // The subscriber may have left while the task was subscribing: the teardown could not see it yet.
      if (this.isTornDown()) {
        run.tearDown(this.host.reportUnhandled);
        return;
      }
      this.link(run);
    } catch (reason) {
      run.error(reason);
    }
  }

  /**
   * Counts a task as settled, unless it had already settled or the set was torn down: says whether it
   * counts. A task that notifies twice, or after the subscriber left, is not counted again.
   */
  settle(run: TaskRun<T>): boolean {
    if (run.settled || this.tornDown) return false;
    run.settled = true;
    run.subscription = undefined;
    this.active--;
    this.unlink(run);
    return true;
  }

  /** Tears every running task down, even if a teardown before it throws. */
  tearDown(): void {
    this.tornDown = true;
    for (let run = this.first; run !== undefined; run = run.after) run.tearDown(this.host.reportUnhandled);
  }

  /** Whether the set has been torn down since a task began to subscribe, which can call back into the run. */
  private isTornDown(): boolean {
    return this.tornDown;
  }

  private link(run: TaskRun<T>): void {
    run.before = this.last;
    if (this.last === undefined) this.first = run;
    else this.last.after = run;
    this.last = run;
  }

  private unlink(run: TaskRun<T>): void {
    const { before, after } = run;
    if (before === undefined) {
      // Not linked (a task that settled while subscribing) unless it is the first.
      if (this.first !== run) return;
      this.first = after;
    } else {
      before.after = after;
    }
    if (after === undefined) this.last = before;
    else after.before = before;
    run.before = run.after = undefined;
  }
}
