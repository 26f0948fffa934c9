// §13's pace alone: announcements in, the earliest next start out.
import { AnnouncedBudget } from '../../src/announced-budget';
import type { RateLimitState } from '../../src/rate-limit';

const budget = (remaining: number, resetIn: number, limit?: number): RateLimitState => ({ limit, remaining, resetIn, window: undefined });

describe('AnnouncedBudget (contract §13)', () => {
  it('sets no limit before the first announcement', () => {
    const pace = new AnnouncedBudget(() => 0);
    pace.started(0);
    expect(pace.nextStart(5)).toBe(5);
  });

  it('spreads what remains evenly until the reset, from the last start', () => {
    const pace = new AnnouncedBudget(() => 0);
    pace.started(0);
    // At 0: 10 left until 1,000, nothing else in flight: one start every 100 ms.
    pace.announced(budget(10, 1000), 0, 0);
    expect(pace.nextStart(0)).toBe(100);
    pace.started(0);
    // 9 left for the 1,000 ms: 111 ms.
    expect(pace.nextStart(0)).toBeCloseTo(1000 / 9, 9);
    // A response at 30 spaces the next start from the last one, at 0, not from itself.
    pace.announced(budget(9, 970), 30, 0);
    expect(pace.nextStart(30)).toBeCloseTo(970 / 9, 9);
    expect(pace.nextStart(500)).toBe(500);
  });

  it("counts the client's own tries in flight against what remains", () => {
    const pace = new AnnouncedBudget(() => 0);
    pace.started(0);
    pace.announced(budget(10, 1000), 0, 5);
    expect(pace.nextStart(0)).toBe(200);
  });

  it('waits for the reset when nothing is left, and a little more, drawn once per announcement', () => {
    const draws = [0.5, 0.2];
    const pace = new AnnouncedBudget(() => draws.shift() ?? 0);
    pace.started(0);
    pace.announced(budget(0, 1000), 0, 0);
    expect(pace.nextStart(0)).toBe(1025);
    expect(pace.nextStart(500)).toBe(1025);
    pace.started(100);
    pace.announced(budget(0, 1000), 100, 0);
    expect(pace.nextStart(100)).toBe(1110);
  });

  it('sets no limit from the reset on, until an announcement after it', () => {
    const pace = new AnnouncedBudget(() => 0);
    pace.started(0);
    pace.announced(budget(0, 1000), 0, 0);
    expect(pace.nextStart(1000)).toBe(1000);
    expect(pace.nextStart(1500)).toBe(1500);
  });

  // Resets are announced in whole seconds, rounded up: one of 10 s is at the earliest 9 s away.
  it('ignores an announcement of more remaining than the latest before its earliest reset: it was counted before, and came late', () => {
    const pace = new AnnouncedBudget(() => 0);
    pace.started(0);
    pace.announced(budget(10, 10_000), 0, 0);
    pace.announced(budget(11, 10_000), 10, 0);
    expect(pace.nextStart(10)).toBe(9_990 / 10);
    // From the earliest reset on, a budget of more is the next window's: one start now, the next 1/49 of 10 s on.
    pace.announced(budget(50, 10_000), 9_000, 0);
    expect(pace.nextStart(9_000)).toBe(9_000);
    pace.started(9_000);
    expect(pace.nextStart(9_000)).toBe(9_000 + 10_000 / 49);
  });

  it('tells its share from how fast the budget falls against its own responses', () => {
    const pace = new AnnouncedBudget(() => 0);
    pace.started(0);
    pace.announced(budget(100, 10_000), 0, 0);
    // Alone, it would start every 100 ms. One response later the budget fell by 4: a share of 1/4.
    expect(pace.nextStart(0)).toBe(100);
    pace.started(100);
    pace.announced(budget(96, 9_900), 100, 0);
    expect(pace.nextStart(100)).toBe(100 + 9_900 / 24);
    // Over the window: 2 responses of its own for a fall of 8.
    pace.started(200);
    pace.announced(budget(92, 9_800), 200, 0);
    expect(pace.nextStart(200)).toBe(200 + 9_800 / 23);
  });

  it('keeps its share across a reset, and counts the fall anew in the next window', () => {
    const pace = new AnnouncedBudget(() => 0);
    pace.started(0);
    pace.announced(budget(100, 10_000), 0, 0);
    pace.started(100);
    pace.announced(budget(90, 9_900), 100, 0);
    // A share of 1/10; the reset at 10 s brings a budget of 100 again: 10 of it for the next 10 s.
    pace.started(10_000);
    pace.announced(budget(100, 10_000), 10_000, 0);
    expect(pace.nextStart(10_000)).toBe(11_000);
    // In the new window: a fall of 2 for one response, a share of 1/2.
    pace.started(11_000);
    pace.announced(budget(98, 9_000), 11_000, 0);
    expect(pace.nextStart(11_000)).toBe(11_000 + 9_000 / 49);
  });

  it('takes a budget announced to reset within a second as a new window each time: the share stays', () => {
    const pace = new AnnouncedBudget(() => 0);
    pace.started(0);
    pace.announced(budget(10, 1000), 0, 0);
    pace.started(10);
    // More remaining 10 ms on: the window may have been reset since, so it counts.
    pace.announced(budget(20, 1000), 10, 0);
    expect(pace.nextStart(10)).toBe(10 + 1000 / 20);
  });

  it('never takes a share below 1/100, nor above 1', () => {
    const pace = new AnnouncedBudget(() => 0);
    pace.started(0);
    pace.announced(budget(10_000, 10_000), 0, 0);
    // A fall of 5,000 for one response would be a share of 1/5,000: it is 1/100, so 50 of what remains.
    pace.started(1000);
    pace.announced(budget(5_000, 9_000), 1000, 0);
    expect(pace.nextStart(1000)).toBe(1000 + 9_000 / 50);
    const alone = new AnnouncedBudget(() => 0);
    alone.started(0);
    alone.announced(budget(10, 1000), 0, 0);
    // The budget did not fall: the share stays 1.
    alone.started(100);
    alone.announced(budget(10, 900), 100, 0);
    expect(alone.nextStart(100)).toBe(190);
  });
});
