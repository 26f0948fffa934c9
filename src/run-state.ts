// The live state of a run, folded from its events (§12): what a UI binds. `slowStartState()` in
// slow-start-state.ts is the fold as an RxJS operator.
import type { SlowStartCheckpoint } from './checkpoint/checkpoint.js';
import type { RunEnd, SlowStartEvent, TaskKey } from './events.js';

/** Where a task is: its latest event, by key. */
export type TaskStatus =
  'waiting' | 'inFlight' | 'retrying' | 'succeeded' | 'failed' | 'itemFailed' | 'abandoned' | 'cancelled' | 'skipped';

/** What a run is doing, as its events so far add up. Counts are of tasks by their status now. */
export interface SlowStartState {
  /** Received and not started yet. */
  readonly waiting: number;
  /** Started and not settled. */
  readonly inFlight: number;
  /** Throttled, or failed with a transient failure: waiting to be tried again. */
  readonly retrying: number;
  /** Succeeded, those a resumed checkpoint has as succeeded included. */
  readonly succeeded: number;
  /** Failed fatally: the run stopped after them. */
  readonly failed: number;
  /** Failed as items, while the run went on. */
  readonly itemFailed: number;
  /** Waited to be tried again when their run stopped. */
  readonly abandoned: number;
  /** In flight, and torn down, when the subscriber left. */
  readonly cancelled: number;
  /** Never started: their run ended first. */
  readonly skipped: number;
  /** The pace: at most `limit` tasks in flight, growing by one per round from `threshold` on. */
  readonly limit: number | undefined;
  /** From this limit on, the pace grows by one task per round; `undefined` before the job's first throttle. */
  readonly threshold: number | undefined;
  /** The end of the last pause, on the scheduler's clock: the run is paused while `now < pausedUntil`. */
  readonly pausedUntil: number | undefined;
  /** Under `retry.learnRate`, the starts allowed per pause, in tasks per second. */
  readonly rate: number | undefined;
  /**
   * How many tasks the job has, when the source said so as the run started (an array given to
   * `slowStart`): the tasks of a resumed run plus those that had succeeded before it; for a run that
   * resumes a checkpoint, its source's length, the tasks the checkpoint has done included.
   */
  readonly total: number | undefined;
  /** Successes per second over the last 10 s of the run, as of its latest success; `undefined` before one. */
  readonly successRate: number | undefined;
  /**
   * The ms left, at `successRate`, for the tasks of `total` not yet succeeded or failed as items, from
   * the latest success; `undefined` without both.
   */
  readonly timeLeft: number | undefined;
  /** How the last run ended; `undefined` while one runs, and before any. */
  readonly ended: RunEnd<unknown>['how'] | undefined;
  /**
   * Each task's status by key, across the runs that resume one another. One map, updated in place as
   * events come: read it through the latest state.
   */
  readonly tasks: ReadonlyMap<TaskKey, TaskStatus>;
}

/** The status each task event puts its task in. */
const statusAfter: Partial<Record<SlowStartEvent['type'], TaskStatus>> = {
  received: 'waiting',
  started: 'inFlight',
  succeeded: 'succeeded',
  failed: 'failed',
  throttled: 'retrying',
  retrying: 'retrying',
  abandoned: 'abandoned',
  cancelled: 'cancelled',
  skipped: 'skipped',
};

/** The state before any event. */
export function initialState(): SlowStartState {
  return {
    waiting: 0,
    inFlight: 0,
    retrying: 0,
    succeeded: 0,
    failed: 0,
    itemFailed: 0,
    abandoned: 0,
    cancelled: 0,
    skipped: 0,
    limit: undefined,
    threshold: undefined,
    pausedUntil: undefined,
    rate: undefined,
    total: undefined,
    successRate: undefined,
    timeLeft: undefined,
    ended: undefined,
    tasks: new Map(),
  };
}

/** The span of time the success rate is measured over, in ms. */
const RATE_SPAN = 10_000;

/** When the current run started, and its recent successes' times: one record for the states of one fold, by its task map. */
const recentSuccesses = new WeakMap<ReadonlyMap<TaskKey, TaskStatus>, { started: number; times: number[] }>();

/** The state after a success at `time`: its rate over the last 10 s of the run, and the time left at it. */
function withRate(next: { -readonly [K in keyof SlowStartState]: SlowStartState[K] }, time: number): void {
  const recent = recentSuccesses.get(next.tasks);
  if (recent === undefined) return;
  const { times } = recent;
  times.push(time);
  while (times[0] <= time - RATE_SPAN) times.shift();
  const span = Math.min(RATE_SPAN, time - recent.started);
  if (span <= 0) return;
  next.successRate = (1000 * times.length) / span;
  next.timeLeft =
    next.total === undefined ? undefined : (1000 * Math.max(0, next.total - next.succeeded - next.itemFailed)) / next.successRate;
}

/** `state` with the tasks a resumed checkpoint has done: succeeded, or failed as items. */
function withCheckpoint(state: SlowStartState, checkpoint: SlowStartCheckpoint): SlowStartState {
  const tasks = state.tasks as Map<TaskKey, TaskStatus>;
  const next: { -readonly [K in keyof SlowStartState]: SlowStartState[K] } = { ...state };
  const mark = (key: TaskKey, status: 'succeeded' | 'itemFailed') => {
    const before = tasks.get(key);
    if (before === status) return;
    tasks.set(key, status);
    if (before !== undefined) next[before]--;
    next[status]++;
  };
  for (const [list, status] of [
    [checkpoint.succeeded, 'succeeded'],
    [checkpoint.failed, 'itemFailed'],
  ] as const) {
    for (const entry of list) {
      if (typeof entry !== 'object') mark(entry, status);
      else for (let key = entry[0]; key <= entry[1]; key++) mark(key, status);
    }
  }
  return next;
}

/**
 * The state after `event`. A task's counts move with its status: a task that failed in one run and
 * is received again by the run that resumes it counts as waiting again, not as failed.
 */
export function nextState(state: SlowStartState, event: SlowStartEvent): SlowStartState {
  const status = event.type === 'failed' && event.kind === 'item' ? 'itemFailed' : statusAfter[event.type];
  if (status !== undefined) {
    const { key } = event as { key: TaskKey };
    const tasks = state.tasks as Map<TaskKey, TaskStatus>;
    const before = tasks.get(key);
    tasks.set(key, status);
    const next: { -readonly [K in keyof SlowStartState]: SlowStartState[K] } = { ...state };
    if (before !== undefined) next[before]--;
    next[status]++;
    if (status === 'succeeded') withRate(next, (event as { time: number }).time);
    return next;
  }
  switch (event.type) {
    case 'start': {
      recentSuccesses.set(state.tasks, { started: event.time, times: [] });
      // A run that resumes a checkpoint runs the whole source, leaving out what the checkpoint has done:
      // those count as done here too, in a page reloaded mid-job as in the process that ran them.
      const next = event.resumed === undefined ? state : withCheckpoint(state, event.resumed);
      const total = event.total === undefined ? undefined : event.resumed === undefined ? state.succeeded + event.total : event.total;
      return { ...next, ended: undefined, pausedUntil: undefined, rate: undefined, total, successRate: undefined, timeLeft: undefined };
    }
    case 'pace':
      return { ...state, limit: event.limit, threshold: event.threshold };
    case 'paused':
      return { ...state, pausedUntil: event.until };
    case 'rate':
      return { ...state, rate: event.perSecond };
    case 'end':
      // Nothing of a run waits once it has ended.
      return { ...state, ended: event.how, pausedUntil: undefined };
    default:
      return state;
  }
}
