/**
 * The rate `retry.learnRate` learns from throttles, alone: times in, the earliest next start out.
 */
import { JITTER, LearnedRate, PROBE_PER_SECOND } from '../../src/retry/learned-rate';
import { MAX_TIMER_DELAY } from '../../src/timer-limit';

/** A rate that saw `successes` successes between a first start at 0 and a drop at `dropAt`, pausing until `pauseEnd`. */
function learnedFrom(successes: number, dropAt: number, pauseEnd: number): LearnedRate {
  const rate = new LearnedRate();
  rate.started(0);
  for (let k = 0; k < successes; k++) rate.succeeded();
  rate.dropped(dropAt, pauseEnd);
  return rate;
}

describe('LearnedRate', () => {
  it('sets no limit before the pace has dropped', () => {
    const rate = new LearnedRate();
    for (let k = 0; k < 5; k++) rate.succeeded();
    expect(rate.started(0)).toBe(0);
    expect(rate.started(0)).toBe(0);
    expect(rate.started(7)).toBe(7);
  });

  it('learns the successes per ms since the first start at the first drop, and spaces starts by it', () => {
    // 4 successes in 40 ms: one start every 10 ms, counted from the first start after the pause.
    const rate = learnedFrom(4, 40, 100);
    expect(rate.started(100)).toBe(110);
    expect(rate.started(100)).toBe(110);
  });

  it('counts the first drop from the first start, not from when the rate was made', () => {
    const rate = new LearnedRate();
    rate.started(60);
    rate.started(70);
    rate.succeeded();
    rate.succeeded();
    rate.dropped(80, 180);
    // 2 successes in 80 - 60 = 20 ms.
    expect(rate.started(180)).toBe(190);
  });

  it('counts the next drop from the last one, pauses included', () => {
    const rate = learnedFrom(4, 40, 100);
    rate.started(100);
    for (let k = 0; k < 3; k++) rate.succeeded();
    // 3 successes between the drops at 40 and 100: one start every 20 ms.
    rate.dropped(100, 300);
    expect(rate.started(300)).toBe(320);
  });

  it('keeps the rate, and counts on from the drop before, when nothing succeeded since it', () => {
    const rate = learnedFrom(4, 40, 100);
    rate.started(100);
    // An outage: a drop at 110 with no success since 40. The rate stays one start per 10 ms, and the
    // probe starts again from the end of the new pause (from 100, it would be 5 % faster by now).
    rate.dropped(110, 200);
    expect(rate.started(200)).toBe(210);
    // The next drop counts from 40: 6 successes in 300 ms, one start per 50 ms.
    for (let k = 0; k < 6; k++) rate.succeeded();
    rate.dropped(340, 400);
    expect(rate.started(400)).toBe(450);
  });

  it('sets no limit when the first drop comes before any success', () => {
    const rate = learnedFrom(0, 40, 100);
    expect(rate.started(100)).toBe(100);
  });

  it('sets no limit when the successes took no time (synchronous tasks)', () => {
    const rate = learnedFrom(3, 0, 0);
    expect(rate.started(0)).toBe(0);
  });

  it('waits no longer between two starts than the pause after the last drop', () => {
    // 1 success in 1,000 ms would mean one start per second; the pause after the drop was 10 ms.
    const rate = learnedFrom(1, 1_000, 1_010);
    expect(rate.started(1_010)).toBe(1_020);
    // A drop with no pause sets no limit at all.
    rate.succeeded();
    rate.dropped(2_000, 2_000);
    expect(rate.started(2_000)).toBe(2_000);
  });

  it(`probes above the learned rate from the end of the pause: by ${PROBE_PER_SECOND} of it per second`, () => {
    expect(PROBE_PER_SECOND).toBe(0.5);
    // 1 success per 10 ms; the pause ends at 100.
    const rate = learnedFrom(4, 40, 100);
    // Before the pause ends there is no probe yet.
    expect(rate.started(50)).toBe(60);
    // Two seconds after the pause: twice the learned rate, one start every 5 ms.
    expect(rate.started(2_100)).toBe(2_105);
    // Four seconds after: three times the rate.
    expect(rate.started(4_100)).toBeCloseTo(4_100 + 10 / 3, 9);
  });

  it('reports the rate in tasks per second once a drop has measured one, and none before', () => {
    const rate = new LearnedRate();
    expect(rate.perSecond()).toBeUndefined();
    rate.started(0);
    // A drop before any success measures nothing.
    rate.dropped(10, 20);
    expect(rate.perSecond()).toBeUndefined();
    expect(learnedFrom(4, 40, 100).perSecond()).toBe(100);
  });

  it(`lengthens a throttle's pause by up to ${JITTER} of it at random, never past what a timer holds`, () => {
    expect(JITTER).toBe(0.05);
    const draws = [0, 0.5, 0.999, 0.999];
    const rate = new LearnedRate(() => draws.shift() ?? 0);
    expect(rate.jittered(1000)).toBe(1000);
    expect(rate.jittered(1000)).toBe(1025);
    expect(rate.jittered(1000)).toBeCloseTo(1049.95, 9);
    expect(rate.jittered(MAX_TIMER_DELAY)).toBe(MAX_TIMER_DELAY);
  });
});
