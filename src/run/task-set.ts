// The tasks of a run: invoked in order, counted while in flight, and torn down together (§4, §7).
import type { RunnerHost } from '../host.js';
import type { ResultGroup } from '../result-book.js';
import { TaskRun } from '../task-run.js';
import { expected } from '../expected.js';
import type { TaskFactory } from '../types.js';
import type { StartLimiter } from '../start-limiter.js';
import { LimiterQueue, WITHDRAWN } from './limiter-wait.js';
import type { Reporter } from './reporter.js';
import type { TaskKeys } from './task-keys.js';

export class TaskSet<T> {
  /** Tasks invoked and not settled. */
  active = 0;
  /** Tries invoked so far, retries included: each try's `order` is its place in this count, from 1. */
  tries = 0;
  /**
   * The first and last task still running after its own `subscribe` returned, linked in the order
   * they started: what a teardown closes. A task leaves the list when it settles, so that nothing keeps
   * finished work; synchronous tasks never join it.
   */
  private first: TaskRun<T> | undefined;
  private last: TaskRun<T> | undefined;
  /** Set once torn down: from then on a factory's task is not subscribed, and no task counts. */
  private tornDown = false;
  /** The task being invoked, until its factory has returned and it is subscribed: in flight, but not linked yet. */
  private starting: TaskRun<T> | undefined;
  /** Under the `limiter` option: the tries waiting for their start, in the order they started. */
  private readonly limiterQueue: LimiterQueue | undefined;

  /**
   * @param host Subscribes to tasks, and takes what a teardown throws.
   * @param onSettled Told of each task that settles, once, unless the set was torn down first.
   * @param reporter Told of each try that starts, when someone listens.
   * @param keys Each task's key, and whether it is in doubt.
   * @param limiter The `limiter` option: each try waits for a start from it before its factory is called.
   */
  constructor(
    private readonly host: RunnerHost<T>,
    private readonly onSettled: (run: TaskRun<T>, fulfilled: boolean, outcome: unknown) => void,
    private readonly reporter: Reporter<T> | undefined,
    private readonly keys: Pick<TaskKeys, 'keyOf' | 'inDoubt'>,
    limiter?: StartLimiter,
  ) {
    this.limiterQueue = limiter === undefined ? undefined : new LimiterQueue(limiter, host);
  }

  /**
   * Starts a task: the try `attempt` of `factory`, reported at `position` of `group`, started in the
   * pace's `drops`.
   */
  start(group: ResultGroup<T>, position: number, factory: unknown, attempt: number, drops: number): void {
    const index = group.startIndex + position;
    const { keys } = this;
    this.invoke(
      new TaskRun<T>(group, position, factory, attempt, drops, ++this.tries, keys.keyOf(index), keys.inDoubt(index), this.settle),
    );
  }

  /**
   * Starts a try: reports it, then calls its factory, or first waits for the `limiter` to grant a start
   * (the try is in flight and torn down with the rest meanwhile). A task that fails as it starts reports
   * it at once, through its own `error`.
   */
  private invoke(run: TaskRun<T>): void {
    this.active++;
    this.starting = run;
    try {
      // Reported before the factory runs, so that a try is always started before it settles; the
      // listener may unsubscribe, and then the task is not invoked.
      this.reporter?.started(run);
      if (this.isTornDown()) return;
      if (this.limiterQueue === undefined) {
        this.call(run);
        return;
      }
      const wait = this.limiterQueue.wait(
        () => this.waited(run),
        (reason) => run.error(reason),
      );
      if (run.settled || run.subscription !== undefined) return;
      run.subscription = wait;
      this.link(run);
    } catch (reason) {
      run.error(reason);
    } finally {
      this.starting = undefined;
    }
  }

  /** The limiter granted a try its start: its factory is called now, unless the set was torn down meanwhile. */
  private waited(run: TaskRun<T>): void {
    if (this.tornDown) return;
    try {
      this.call(run);
    } catch (reason) {
      run.error(reason);
    }
  }

  /** Calls a try's factory and subscribes to what it returns; throws what the factory throws. */
  private call(run: TaskRun<T>): void {
    const { factory } = run;
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
    const linked = run.subscription !== undefined;
    run.subscription = subscription;
    // The subscriber may have left while the task was subscribing: the teardown could not see it yet.
    if (this.isTornDown()) {
      run.tearDown(this.reportUnhandled);
      return;
    }
    // A try that waited for the limiter is linked already.
    if (!linked) this.link(run);
  }

  /**
   * A task has settled: it is counted and let go, and the run is told, unless it had settled already or
   * the set was torn down. A task that notifies twice, or after the subscriber left, counts once or not
   * at all. An arrow function, to be handed to each task as it is.
   */
  private readonly settle = (run: TaskRun<T>, fulfilled: boolean, outcome: unknown): void => {
    if (run.settled || this.tornDown) return;
    run.settled = true;
    run.subscription = undefined;
    this.active--;
    this.unlink(run);
    this.onSettled(run, fulfilled, outcome);
    run.factory = undefined;
  };

  /** The tasks in flight, the one being invoked included. */
  inFlight(): TaskRun<T>[] {
    const runs: TaskRun<T>[] = [];
    for (let run = this.first; run !== undefined; run = run.after) runs.push(run);
    const { starting } = this;
    if (starting !== undefined && !starting.settled && !runs.includes(starting)) runs.push(starting);
    return runs;
  }

  /**
   * The run starts nothing more: the tries that wait for the `limiter` to grant their start fail
   * without being called, as tries in flight when a run stops run to their end.
   */
  stopWaiting(): void {
    this.limiterQueue?.withdraw(() => new Error(WITHDRAWN));
  }

  /** Tears every running task down, even if a teardown before it throws. */
  tearDown(): void {
    this.tornDown = true;
    for (let run = this.first; run !== undefined; run = run.after) run.tearDown(this.reportUnhandled);
  }

  /** What a teardown throws has nowhere to go but the host's `reportUnhandled`. */
  private readonly reportUnhandled = (error: unknown): void => this.host.reportUnhandled(error);

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
