// The sources of waiting alone, as a pacing is tested alone: each told what happened, with the time,
// answering the earliest next start; and the gate over them on a fake clock whose timers are a list.
import { AnnouncedBudget } from '../../src/announced-budget';
import { LearnedRate } from '../../src/retry/learned-rate';
import { AnnouncedHold } from '../../src/run/waits/announced-hold';
import { LearnedSpacing } from '../../src/run/waits/learned-spacing';
import { StartGate } from '../../src/run/waits/start-gate';
import { ThrottlePause } from '../../src/run/waits/throttle-pause';
import type { Wait } from '../../src/run/waits/wait';
import { MAX_TIMER_DELAY } from '../../src/timer-limit';

/** A fixed wait: what a test sets is what it answers. */
function fixed(nextStart: number, onlyLater: boolean): Wait & { at: number } {
  return {
    cause: 'rate limit',
    onlyLater,
    at: nextStart,
    nextStart() {
      return this.at;
    },
  };
}

/** A gate on a clock the test moves, with its timers as a list and what it reported. */
function gateOver(waits: Wait[]) {
  const clock = { time: 0, timers: [] as { delay: number; action: () => void; cancelled: boolean }[] };
  const log: string[] = [];
  const gate = new StartGate(
    waits,
    {
      now: () => clock.time,
      schedule: (action, delay) => {
        const timer = { delay, action, cancelled: false };
        clock.timers.push(timer);
        return { unsubscribe: () => (timer.cancelled = true) };
      },
    },
    () => log.push(`wake at ${clock.time}`),
    () => log.push('moved'),
    { paused: (until, cause) => log.push(`paused until ${until} (${cause})`) },
  );
  return { gate, clock, log, armed: () => clock.timers.filter((timer) => !timer.cancelled).map((timer) => timer.delay) };
}

describe('ThrottlePause', () => {
  it('ends at the latest end a throttle asked for, never cut short, and says it is a throttle that only moves later', () => {
    const pause = new ThrottlePause();
    expect([pause.nextStart(), pause.cause, pause.onlyLater]).toEqual([-Infinity, 'throttle', true]);
    pause.throttled(10, 100);
    expect(pause.nextStart()).toBe(110);
    pause.throttled(20, 50);
    expect(pause.nextStart()).toBe(110);
    pause.throttled(30, 100);
    expect(pause.nextStart()).toBe(130);
  });
});

describe('LearnedSpacing', () => {
  it('counts a start before its try settles, and spaces the next by what the learned rate answers', () => {
    const rate = new LearnedRate(undefined, () => 0);
    const spacing = new LearnedSpacing(rate);
    expect([spacing.nextStart(), spacing.cause, spacing.onlyLater]).toEqual([-Infinity, 'learned rate', true]);
    // No limit before a drop: no wait.
    spacing.starting(0);
    spacing.started();
    expect(spacing.nextStart()).toBeLessThanOrEqual(0);
    // A drop at 10 with a pause to 110: the next start after it is the cycle's only one.
    rate.dropped(10, 110);
    spacing.starting(110);
    spacing.started();
    expect(spacing.nextStart()).toBe(210);
  });
});

describe('AnnouncedHold', () => {
  it('holds until the budget lets the next start come, and follows the latest announcement either way', () => {
    const hold = new AnnouncedHold(new AnnouncedBudget(() => 0));
    expect([hold.nextStart(), hold.cause, hold.onlyLater]).toEqual([-Infinity, 'rate limit', false]);
    hold.started(0, 1);
    expect(hold.nextStart()).toBe(0);
    hold.heard([{ limit: undefined, remaining: 0, resetIn: 1000, window: undefined }], 10, 1, 1);
    expect(hold.nextStart()).toBe(1010);
    // A new window brings it forward: try 2, told of at 20, reads 50, of which 22.5 are the run's own
    // in a second window, spread over the first 30 % of the time to the reset.
    hold.heard([{ limit: undefined, remaining: 50, resetIn: 1000, window: undefined }], 20, 2, 2);
    expect(hold.nextStart()).toBeCloseTo(20 + 300 / 23.5);
  });
});

describe('StartGate', () => {
  it('is open while no wait answers a time after now, and reads no clock while none has answered at all', () => {
    const wait = fixed(-Infinity, true);
    const { gate, clock } = gateOver([wait]);
    clock.time = NaN; // a read would make every comparison false
    expect(gate.isShut()).toBe(false);
    clock.time = 5;
    wait.at = 5;
    gate.changed(-Infinity, 5, 'throttle');
    expect(gate.isShut()).toBe(false);
    wait.at = 6;
    gate.changed(5, 5, 'throttle');
    expect(gate.isShut()).toBe(true);
    clock.time = 6;
    expect(gate.isShut()).toBe(false);
  });

  it('answers from the waits as `changed` last found them: a wait that moves is followed by `changed`', () => {
    const wait = fixed(-Infinity, true);
    const { gate, clock } = gateOver([wait]);
    clock.time = 0;
    wait.at = 10;
    // Not told yet: the gate still answers what it last found.
    expect(gate.isShut()).toBe(false);
    gate.changed(-Infinity, 0, 'throttle');
    expect(gate.isShut()).toBe(true);
  });

  it('opens at the latest answer; a retry is promised only what the waits that only move later say', () => {
    const { gate } = gateOver([fixed(30, true), fixed(50, false), fixed(20, true)]);
    expect([gate.openAt(), gate.promisedAt()]).toEqual([50, 30]);
  });

  it('reports a moved end and arms one timer for it; an earlier end re-arms it, an end in the past arms none', () => {
    const wait = fixed(-Infinity, true);
    const { gate, clock, log, armed } = gateOver([wait]);
    wait.at = 100;
    gate.changed(-Infinity, 0, 'throttle');
    expect([log, armed()]).toEqual([['moved', 'paused until 100 (throttle)'], [100]]);
    // Later: the timer armed for 100 looks again when it fires.
    wait.at = 150;
    gate.changed(100, 0, 'throttle');
    expect(armed()).toEqual([100]);
    // Earlier: the timer is armed anew.
    wait.at = 40;
    gate.changed(150, 0, 'rate limit');
    expect(armed()).toEqual([40]);
    expect(log.at(-1)).toBe('paused until 40 (rate limit)');
    // Unmoved: nothing reported.
    const reported = log.length;
    gate.changed(40, 0, 'rate limit');
    expect(log).toHaveLength(reported);
    // Into the past: the pause ends now, and no timer is left.
    wait.at = -5;
    gate.changed(40, 0, 'rate limit');
    expect([log.at(-1), armed()]).toEqual(['paused until 0 (rate limit)', []]);
    clock.time = 0;
  });

  it('reports nothing when an end that came just now moves to another that has come; arms no timer for an end that is now', () => {
    const wait = fixed(-Infinity, true);
    const { gate, clock, log, armed } = gateOver([wait]);
    clock.time = 50;
    // The pause ended at 50, now; its new end, 30, has come too: nothing to report.
    wait.at = 30;
    gate.changed(50, 50, 'throttle');
    expect([log, armed()]).toEqual([[], []]);
    // An end at this very instant, from one to come: reported, and the runner looks now, with no timer.
    wait.at = 50;
    gate.changed(80, 50, 'throttle');
    expect([log, armed()]).toEqual([['moved', 'paused until 50 (throttle)'], []]);
  });

  it('waits out an end further away than a timer holds in steps, and wakes the runner once it has come', () => {
    const far = MAX_TIMER_DELAY * 2 + 10;
    const wait = fixed(far, true);
    const { gate, clock, log, armed } = gateOver([wait]);
    gate.changed(-Infinity, 0, 'rate limit');
    expect(armed()).toEqual([MAX_TIMER_DELAY]);
    const fire = () => {
      const timer = clock.timers.find((t) => !t.cancelled)!;
      timer.cancelled = true;
      clock.time += timer.delay;
      timer.action();
    };
    fire();
    expect(armed()).toEqual([MAX_TIMER_DELAY]);
    fire();
    expect(armed()).toEqual([10]);
    expect(log.filter((line) => line.startsWith('wake'))).toEqual([]);
    fire();
    expect([armed(), log.at(-1)]).toEqual([[], `wake at ${far}`]);
  });

  it('arms nothing once stopped, and cancels the timer it had', () => {
    const wait = fixed(100, true);
    const { gate, armed } = gateOver([wait]);
    gate.changed(-Infinity, 0, 'throttle');
    gate.stop();
    expect(armed()).toEqual([]);
    wait.at = 50;
    gate.changed(100, 0, 'throttle');
    expect(armed()).toEqual([]);
  });

  it('tells the waits that space starts of each start, with the time read before the try', () => {
    const heard: string[] = [];
    const spacer: Wait = {
      cause: 'learned rate',
      onlyLater: true,
      nextStart: () => -Infinity,
      starting: (now) => heard.push(`starting ${now}`),
      started: (now, tries) => heard.push(`started ${now} #${tries}`),
    };
    const { gate, clock } = gateOver([new ThrottlePause(), spacer]);
    clock.time = 7;
    gate.starting();
    clock.time = 9;
    gate.started(3);
    expect(heard).toEqual(['starting 7', 'started 7 #3']);
  });
});
