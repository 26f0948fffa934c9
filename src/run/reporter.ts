// What a run tells the `events` option (§12). It exists only when someone listens: a run without it
// reads no clock and makes no object for its reports.
import type { SlowStartCheckpoint } from '../checkpoint/checkpoint.js';
import type { RunEnd, SlowStartEvent, TaskKey } from '../events.js';
import type { RunnerHost } from '../host.js';
import type { ResultGroup } from '../result-book.js';
import type { TaskRun } from '../task-run.js';
import type { BatchResult, TaskFactory } from '../types.js';
import type { TaskKeys } from './task-keys.js';

/** A task that did not succeed, as the end of a run lists it to be run again. */
export interface Unfinished {
  readonly index: number;
  readonly factory: unknown;
}

/** What the reporter needs of the host: its clock, and where an error thrown by the listener goes. */
type ReporterHost = Pick<RunnerHost<unknown>, 'now' | 'reportUnhandled'>;

/** The counts of an end, by final account. */
type Accounts = Pick<RunEnd<unknown>, 'succeeded' | 'failed' | 'itemFailed' | 'abandoned' | 'cancelled' | 'skipped'>;

export class Reporter<T> {
  /** How many factories have been received: the index of the next. */
  private received = 0;
  /** The final accounts so far. */
  private readonly accounts: { -readonly [K in keyof Accounts]: number } = {
    succeeded: 0,
    failed: 0,
    itemFailed: 0,
    abandoned: 0,
    cancelled: 0,
    skipped: 0,
  };
  /** The limit of the pace last reported, to report only its changes (the threshold changes only at a drop). */
  private limit = NaN;
  /**
   * The clock's last reading, while nothing but the listener and the run's own code has run since it
   * was taken; `NaN` otherwise. A start takes it rather than reading the clock again (see `started`).
   */
  private reading = NaN;
  /** Set once the start is reported, and once the end is: a run starts once and ends once. */
  private begun = false;
  private ended = false;
  /** Set once the end has been sent: nothing is sent after it, whatever the run still does. */
  private silent = false;

  /**
   * @param listener The `events` option.
   * @param keys Each task's key.
   * @param host The clock, and where the listener's errors go.
   */
  constructor(
    private readonly listener: (event: SlowStartEvent<T>) => void,
    private readonly keys: Pick<TaskKeys, 'keyOf'>,
    private readonly host: ReporterHost,
  ) {}

  /** The key of the task at `index`. */
  keyOf(index: number): TaskKey {
    return this.keys.keyOf(index);
  }

  /** The run starts, over `total` tasks when the source says, from the source `fingerprint`, resuming `resumed` if given. */
  start(total: number | undefined, fingerprint: string, resumed: SlowStartCheckpoint | undefined): void {
    this.begun = true;
    const time = this.now();
    this.send({ type: 'start', ...(total === undefined ? {} : { total }), fingerprint, ...(resumed && { resumed }), time });
  }

  /** A factory has arrived. */
  arrived(): void {
    const index = this.received++;
    this.send({ type: 'received', key: this.keyOf(index), index });
  }

  /**
   * Code of the caller's is about to run (the source is asked for factories), or the run's step is
   * over (the pump has done all it could): the next start reads the clock again.
   */
  forgetReading(): void {
    this.reading = NaN;
  }

  /**
   * A try starts. It is reported at the instant of the report before it in the same step, when there
   * is one: a synchronous task's successor starts as that task settles. Between the two only the
   * listener and the run's own bookkeeping ran, so the clock is not read again: a reading costs as
   * much as the rest of a report.
   */
  started(run: TaskRun<T>): void {
    const time = (run.startedAt = Number.isNaN(this.reading) ? this.host.now() : this.reading);
    // The factory runs next.
    this.reading = NaN;
    const { index } = run;
    this.send({ type: 'started', key: this.keyOf(index), index, batch: run.batch, attempt: run.attempt, time });
  }

  succeeded(run: TaskRun<T>, value: T | undefined): void {
    this.accounts.succeeded++;
    const time = this.now();
    const { index } = run;
    this.send({
      type: 'succeeded',
      key: this.keyOf(index),
      index,
      batch: run.batch,
      attempt: run.attempt,
      value,
      duration: time - run.startedAt,
      time,
    });
  }

  failed(run: TaskRun<T>, reason: unknown, kind: 'item' | 'fatal'): void {
    this.accounts[kind === 'item' ? 'itemFailed' : 'failed']++;
    const time = this.now();
    this.send({ type: 'failed', kind, ...this.tryOf(run), reason, duration: time - run.startedAt, time });
  }

  throttled(run: TaskRun<T>, reason: unknown, retryAt: number): void {
    const time = this.now();
    this.send({ type: 'throttled', kind: 'throttle', ...this.tryOf(run), reason, duration: time - run.startedAt, retryAt, time });
  }

  retrying(run: TaskRun<T>, reason: unknown, retryAt: number): void {
    const time = this.now();
    this.send({ type: 'retrying', kind: 'transient', ...this.tryOf(run), reason, duration: time - run.startedAt, retryAt, time });
  }

  abandoned(group: ResultGroup<T>, position: number, attempt: number, reason: unknown): void {
    this.accounts.abandoned++;
    const index = group.startIndex + position;
    this.send({ type: 'abandoned', key: this.keyOf(index), index, batch: group.index, attempt, reason, time: this.now() });
  }

  cancelled(run: TaskRun<T>): void {
    this.accounts.cancelled++;
    this.send({ type: 'cancelled', ...this.tryOf(run), time: this.now() });
  }

  skipped(index: number): void {
    this.accounts.skipped++;
    this.send({ type: 'skipped', key: this.keyOf(index), index, time: this.now() });
  }

  paused(until: number, cause: 'throttle' | 'learned rate' | 'rate limit'): void {
    this.send({ type: 'paused', until, cause, time: this.now() });
  }

  /** The pace as it is now: reported if it changed, or if it dropped. */
  pace(limit: number, threshold: number | undefined, dropped: boolean): void {
    if (!dropped && limit === this.limit) return;
    this.limit = limit;
    this.send({ type: 'pace', limit, threshold, dropped, time: this.now() });
  }

  rate(perSecond: number): void {
    this.send({ type: 'rate', perSecond, time: this.now() });
  }

  result(result: BatchResult<T>): void {
    const time = this.host.now();
    // The subscriber runs next.
    this.reading = NaN;
    this.send({ type: 'result', result, time });
  }

  /**
   * The run has ended, once: the runner reports a cancel only while `unended`. `unfinished` are the
   * tasks that started and did not succeed, in any order;
   * `neverStarted` the factories from index `firstNeverStarted` on that never started: each is reported
   * skipped, before the end.
   */
  end(how: RunEnd<T>['how'], unfinished: Unfinished[], firstNeverStarted: number, neverStarted: unknown[], error?: unknown): void {
    this.ended = true;
    const inOrder = [...unfinished];
    neverStarted.forEach((factory, offset) => {
      const index = firstNeverStarted + offset;
      this.skipped(index);
      inOrder.push({ index, factory });
    });
    inOrder.sort((a, b) => a.index - b.index);
    this.send(endEvent(how, this.accounts, inOrder, (index) => this.keyOf(index), this.now(), error));
    this.silent = true;
  }

  /**
   * Whether the run has started and its end is not reported yet: a run that closed may still wait for
   * a pull before it errors.
   */
  get unended(): boolean {
    return this.begun && !this.ended;
  }

  /** What every event of a try carries but its time. */
  private tryOf(run: TaskRun<T>): { key: TaskKey; index: number; batch: number; attempt: number } {
    const { index } = run;
    return { key: this.keyOf(index), index, batch: run.batch, attempt: run.attempt };
  }

  /** Reads the clock, and keeps the reading for a start that may follow in the same step. */
  private now(): number {
    return (this.reading = this.host.now());
  }

  /** The listener's errors have nowhere to go but `reportUnhandled`: the run goes on. */
  private send(event: SlowStartEvent<T>): void {
    // A listener that cancels the run mid-report ends it there; what the report was part of goes on.
    if (this.silent) return;
    try {
      this.listener(event);
    } catch (error) {
      this.host.reportUnhandled(error);
    }
  }
}

/** The `end` event: how the run ended, its accounts, and the tasks to run again, in source order, with their keys. */
function endEvent<T>(
  how: RunEnd<T>['how'],
  accounts: Accounts,
  inOrder: Unfinished[],
  keyOf: (index: number) => TaskKey,
  time: number,
  error: unknown,
): SlowStartEvent<T> {
  const end: RunEnd<T> & { time: number } = {
    type: 'end',
    how,
    ...accounts,
    unfinished: inOrder.map((task) => task.factory as TaskFactory<T>),
    unfinishedKeys: inOrder.map((task) => keyOf(task.index)),
    time,
  };
  if (how === 'failed') (end as { error?: unknown }).error = error;
  return end;
}
