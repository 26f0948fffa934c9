// The live state alone: the fold of events (src/run-state.ts) and its operator (slowStartState()).
import { Subject } from 'rxjs';
import { slowStartState, type SlowStartEvent, type SlowStartState } from '../../src/index.js';
import type { SlowStartCheckpoint } from '../../src/checkpoint/checkpoint.js';
import { initialState, nextState } from '../../src/run-state.js';

const fold = (events: SlowStartEvent[]): SlowStartState => events.reduce(nextState, initialState());
const counts = (s: SlowStartState) => ({
  waiting: s.waiting,
  inFlight: s.inFlight,
  retrying: s.retrying,
  succeeded: s.succeeded,
  failed: s.failed,
  abandoned: s.abandoned,
  cancelled: s.cancelled,
  skipped: s.skipped,
});
const zero = { waiting: 0, inFlight: 0, retrying: 0, succeeded: 0, failed: 0, abandoned: 0, cancelled: 0, skipped: 0 };
const task = (type: 'received' | 'skipped', key: string, time = 0): SlowStartEvent => ({ type, key, index: 0, time });
const succeeded = (key: string, time: number): SlowStartEvent => ({
  type: 'succeeded',
  key,
  index: 0,
  batch: 0,
  attempt: 1,
  value: 1,
  duration: 1,
  time,
});
const trying = (type: 'started' | 'cancelled', key: string, attempt = 1, time = 0): SlowStartEvent => ({
  type,
  key,
  index: 0,
  batch: 0,
  attempt,
  time,
});

describe('the live state', () => {
  it('before any event: nothing counted, no pace, no pause, no end', () => {
    expect(counts(initialState())).toEqual(zero);
    const { limit, threshold, pausedUntil, rate, ended, tasks } = initialState();
    expect({ limit, threshold, pausedUntil, rate, ended, tasks: tasks.size }).toEqual({
      limit: undefined,
      threshold: undefined,
      pausedUntil: undefined,
      rate: undefined,
      ended: undefined,
      tasks: 0,
    });
  });

  it('moves each task between counts by its latest event', () => {
    const state = fold([
      task('received', 'a'),
      task('received', 'b'),
      trying('started', 'a'),
      { type: 'throttled', kind: 'throttle', key: 'a', index: 0, batch: 0, attempt: 1, reason: 429, duration: 2, retryAt: 9, time: 2 },
      { type: 'succeeded', key: 'b', index: 1, batch: 0, attempt: 1, value: 1, duration: 3, time: 3 },
    ]);
    // b succeeded without a start of its own in this list: a state only follows what it is told.
    expect(counts(state)).toEqual({ ...zero, retrying: 1, succeeded: 1 });
    // A task's first event moves it from nowhere: no count is taken from, and no other field appears.
    expect(Object.keys(state)).toEqual(Object.keys(initialState()));
    expect(state.tasks.get('a')).toBe('retrying');
  });

  it('carries its counts across a resumed run: a task cancelled, then received again, waits again', () => {
    const cancelled = fold([task('received', 'a'), trying('started', 'a'), trying('cancelled', 'a'), task('skipped', 'b')]);
    expect(counts(cancelled)).toEqual({ ...zero, cancelled: 1, skipped: 1 });
    const resumed = [task('received', 'a'), task('received', 'b'), trying('started', 'a')].reduce(nextState, cancelled);
    expect(counts(resumed)).toEqual({ ...zero, waiting: 1, inFlight: 1 });
  });

  it('keeps the pace and the rate, forgets the pause when the run ends, and the end when a run starts', () => {
    const events: SlowStartEvent[] = [
      { type: 'pace', limit: 4, threshold: 2, dropped: true, time: 1 },
      { type: 'paused', until: 50, cause: 'throttle', time: 1 },
      { type: 'rate', perSecond: 12, time: 1 },
    ];
    expect(fold(events).pausedUntil).toBe(50);
    const state = fold([
      ...events,
      {
        type: 'end',
        how: 'cancelled',
        succeeded: 0,
        failed: 0,
        itemFailed: 0,
        abandoned: 0,
        cancelled: 0,
        skipped: 0,
        unfinished: [],
        unfinishedKeys: [],
        time: 2,
      },
    ]);
    // A run cancelled during a pause is not paused once it has ended.
    expect([state.limit, state.threshold, state.pausedUntil, state.rate, state.ended]).toEqual([4, 2, undefined, 12, 'cancelled']);
    const next = nextState(state, { type: 'start', fingerprint: '', time: 3 });
    expect([next.limit, next.pausedUntil, next.rate, next.ended]).toEqual([4, undefined, undefined, undefined]);
  });

  it('slowStartState(): the state before any event at once, then a new state object per event', () => {
    const events = new Subject<SlowStartEvent>();
    const states: SlowStartState[] = [];
    events.pipe(slowStartState()).subscribe((state) => states.push(state));
    expect(states).toHaveLength(1);
    expect(counts(states[0])).toEqual(zero);
    events.next(task('received', 'a'));
    expect(states).toHaveLength(2);
    expect(states[1]).not.toBe(states[0]);
    expect(states[1].waiting).toBe(1);
  });

  it('slowStartState(): each subscription folds on its own', () => {
    const events = new Subject<SlowStartEvent>();
    const first: number[] = [];
    const second: number[] = [];
    const state = events.pipe(slowStartState());
    state.subscribe((s) => first.push(s.waiting));
    events.next(task('received', 'a'));
    state.subscribe((s) => second.push(s.waiting));
    events.next(task('received', 'b'));
    expect(first).toEqual([0, 1, 2]);
    expect(second).toEqual([0, 1]);
  });

  it('a progress line: the total from the start, the rate of the last 10 s of successes, and the time left at it', () => {
    const itemFailed = (key: string, time: number): SlowStartEvent => ({
      type: 'failed',
      kind: 'item',
      key,
      index: 0,
      batch: 0,
      attempt: 1,
      reason: 422,
      duration: 1,
      time,
    });
    const start = fold([{ type: 'start', fingerprint: '', total: 100, time: 1_000 }]);
    expect([start.total, start.successRate, start.timeLeft]).toEqual([100, undefined, undefined]);
    // 10 successes in the first 2 s: 5 a second; 89 left (one failed as an item) take 17.8 s.
    const events = Array.from({ length: 10 }, (_, i) => succeeded(`s${i}`, 1_200 + 200 * i));
    const early = [itemFailed('bad', 1_100), ...events].reduce(nextState, start);
    expect([early.successRate, early.timeLeft]).toEqual([5, (1000 * 89) / 5]);
    // 20 s later, one success: only what came in the last 10 s counts.
    const late = nextState(early, succeeded('late', 23_000));
    expect([late.successRate, late.timeLeft]).toEqual([0.1, (1000 * 88) / 0.1]);
    // A success at the very instant the run started tells no rate yet.
    expect(nextState(fold([{ type: 'start', fingerprint: '', total: 3, time: 5 }]), succeeded('a', 5)).successRate).toBeUndefined();
  });

  it('a resumed run: its total counts what had succeeded before it, and its rate is its own', () => {
    const first = fold([
      { type: 'start', fingerprint: '', total: 4, time: 0 },
      { type: 'succeeded', key: 'a', index: 0, batch: 0, attempt: 1, value: 1, duration: 1, time: 1_000 },
    ]);
    expect(first.successRate).toBe(1);
    const resumed = nextState(first, { type: 'start', fingerprint: '', total: 3, time: 60_000 });
    expect([resumed.total, resumed.successRate, resumed.timeLeft]).toEqual([4, undefined, undefined]);
    expect(nextState(resumed, { type: 'start', fingerprint: '', time: 70_000 }).total).toBeUndefined();
  });

  it('a run without a total: a success rate, and no time left', () => {
    const state = fold([
      { type: 'start', fingerprint: '', time: 0 },
      { type: 'succeeded', key: 'a', index: 0, batch: 0, attempt: 1, value: 1, duration: 1, time: 500 },
    ]);
    expect([state.successRate, state.timeLeft]).toEqual([2, undefined]);
  });

  it('a run that resumes a checkpoint: its keys and ranges of keys count as done, each task once', () => {
    const checkpoint: SlowStartCheckpoint = {
      version: 1,
      sequence: 3,
      fingerprint: '',
      savedAt: 0,
      succeeded: [0, [2, 4], 9],
      failed: [[6, 7]],
      inDoubt: [],
      pace: { limit: 4, threshold: null, perSecond: null, pausedUntil: null },
      ended: null,
    };
    // What this fold saw of the run the checkpoint came from: task 2 started, its success not heard
    // (the process was killed); task 9 succeeded; task 5 waited.
    const before = fold([
      { type: 'received', key: 2, index: 2 },
      { type: 'started', key: 2, index: 2, batch: 0, attempt: 1, time: 0 },
      { type: 'succeeded', key: 9, index: 9, batch: 0, attempt: 1, value: 1, duration: 1, time: 1 },
      { type: 'received', key: 5, index: 5 },
    ]);
    expect(counts(before)).toEqual({ ...zero, waiting: 1, inFlight: 1, succeeded: 1 });
    const resumed = nextState(before, { type: 'start', fingerprint: '', total: 10, resumed: checkpoint, time: 2 });
    // 0, 2, 3, 4 and 9 succeeded (9 counted once), 6 and 7 failed as items; 5 still waits.
    expect({ ...counts(resumed), itemFailed: resumed.itemFailed }).toEqual({ ...zero, waiting: 1, succeeded: 5, itemFailed: 2 });
    expect([...resumed.tasks].sort(([a], [b]) => Number(a) - Number(b))).toEqual([
      [0, 'succeeded'],
      [2, 'succeeded'],
      [3, 'succeeded'],
      [4, 'succeeded'],
      [5, 'waiting'],
      [6, 'itemFailed'],
      [7, 'itemFailed'],
      [9, 'succeeded'],
    ]);
    expect(resumed.total).toBe(10);
    expect(Object.keys(resumed)).toEqual(Object.keys(initialState()));
  });

  it('a task failed fatally counts as failed, one failed as an item as itemFailed', () => {
    const failed = (key: string, kind: 'item' | 'fatal'): SlowStartEvent => ({
      type: 'failed',
      kind,
      key,
      index: 0,
      batch: 0,
      attempt: 1,
      reason: 500,
      duration: 1,
      time: 1,
    });
    const state = fold([failed('a', 'fatal'), failed('b', 'item'), failed('c', 'item')]);
    expect([state.failed, state.itemFailed]).toEqual([1, 2]);
  });

  it('the success rate leaves out a success exactly 10 s before the latest', () => {
    const state = fold([{ type: 'start', fingerprint: '', time: 0 }, succeeded('a', 1_000), succeeded('b', 11_000)]);
    expect(state.successRate).toBe(0.1);
  });
});
