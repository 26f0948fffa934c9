/**
 * The allowance `retry.learnRate` learns from throttles, alone: times in, the earliest next start out.
 */
import { GROWTH, JITTER, KEPT_AT_A_THROTTLE, LearnedRate, MARGIN, SPREAD, STEADY } from '../../src/retry/learned-rate';
import { MAX_TIMER_DELAY } from '../../src/timer-limit';

/**
 * A rate whose first start was at 0, that saw `successes` successes by a drop at 100 with a pause of
 * 100 ms, and whose first start after the pause, at 200, measured its allowance. Returns it, the next
 * start's earliest time, and the rates it reported.
 */
function learnedFrom(successes: number) {
  const reported: number[] = [];
  const rate = new LearnedRate((perSecond) => reported.push(perSecond));
  rate.started(0);
  for (let k = 0; k < successes; k++) rate.succeeded();
  rate.dropped(100, 200);
  const next = rate.started(200);
  return { rate, next, reported };
}

describe('LearnedRate', () => {
  it('has the documented constants', () => {
    expect([MARGIN, KEPT_AT_A_THROTTLE, GROWTH, SPREAD, JITTER, STEADY]).toEqual([0.9, 0.7, 1, 0.1, 0.05, 0.1]);
  });

  it('sets no limit before the pace has dropped', () => {
    const rate = new LearnedRate();
    for (let k = 0; k < 5; k++) rate.succeeded();
    expect(rate.started(0)).toBe(0);
    expect(rate.started(0)).toBe(0);
    expect(rate.started(7)).toBe(7);
  });

  it('sets no limit during the pause either: the allowance is measured when it ends', () => {
    const rate = new LearnedRate();
    rate.started(0);
    rate.succeeded();
    rate.dropped(10, 110);
    expect(rate.started(50)).toBe(50);
  });

  it('allows 90 % of the successes by the end of the pause per pause, spread over its first tenth', () => {
    // 10 successes by the end of the pause at 200: 9 starts per 100 ms, 10 / 9 ms apart; the ninth
    // start waits for the end of the cycle, at 300.
    const { rate, next } = learnedFrom(10);
    expect(next).toBeCloseTo(200 + 10 / 9, 9);
    // Starts 2 to 8, each as early as allowed.
    let at = next;
    for (let start = 2; start <= 8; start++) at = rate.started(at);
    expect(at).toBeCloseTo(200 + (8 * 10) / 9, 9);
    expect(rate.started(at)).toBe(300);
  });

  it('counts what succeeds during the pause: the tries in flight at the throttle', () => {
    const rate = new LearnedRate();
    rate.started(0);
    for (let k = 0; k < 4; k++) rate.succeeded();
    rate.dropped(100, 200);
    for (let k = 0; k < 6; k++) rate.succeeded();
    // 10 by 200, as above: one start 10 / 9 ms after the first.
    expect(rate.started(200)).toBeCloseTo(200 + 10 / 9, 9);
  });

  it('counts the first cycle from the first start, not from when the rate was made', () => {
    const rate = new LearnedRate();
    rate.started(60);
    for (let k = 0; k < 20; k++) rate.succeeded();
    rate.dropped(80, 180);
    // 18 starts per 100 ms: the cycle is the pause, whenever the first start was.
    expect(rate.started(180)).toBeCloseTo(180 + 10 / 18, 9);
  });

  it('begins the next cycle at the first start after one ran out, and doubles the allowance, plus one, when all of it started', () => {
    // 2 successes: 1.8 allowed, so one whole start per cycle of 100 ms.
    const { rate, next } = learnedFrom(2);
    expect(next).toBe(300);
    // At 350 a new cycle: the last one started all it allowed, so this one allows 1.8 * 2 + 1 = 4.6,
    // 4 whole starts, 10 / 4 ms apart, and waits for its end at 450.
    expect(rate.started(350)).toBeCloseTo(350 + 10 / 4, 9);
    expect(rate.started(350 + 10 / 4)).toBeCloseTo(350 + 20 / 4, 9);
    expect(rate.started(350 + 20 / 4)).toBeCloseTo(350 + 30 / 4, 9);
    expect(rate.started(350 + 30 / 4)).toBe(450);
  });

  describe('after two throttled pauses', () => {
    /**
     * A rate that saw `first` served by its first throttle and `second` by its second, each pause 100 ms:
     * the second ends at 350, where its allowance is measured. Returns it and that start's answer.
     */
    function throttledTwice(first: number, second: number) {
      const { rate } = learnedFrom(first);
      for (let k = 0; k < second; k++) rate.succeeded();
      rate.dropped(250, 350);
      return { rate, next: rate.started(350) };
    }

    /** Starts the rest of a cycle's `allowed` from `at`, each as early as allowed; returns when the next may start. */
    function spend(rate: LearnedRate, at: number, allowed: number): number {
      let next = at;
      for (let start = 2; start <= allowed; start++) next = rate.started(next);
      return next;
    }

    it('that served about the same, takes the count as the limit: back to it, then one more, then twice as many and one', () => {
      // 20 and 18 served, a tenth apart: 90 % of 18 is 16.2, 16 whole starts.
      const { rate, next } = throttledTwice(20, 18);
      expect(next).toBeCloseTo(350 + 10 / 16, 9);
      expect(spend(rate, next, 16)).toBe(450);
      // A clean pause: back to the 18 the last throttle served, not 16.2 * 2 + 1.
      expect(rate.started(450)).toBeCloseTo(450 + 10 / 18, 9);
      expect(spend(rate, 450 + 10 / 18, 18)).toBe(550);
      // At the limit: one more.
      expect(rate.started(550)).toBeCloseTo(550 + 10 / 19, 9);
      expect(spend(rate, 550 + 10 / 19, 19)).toBe(650);
      // Past it, unrefused: doubling resumes, 19 * 2 + 1.
      expect(rate.started(650)).toBeCloseTo(650 + 10 / 39, 9);
    });

    it('that served more than a tenth apart, takes the counts as shares that move: twice as many and one', () => {
      // 20 and 17: 90 % of 17 is 15.3, at least 70 % of 18 is 12.6: 15 whole starts.
      const { rate, next } = throttledTwice(20, 17);
      expect(next).toBeCloseTo(350 + 10 / 15, 9);
      expect(spend(rate, next, 15)).toBe(450);
      expect(rate.started(450)).toBeCloseTo(450 + 10 / 31, 9);
    });

    it('that served nothing, take it for an outage, not a limit: twice as many and one', () => {
      const rate = new LearnedRate();
      rate.started(0);
      rate.dropped(10, 110);
      expect(rate.started(110)).toBe(210);
      rate.dropped(120, 220);
      expect(rate.started(220)).toBe(320);
      // One start a pause, all of it started: 1 * 2 + 1 in the next.
      expect(rate.started(320)).toBeCloseTo(320 + 10 / 3, 9);
    });

    it('forgets the limit at a throttle whose count differs from it: twice as many and one again', () => {
      const { rate, next } = throttledTwice(20, 18);
      spend(rate, next, 16);
      // A third throttle, at 460, after 10 served: 10 against 18 is no limit, and the allowance keeps 70 % of 18.
      rate.started(450);
      for (let k = 0; k < 10; k++) rate.succeeded();
      rate.dropped(460, 560);
      expect(rate.started(560)).toBeCloseTo(560 + 10 / 12, 9);
      expect(spend(rate, 560 + 10 / 12, 12)).toBe(660);
      expect(rate.started(660)).toBeCloseTo(660 + 10 / 26, 9);
    });
  });

  it('keeps the allowance of a cycle that did not start all of it', () => {
    // 9 allowed; one start in the cycle from 200, then none until 400.
    const { rate } = learnedFrom(10);
    expect(rate.started(400)).toBeCloseTo(400 + 10 / 9, 9);
  });

  it('keeps 70 % of the allowance at a throttle that saw less served, and never less than one start a pause', () => {
    const { rate } = learnedFrom(10);
    // A throttle at 210 with nothing served since: 70 % of 9, 6.3 starts per pause.
    rate.dropped(210, 310);
    expect(rate.started(310)).toBeCloseTo(310 + 10 / 6, 9);
    // Throttles that serve nothing bring it down to one start per pause, and no further.
    let at = 310;
    for (let k = 0; k < 10; k++) {
      rate.dropped(at, at + 100);
      at += 100;
      rate.started(at);
    }
    expect(rate.started(at)).toBe(at + 100);
  });

  it('follows the last pause: a longer one spreads the same allowance wider', () => {
    const { rate } = learnedFrom(10);
    for (let k = 0; k < 10; k++) rate.succeeded();
    rate.dropped(250, 1_250);
    // 90 % of the 10 served in the cycle from 200: 9 per 1,000 ms.
    expect(rate.started(1_250)).toBeCloseTo(1_250 + 100 / 9, 9);
  });

  it('treats a pause of no time as one of 1 ms', () => {
    const rate = new LearnedRate();
    rate.started(0);
    for (let k = 0; k < 10; k++) rate.succeeded();
    rate.dropped(40, 40);
    expect(rate.started(40)).toBeCloseTo(40 + 0.1 / 9, 9);
  });

  it('reports each allowance it measures, in tasks per second, as the pause ends', () => {
    const { rate, reported } = learnedFrom(10);
    expect(reported).toEqual([90]);
    // A cycle that runs out measures nothing new.
    rate.started(400);
    expect(reported).toEqual([90]);
    rate.dropped(410, 1_410);
    expect(reported).toEqual([90]);
    rate.started(1_410);
    // 70 % of 9 starts per 1,000 ms.
    expect(reported[1]).toBeCloseTo(6.3, 9);
  });

  it(`lengthens a throttle's pause by up to ${JITTER} of it at random, never past what a timer holds`, () => {
    const draws = [0, 0.5, 0.999, 0.999];
    const rate = new LearnedRate(undefined, () => draws.shift() ?? 0);
    expect(rate.jittered(1000)).toBe(1000);
    expect(rate.jittered(1000)).toBe(1025);
    expect(rate.jittered(1000)).toBeCloseTo(1049.95, 9);
    expect(rate.jittered(MAX_TIMER_DELAY)).toBe(MAX_TIMER_DELAY);
  });
});
