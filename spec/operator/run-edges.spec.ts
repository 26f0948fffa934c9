// Edges of a run where a listener, a timer or a source does what a careful user would not expect:
// a listener that cancels in the middle of a report, a reset further away than a timer holds, a
// throttle's promise while an announcement moves, a refusal on the start that opens a round.
import { defer, map, Subject, throwError, timer, VirtualTimeScheduler, type SchedulerLike } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import { slowStart, slowStartState, type SlowStartEvent, type SlowStartState, type TaskFactory } from '../../src/index.js';
import { after, failsAfter } from '../support/virtual-tasks.js';
import { MAX_TIMER_DELAY } from '../../src/timer-limit.js';

/** Runs `body` in virtual time (a TestScheduler, which every `timer` and the run's own timers use). */
function inVirtualTime(body: (now: () => number) => void): void {
  const scheduler = new TestScheduler(() => {});
  scheduler.run(({ flush }) => {
    body(() => scheduler.now());
    flush();
  });
}

/** The states a run's events fold into, the last one first to read. */
function statesOf(events: Subject<SlowStartEvent>): SlowStartState[] {
  const states: SlowStartState[] = [];
  events.pipe(slowStartState()).subscribe((state) => states.unshift(state));
  return states;
}

/** A rate-limit reader for values and errors that carry their budget as `budget`. */
const budgetOf = (outcome: unknown) => (outcome as { budget?: { remaining: number; resetIn: number } } | undefined)?.budget;
const rateLimit = (outcome: unknown) => {
  const budget = budgetOf(outcome);
  return budget && { limit: undefined, remaining: budget.remaining, resetIn: budget.resetIn, window: undefined };
};

describe('a listener that cancels the run in the middle of a report', () => {
  it('on `throttled`: the throttled task is abandoned, listed to run again, and not left retrying', () => {
    const events = new Subject<SlowStartEvent>();
    const states = statesOf(events);
    const seen: SlowStartEvent[] = [];
    inVirtualTime(() => {
      const subscription = slowStart([failsAfter(1, 429), after(5, 'b')], {
        initialBatchSize: 2,
        keys: ['a', 'b'],
        retry: { when: () => true, delay: 10 },
        events: (e) => {
          seen.push(e);
          events.next(e);
          if (e.type === 'throttled') subscription.unsubscribe();
        },
      }).subscribe();
    });
    const end = seen.at(-1);
    expect(end?.type).toBe('end');
    if (end?.type !== 'end') return;
    expect([end.how, end.abandoned, end.cancelled, end.unfinishedKeys]).toEqual(['cancelled', 1, 1, ['a', 'b']]);
    expect(seen.filter((e) => 'key' in e && e.key === 'a').map((e) => e.type)).toEqual(['received', 'started', 'throttled', 'abandoned']);
    expect(states[0].tasks.get('a')).toBe('abandoned');
    expect([states[0].retrying, states[0].abandoned, states[0].cancelled]).toEqual([0, 1, 1]);
  });

  it('on `succeeded`, with rateLimit: no timer is left armed once the run has ended', () => {
    const scheduler = new VirtualTimeScheduler();
    // The success announces a budget spent for a minute: the next start would wait for its reset.
    const served = { budget: { remaining: 0, resetIn: 60_000 } };
    const subscription = slowStart([() => timer(1, scheduler).pipe(map(() => served)), () => timer(1, scheduler)], {
      scheduler,
      rateLimit,
      events: (e) => {
        if (e.type === 'succeeded') subscription.unsubscribe();
      },
    }).subscribe();
    // One action at a time, up to the cancel: what is left scheduled then would outlive the run.
    while (!subscription.closed && scheduler.actions.length > 0) {
      const action = scheduler.actions.shift()!;
      scheduler.frame = action.delay;
      action.execute(action.state, action.delay);
    }
    expect(subscription.closed).toBe(true);
    expect(scheduler.actions).toEqual([]);
  });

  it('sends nothing after the end: no `pace` and no `paused` once the run has reported it', () => {
    const seen: SlowStartEvent['type'][] = [];
    inVirtualTime(() => {
      const subscription = slowStart([after(1, { budget: { remaining: 0, resetIn: 5000 } }), after(1, 'b'), after(1, 'c')], {
        rateLimit,
        events: (e) => {
          seen.push(e.type);
          if (e.type === 'succeeded') subscription.unsubscribe();
        },
      }).subscribe();
    });
    expect(seen.slice(seen.indexOf('end'))).toEqual(['end']);
  });
});

describe('the live state after the end', () => {
  it('a run cancelled during a pause is not paused once it has ended', () => {
    const events = new Subject<SlowStartEvent>();
    const states = statesOf(events);
    inVirtualTime(() => {
      const subscription = slowStart([failsAfter(1, 429)], { retry: { when: () => true, delay: 1000 }, events }).subscribe();
      timer(10).subscribe(() => subscription.unsubscribe());
    });
    expect([states[0].ended, states[0].pausedUntil]).toEqual(['cancelled', undefined]);
    // While it ran, the pause showed.
    expect(states.some((state) => state.pausedUntil === 1001)).toBe(true);
  });
});

describe('a reset further away than a timer can hold (§13)', () => {
  /** A virtual-time scheduler that records the delay of every action scheduled on it. */
  function recordingScheduler(): { scheduler: SchedulerLike & VirtualTimeScheduler; delays: number[] } {
    const scheduler = new VirtualTimeScheduler(undefined, Infinity);
    const delays: number[] = [];
    const schedule = scheduler.schedule.bind(scheduler);
    scheduler.schedule = (work: never, delay = 0, state?: never) => {
      delays.push(delay);
      return schedule(work, delay, state);
    };
    return { scheduler, delays };
  }

  it('is waited for in steps no longer than a timer holds, not by a timer re-armed at once in a loop', () => {
    const month = 31 * 24 * 3600 * 1000;
    const { scheduler, delays } = recordingScheduler();
    const starts: number[] = [];
    const task = (value: unknown) => () =>
      defer(() => {
        starts.push(scheduler.now());
        return timer(1, scheduler).pipe(map(() => value));
      });
    slowStart([task({ budget: { remaining: 0, resetIn: month } }), task('b')], { scheduler, rateLimit }).subscribe();
    scheduler.flush();
    // The second task starts after the reset, not before.
    expect(starts[1]).toBeGreaterThanOrEqual(1 + month);
    expect(Math.max(...delays)).toBeLessThanOrEqual(MAX_TIMER_DELAY);
    // Two timers for the task's own ms, and two steps to wait out a month: not one a millisecond.
    expect(delays.length).toBeLessThan(10);
  });
});

describe("a throttled try's `retryAt` (§12: no sooner than)", () => {
  it('with rateLimit, is a time no retry starts before, even when a later announcement brings the hold forward', () => {
    const retryAts: number[] = [];
    const starts: number[] = [];
    inVirtualTime((now) => {
      let tries = 0;
      // Task 0 is refused at 20 with a budget spent for 5 s; task 1's success at 30 announces a fresh one.
      const refusedOnce: TaskFactory<unknown> = () =>
        defer(() => {
          if (++tries > 1) starts.push(now());
          return tries === 1
            ? failsAfter(20, { status: 429, budget: { remaining: 0, resetIn: 5000 } })({} as never)
            : after(1, 'a')({} as never);
        });
      slowStart([refusedOnce, after(30, { budget: { remaining: 10, resetIn: 1000 } })], {
        pacing: 'window',
        initialBatchSize: 2,
        rateLimit,
        retry: { when: () => true, delay: 1000 },
        events: (e) => {
          if (e.type === 'throttled') retryAts.push(e.retryAt);
        },
      }).subscribe();
    });
    expect(retryAts).toHaveLength(1);
    expect(starts).toHaveLength(1);
    expect(starts[0]).toBeGreaterThanOrEqual(retryAts[0]);
  });
});

describe('retry.learnRate, a try refused on the start that opens a round', () => {
  beforeEach(() => jest.spyOn(Math, 'random').mockReturnValue(0));
  afterEach(() => jest.restoreAllMocks());

  it('waits one pause, not two: a refusal on the spot costs what a refusal a millisecond later does', () => {
    const startsWhen = (onTheSpot: boolean) => {
      const starts: number[] = [];
      inVirtualTime((now) => {
        // An outage of 3.5 s: every try is refused, the first two 1 ms after they start (the rate is
        // learned from them), the rest at once or 1 ms later; then every try is served.
        const task: TaskFactory<unknown> = (context) =>
          defer(() => {
            starts.push(now());
            if (now() >= 3500) return after(1, 'ok')({} as never);
            return onTheSpot && (context as { attempt: number }).attempt > 2 ? throwError(() => 429) : failsAfter(1, 429)({} as never);
          });
        slowStart([task], { retry: { when: () => true, delay: 1000, maxAttempts: 10, learnRate: true } }).subscribe();
      });
      return starts;
    };
    expect(startsWhen(false)).toEqual([0, 1001, 2002, 3003, 4004]);
    expect(startsWhen(true)).toEqual([0, 1001, 2002, 3002, 4002]);
  });
});

describe('a failed run that waits for a pull under way when the subscriber leaves', () => {
  it('still accounts for each factory that had arrived and never started: skipped, and listed to run again', async () => {
    const seen: SlowStartEvent[] = [];
    let pulls = 0;
    const later = (ms: number, fail: boolean) => () =>
      new Promise((resolve, reject) => setTimeout(() => (fail ? reject(new Error('quota')) : resolve('ok')), ms));
    const throttledAtOnce = () => Promise.reject(Object.assign(new Error('slow down'), { status: 429 }));
    // Task 0 fails for good at 30 ms; task 1 is refused at once, and the pause that follows holds task 2,
    // which arrives; the fourth pull never answers.
    const factories = [later(30, true), throttledAtOnce, later(1, false)];
    const tasks: AsyncIterable<TaskFactory<unknown>> = {
      [Symbol.asyncIterator]: () => ({
        next: () => (pulls++ < factories.length ? Promise.resolve({ value: factories[pulls - 1], done: false }) : new Promise(() => {})),
      }),
    };
    const subscription = slowStart(tasks, {
      pacing: 'window',
      initialBatchSize: 4,
      keys: ['a', 'b', 'c'],
      retry: { delay: 10_000, when: (error) => (error as { status?: number }).status === 429 },
      events: (e) => seen.push(e),
    }).subscribe({ error: () => {} });
    await new Promise((resolve) => setTimeout(resolve, 60));
    expect(pulls).toBe(4);
    subscription.unsubscribe();
    const end = seen.at(-1);
    expect(end?.type === 'end' && [end.how, end.failed, end.abandoned, end.skipped, end.unfinishedKeys]).toEqual([
      'cancelled',
      1,
      1,
      1,
      ['a', 'b', 'c'],
    ]);
    expect(seen.filter((e) => 'key' in e && e.key === 'c').map((e) => e.type)).toEqual(['received', 'skipped']);
  });
});
