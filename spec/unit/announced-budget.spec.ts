// §13's pace alone: announcements in, the earliest next start out.
import { AnnouncedBudget } from '../../src/announced-budget';
import { ALONE_SPREAD, EARLY_SPENDING, JITTER_MS, KEPT_BACK, MARGIN, OneBudget, PROBE, SECOND, SPREAD_MS } from '../../src/one-budget';
import type { RateLimitState } from '../../src/rate-limit';

const budget = (remaining: number, resetIn: number, limit?: number, window?: number): RateLimitState => ({
  limit,
  remaining,
  resetIn,
  window,
});

/** A budget with a name, as draft 8 announces each of several. */
const named = (name: string, remaining: number, resetIn: number, limit?: number): RateLimitState => ({
  ...budget(remaining, resetIn, limit),
  name,
});

/** A pace whose random draws are all 0: no jitter, and a share's fraction rounded down. */
const pace = () => new AnnouncedBudget(() => 0);

/** A share of 1/10 in a first window that ran out, and try 3 started at its reset, at 1000, alone. */
function triedAfterAReset(): AnnouncedBudget {
  const p = pace();
  p.announced(budget(90, 1000, 100, 1000), 0, 1);
  p.announced(budget(0, 1000, 100, 1000), 10, 2);
  expect(p.nextStart(10, 2)).toBe(1000);
  expect(p.nextStart(1000, 2)).toBe(1000);
  expect(p.nextStart(1000, 3)).toBe(2000);
  return p;
}

describe('AnnouncedBudget (contract §13)', () => {
  it('takes 60 % of its share, and asks 3/100 of the budget more than it measured', () => {
    expect(MARGIN).toBe(0.6);
    expect(PROBE).toBe(0.03);
    expect(SPREAD_MS).toBe(1000);
    // Among other clients, a share one try of the budget smaller; a tenth of a window for a reset's first tries.
    expect(KEPT_BACK).toBe(1);
    expect(EARLY_SPENDING).toBe(0.1);
  });

  it('spreads the tries its share allows evenly until the reset while it sees another client, and over the first 30 % of that while it sees none', () => {
    const p = pace();
    // 30 % (a first window's) of a share of 1/10, and 3/100 more, of 90: 3.51, tries 2 to 4.
    p.announced(budget(90, 1000, 100, 1000), 0, 1);
    // Try 2 started at 0, with 2.51 left: the next a 3.51th of the way to the reset.
    expect(p.nextStart(0, 2)).toBeCloseTo(1000 / 3.51);
    expect(p.nextStart(300, 3)).toBeCloseTo(300 + 700 / 2.51);
    expect(p.nextStart(600, 4)).toBe(1000);
    // Alone: 27 of 90, tries 2 to 28, the last of them half of 300 ms after the one before.
    expect(ALONE_SPREAD).toBe(0.3);
    const alone = pace();
    alone.announced(budget(90, 1000), 0, 1);
    expect(alone.nextStart(0, 27)).toBeCloseTo(300 / 2);
    expect(alone.nextStart(0, 28)).toBe(1000);
  });

  it('starts at once the last tries of a run when they fit in what its share allows, and spreads them when they do not', () => {
    const p = pace();
    // As above: 2.51 tries left once try 2 is counted.
    p.announced(budget(90, 1000, 100, 1000), 0, 1);
    expect(p.nextStart(0, 2, 3)).toBeCloseTo(1000 / 3.51);
    expect(p.nextStart(0, 2, 2)).toBe(0);
    expect(p.nextStart(0, 2, 1)).toBe(0);
    // Spent, the share holds them all the same.
    expect(p.nextStart(600, 4, 1)).toBe(1000);
  });

  it('spreads them from the last start of the run, told of before the budget was first announced', () => {
    const p = pace();
    // Tries 1 and 2 started at 0, before any announcement: nothing held them.
    expect(p.nextStart(0, 2)).toBe(0);
    // Try 1 reads 90 of 100 at 20, for 900 ms: 3.51 of them its own, 2.51 once try 2 is counted, spread from 0.
    p.announced(budget(90, 900, 100, 1000), 20, 1);
    expect(p.nextStart(20, 2)).toBeCloseTo(920 / 3.51);
  });

  it('spreads them over a second at most, however far the reset', () => {
    const p = pace();
    p.announced(budget(90_000, 3_600_000, 100_000), 0, 1);
    // 30 % of 1/100 (and 3/100) of 90,000 in a first window: 1,080 tries, spread over a second, not the hour.
    expect(p.nextStart(0, 2)).toBeCloseTo(1000 / 1080);
  });

  it('is surer of its share with every window it measured: half as sure in the first, then three quarters', () => {
    const p = pace();
    // A share of 1/10 from the first announcement, and 3/100 more: in the first window 30 % of it is
    // 3.51 of the 90, tries 2 to 4.
    p.announced(budget(90, 1000, 100, 1000), 0, 1);
    expect(p.nextStart(0, 3)).toBeLessThan(1000);
    expect(p.nextStart(0, 4)).toBe(1000);
    // The second window: 45 %, 5.85 of 100, tries 6 to 10.
    p.announced(budget(100, 1000, 100, 1000), 1000, 5);
    expect(p.nextStart(1000, 9)).toBeLessThan(2000);
    expect(p.nextStart(1000, 10)).toBe(2000);
    // The third: 52.5 %, 6.83 of 100, tries 11 to 16.
    p.announced(budget(100, 1000, 100, 1000), 2000, 10);
    expect(p.nextStart(2000, 15)).toBeLessThan(3000);
    expect(p.nextStart(2000, 16)).toBe(3000);
  });

  it('sets no limit before the first announcement', () => {
    expect(pace().nextStart(5, 3)).toBe(5);
  });

  it('lets the next try start while what remains covers the tries not counted in it, and one more', () => {
    const p = pace();
    // Try 1 read 4 left, 1.2 of them its own to take in a first window; the tries started after it are
    // not counted in it. Try 2 may start.
    p.announced(budget(4, 1000), 10, 1);
    expect(p.nextStart(10, 1)).toBeLessThan(1010);
    // With 2 started, 1.2 - 1 is less than a try: the third waits for the reset.
    expect(p.nextStart(10, 2)).toBe(1010);
    expect(p.nextStart(600, 2)).toBe(1010);
    // Exactly one try left is one more: 6 of 20, with 5 not counted.
    const exact = pace();
    exact.announced(budget(20, 1000), 0, 1);
    expect(exact.nextStart(0, 6)).toBeLessThan(1000);
    expect(exact.nextStart(0, 7)).toBe(1000);
  });

  it('waits for the reset and a little more, drawn once per announcement', () => {
    const draws = [0, 0.5, 0, 0.2];
    const p = new AnnouncedBudget(() => draws.shift() ?? 0);
    // Each announcement draws the rounding of its fraction, then the jitter: up to 25 ms.
    p.announced(budget(0, 1000), 0, 1);
    expect(p.nextStart(0, 1)).toBe(1012.5);
    expect(p.nextStart(500, 1)).toBe(1012.5);
    // The next one of the window draws both again.
    p.announced(budget(0, 1000), 100, 2);
    expect(p.nextStart(100, 2)).toBe(1005);
  });

  it('ignores an announcement from a try that started before the latest one read', () => {
    const p = pace();
    p.announced(budget(5, 1000), 0, 4);
    p.announced(budget(50, 1000), 10, 3);
    p.announced(budget(50, 1000), 10, 4);
    expect(p.nextStart(10, 9)).toBe(1000);
  });

  it('takes a little more remaining than the latest for a try counted before it, and more than 1/8 of the budget for a new window', () => {
    const p = pace();
    p.announced(budget(10, 1000), 0, 1);
    p.announced(budget(2, 1000), 10, 5);
    // Try 6 reached the server before try 5 did: 3 is not the budget back.
    p.announced(budget(3, 1000), 20, 6);
    expect(p.nextStart(20, 7)).toBe(1000);
    // 8 more: the next window's budget, read before the reset was due (servers round it up to a
    // second). It opens a window: the share's measures so far count for half.
    p.announced(budget(10, 1000), 30, 7);
    // 4 tries of 8 fallen, and 3/100 more: 45 % (a second window's) of 0.53 of 10 is 2.39. Whether to
    // start is asked of a share a try of the 10 smaller: 1.94, try 8 alone.
    expect(p.nextStart(30, 7)).toBeLessThan(1030);
    expect(p.nextStart(30, 8)).toBe(1030);
  });

  it('tells its share from its own tries against the fall of the budget between two announcements', () => {
    const p = pace();
    p.announced(budget(100, 10_000), 0, 1);
    // Tries 2 to 5 are its own: of the budget's fall of 20 between tries 1 and 5, a share of 4/20.
    p.announced(budget(80, 10_000), 100, 5);
    // 30 % (a first window's) of 1/5 and 3/100 of 80 is 5.52: tries 6 to 10 may start, the 11th waits.
    expect(p.nextStart(100, 5)).toBeLessThan(10_000);
    expect(p.nextStart(100, 9)).toBeLessThan(10_000);
    expect(p.nextStart(100, 10)).toBe(10_000);
  });

  it("takes the run's first announcement against the limit: its tries so far, for what the window lost", () => {
    const p = pace();
    // The first try read 190 of 200: 10 gone for its one try, a share of 1/10 and 3/100, 7.41 of what remains.
    p.announced(budget(190, 1000, 200), 0, 1);
    expect(p.nextStart(0, 7)).toBeLessThan(1000);
    expect(p.nextStart(0, 8)).toBe(1000);
    // Without a limit it sees no other client yet: all of it, 57.
    const alone = pace();
    alone.announced(budget(190, 1000), 0, 1);
    expect(alone.nextStart(0, 57)).toBeLessThan(1000);
    expect(alone.nextStart(0, 58)).toBe(1000);
  });

  it('rounds the fraction of a try its share leaves up or down at random, anew with each announcement', () => {
    const withDraw = (spare: number, next = 0) => {
      // The draws of each announcement: the rounding, then the jitter.
      const draws = [0, 0, spare, 0, next, 0];
      const p = new AnnouncedBudget(() => draws.shift() ?? 0);
      p.announced(budget(100, 10_000), 0, 1);
      // 45 tries of its own for a fall of 90: a share of 1/2 and 3/100, 30 % of which is 1.59 of the 10
      // that remain; a try of the 100 smaller, 1.56.
      p.announced(budget(10, 10_000), 10, 46);
      return p;
    };
    // Drawn 0.5, the fraction rounds up: two more may start (tries 47 and 48).
    expect(withDraw(0.5).nextStart(10, 47)).toBeLessThan(10_000);
    expect(withDraw(0.5).nextStart(10, 48)).toBe(10_000);
    // Drawn 0.05, it rounds down: one.
    expect(withDraw(0.05).nextStart(10, 46)).toBeLessThan(10_000);
    expect(withDraw(0.05).nextStart(10, 47)).toBe(10_000);
    // The window's next announcement draws again: 0.05 after 0.5, and try 47's answer lets none more start.
    const p = withDraw(0.5, 0.05);
    p.announced(budget(9, 10_000), 20, 47);
    expect(p.nextStart(20, 47)).toBeLessThan(10_000);
    expect(p.nextStart(20, 48)).toBe(10_000);
  });

  it('does not measure its share on a spent budget: its fall is no longer seen', () => {
    const p = pace();
    p.announced(budget(100, 10_000), 0, 1);
    p.announced(budget(90, 10_000), 10, 2);
    p.announced(budget(0, 10_000), 20, 3);
    // Still a share of 1/10 (and 3/100) once the next window comes: 5.85 of its 100.
    p.announced(budget(100, 10_000), 10_000, 4);
    expect(p.nextStart(10_000, 8)).toBeLessThan(20_000);
    expect(p.nextStart(10_000, 9)).toBe(20_000);
  });

  it('keeps the soonest reset a window announced: each is an upper bound', () => {
    const p = pace();
    p.announced(budget(10, 1000), 0, 1);
    p.announced(budget(5, 1000), 300, 2);
    expect(p.nextStart(300, 20)).toBe(1000);
    // A new window: its own reset.
    p.announced(budget(40, 1000), 1100, 3);
    p.announced(budget(0, 1000), 1150, 4);
    expect(p.nextStart(1150, 4)).toBe(2100);
  });

  it('counts a try told of with the reset in the new window: it started then', () => {
    const p = pace();
    p.announced(budget(0, 1000, 100, 1000), 0, 1);
    expect(p.nextStart(0, 1)).toBe(1000);
    // Told of the second try at 1000: it started at the reset, and it is the new window's one try.
    expect(p.nextStart(1000, 2)).toBe(2000);
  });

  it('takes an answer heard after the reset, to a try started before it, with less remaining, as late news of the old window', () => {
    // A share of 1/50 (and 3/100) of a window that resets at 1000; try 2 starts at 990, before it.
    const late = () => {
      const p = pace();
      p.announced(budget(50, 1000, 100, 1000), 0, 1);
      expect(p.nextStart(990, 2)).toBe(1000);
      return p;
    };
    // Try 2's answer comes at 1010: counted at the old window's end, 40 left, its reset rounded up to a
    // second. Taken as a new window's, 45 % of 5/100 of 40 is 0.9 of a try: held until 2010. As late
    // news, the window has reset: one try starts to hear where the new one stands, the rest wait for it.
    const p = late();
    p.announced(budget(40, 1000, 100, 1000), 1010, 2);
    expect(p.nextStart(1010, 2)).toBe(1010);
    expect(p.nextStart(1010, 3)).toBe(2010);
    // Its answer opens the new window: 95 left, 52.5 % of 5/100 of it is 2.49 tries, and a try of the 100
    // smaller, 1.99: try 4.
    p.announced(budget(95, 1000, 100, 1000), 1040, 3);
    expect(p.nextStart(1040, 3)).toBeLessThan(2040);
    expect(p.nextStart(1040, 4)).toBe(2040);
    // More remaining than the old window's last reading: the try was counted in a new window.
    const q = late();
    q.announced(budget(90, 1000, 100, 1000), 1010, 2);
    // Its share allows one more try, spread from try 2's start at 990: not at once, as the one try after a
    // reset would start.
    expect(q.nextStart(1010, 2)).toBeCloseTo(990 + SECOND / (MARGIN * 0.75 * (1 / 50 + PROBE) * 90 + 1), 6);
    expect(q.nextStart(1010, 3)).toBe(2010);
    // A try started after the reset the client expected is the new window's, whatever it reads.
    const r = late();
    expect(r.nextStart(1000, 2)).toBe(1000);
    expect(r.nextStart(1000, 3)).toBe(2000);
    r.announced(budget(40, 1000, 100, 1000), 1030, 3);
    // Its share of the 40 is spent (45 % of 5/100 of it is 0.9 of a try). The 59 others spent say the
    // window began 590 ms of an even pace before 1030: the client comes back a second and a tenth after
    // that, at 1540, not at the 2030 its answer announces.
    expect(r.nextStart(1030, 3)).toBe(1540);
  });

  it('after a reset lets one try start to hear where the window stands, and the rest once it has', () => {
    // At the reset, try 3 may start; the next waits for a window's length, or an announcement.
    const p = triedAfterAReset();
    // Try 3 read 80 left. Other clients drew 19 before it came back, but it does not tell from what it
    // heard when the reset came: the share stays 1/10 (and 3/100), and 45 % of it is 4.68 of the 80 (4.32
    // a try of the 100 smaller), tries 4 to 7.
    p.announced(budget(80, 1000, 100, 1000), 1030, 3);
    expect(p.nextStart(1030, 6)).toBeLessThan(1940);
    // The 19 spent before it say the window began before the reset the client expected: 190 ms of an
    // even pace before 1030. It ends a second after that, and a tenth of a second later for the first
    // tries after a reset, which come faster: at 1940, before the 2030 that every answer will announce.
    expect(p.nextStart(1030, 7)).toBe(1940);
    p.announced(budget(70, 1000, 100, 1000), 1100, 4);
    expect(p.nextStart(1100, 7)).toBe(1940);
  });

  it('keeps the announced reset when the try after a reset finds little of the window spent', () => {
    const p = triedAfterAReset();
    // 93 left: the 6 others' tries that came back at the reset too. 1030 + 1000 * (94 / 100 + 1 / 10) is
    // later than the second the answer announces.
    p.announced(budget(93, 1000, 100, 1000), 1030, 3);
    expect(p.nextStart(1030, 7)).toBeLessThan(2030);
    expect(p.nextStart(1030, 8)).toBe(2030);
  });

  it('does not measure the try after a reset on a spent window: refused, it drew nothing', () => {
    const p = triedAfterAReset();
    // Try 3, after the reset, found the window spent by other clients before it came back: the window
    // began about a second before, and ends a tenth of a second (and a try's 10 ms) from now.
    p.announced(budget(0, 1000, 100, 1000), 1020, 3);
    expect(p.nextStart(1020, 3)).toBe(1130);
    // The next window's try reads 90: still 1/10 (and 3/100), and 52.5 % of it 6.14 of the 90 in a
    // third window, 5.67 a try of the 100 smaller: tries 5 to 9.
    expect(p.nextStart(1130, 4)).toBe(2130);
    p.announced(budget(90, 1000, 100, 1000), 1150, 4);
    expect(p.nextStart(1150, 8)).toBeLessThan(2150);
    expect(p.nextStart(1150, 9)).toBe(2150);
  });

  it('does not measure the try after a reset from the top of a window it did not hear of', () => {
    const p = triedAfterAReset();
    // Try 3 is answered a whole window later: the window it was counted in is not the one the client
    // expected, and its top is unknown. The share stays 1/10 (and 3/100): 2.34 of the 40, tries 4 and 5.
    p.announced(budget(40, 1000, 100, 1000), 2100, 3);
    expect(p.nextStart(2100, 4)).toBeLessThan(3100);
    expect(p.nextStart(2100, 5)).toBe(3100);
  });

  it('expects the limit after a reset, though no window was read with all of it', () => {
    const p = pace();
    // A share of 1/10, from the first announcement: 90 of a limit of 100.
    p.announced(budget(90, 1000, 100), 0, 1);
    p.announced(budget(0, 1000, 100), 10, 2);
    expect(p.nextStart(10, 2)).toBe(1000);
    expect(p.nextStart(1000, 2)).toBe(1000);
    // The try after the reset read 95; a newer one read 98, having reached the server first: within the
    // limit the new window began with, so old news. 45 % of 1/10 (and 3/100) of 95 is 5.56: tries 4 to 8.
    p.announced(budget(95, 1000, 100), 1020, 3);
    p.announced(budget(98, 1000, 100), 1030, 5);
    expect(p.nextStart(1030, 7)).toBeLessThan(2020);
    expect(p.nextStart(1030, 8)).toBe(2020);
  });

  it('expects a window of a second, and the most a window was read with, when the server says neither', () => {
    const p = pace();
    p.announced(budget(30, 1000), 0, 1);
    p.announced(budget(0, 1000), 10, 2);
    expect(p.nextStart(10, 2)).toBe(1000);
    expect(p.nextStart(1000, 2)).toBe(1000);
    expect(p.nextStart(1000, 3)).toBe(2000);
    // After the next reset too: one try, a second on.
    expect(p.nextStart(2000, 3)).toBe(2000);
    expect(p.nextStart(2000, 4)).toBe(3000);
  });

  it('counts earlier windows for half in a new one', () => {
    const p = pace();
    p.announced(budget(100, 10_000), 0, 1);
    // A share of 2/10 in the first window.
    p.announced(budget(90, 10_000), 10, 3);
    // The next window: 1 of its own for a fall of 20, against half of the first window's 2 and 10.
    p.announced(budget(100, 10_000), 10_000, 4);
    p.announced(budget(80, 10_000), 10_010, 5);
    // 45 % of (1 + 1) / (5 + 20) = 2/25, and 3/100, of 80 is 3.96: three, tries 6 to 8.
    expect(p.nextStart(10_010, 7)).toBeLessThan(20_000);
    expect(p.nextStart(10_010, 8)).toBe(20_000);
  });

  it('never takes a share below 1/100, nor above 1', () => {
    const p = pace();
    p.announced(budget(10_000, 100_000), 0, 1);
    // A fall of 5,000 for one try would be 1/5,000: it is 1/100, and 3/100 more, so 60 of what remains,
    // 59.85 a try of the 10,000 smaller.
    p.announced(budget(5_000, 100_000), 10, 2);
    expect(p.nextStart(10, 60)).toBeLessThan(100_000);
    expect(p.nextStart(10, 61)).toBe(100_000);
    const alone = pace();
    alone.announced(budget(10, 1000), 0, 1);
    // The budget fell by 1 for 2 tries of its own (one did not reach it yet): the share stays 1, 2.7 of 9.
    alone.announced(budget(9, 1000), 10, 3);
    expect(alone.nextStart(10, 4)).toBeLessThan(1000);
    expect(alone.nextStart(10, 5)).toBe(1000);
  });

  describe('an answer that announces nothing', () => {
    it('from the try that was to hear where a window stands after its reset, releases the hold until the next announcement', () => {
      // Try 3 started at the reset to hear where the new window stands, and the rest wait for its answer.
      const p = triedAfterAReset();
      // It answers, and says nothing: as a server that announces its budget only on its 429s answers a success.
      expect(p.unannounced(3)).toBe(true);
      expect(p.nextStart(1010, 3)).toBe(1010);
      expect(p.nextStart(1010, 40)).toBe(1010);
      // Said twice, it releases nothing more.
      expect(p.unannounced(4)).toBe(false);
      // Past the window it assumed, still nothing holds: no try is put off to hear again.
      expect(p.nextStart(5000, 41)).toBe(5000);
      // The next announcement holds again: a spent budget, until its reset.
      p.announced(budget(0, 1000, 100, 1000), 5010, 41);
      expect(p.nextStart(5010, 41)).toBe(6010);
    });

    it('keeps the share measured so far for the next announcement', () => {
      const p = triedAfterAReset();
      p.unannounced(3);
      // Still a share of 1/10 (and 3/100), not the 1 of a client that saw no other: with a second
      // window's sureness (45 %), 5.85 tries of 100, tries 11 to 15.
      p.announced(budget(100, 1000, 100, 1000), 3000, 10);
      expect(p.nextStart(3000, 14)).toBeLessThan(4000);
      expect(p.nextStart(3000, 15)).toBe(4000);
    });

    it('from a try that started before the one that was to hear, releases nothing', () => {
      const p = triedAfterAReset();
      expect(p.unannounced(2)).toBe(false);
      expect(p.nextStart(1010, 3)).toBe(2000);
    });

    it('within a window, releases nothing: what was announced still holds until the reset', () => {
      const p = pace();
      p.announced(budget(0, 1000, 100, 1000), 10, 1);
      expect(p.unannounced(2)).toBe(false);
      expect(p.nextStart(20, 2)).toBe(1010);
      // Nor before any announcement, when nothing holds.
      expect(pace().unannounced(1)).toBe(false);
    });

    it('of one budget, from an answer that announces the others, releases that budget alone', () => {
      const p = pace();
      p.announced([named('burst', 0, 1000, 10), named('day', 5000, 80_000_000, 10_000)], 0, 1);
      expect(p.nextStart(0, 1)).toBe(1000);
      // The burst's reset: try 2 hears where its window stands, and the rest wait for the answer.
      expect(p.nextStart(1000, 2)).toBe(2000);
      // It tells of the day alone: the burst holds nothing until announced again, the day as before: a
      // share of 1/100 (and 3/100) of 4,999, 59.99 tries spread over a second from the last start.
      p.announced(named('day', 4999, 80_000_000, 10_000), 1010, 2);
      expect(p.nextStart(1010, 2)).toBeCloseTo(1000 + 1000 / 60.988, 1);
      // Spent, the day holds until the soonest reset its window announced.
      p.announced(named('day', 0, 80_000_000, 10_000), 1020, 3);
      expect(p.nextStart(1020, 3)).toBe(80_000_000);
    });
  });

  describe('several budgets announced at once', () => {
    it('holds each: the next start is the latest any of them allows, the one that binds now', () => {
      // A burst spent until 1000, and a day's quota with plenty left: the burst binds.
      const burst = pace();
      burst.announced([named('burst', 0, 1000, 10), named('day', 9000, 80_000_000, 10_000)], 0, 1);
      expect(burst.nextStart(0, 1)).toBe(1000);
      // A day's quota spent, and a burst with plenty left: the day binds, whichever comes first.
      const day = pace();
      day.announced([named('day', 0, 80_000_000, 10_000), named('burst', 9, 1000, 10)], 0, 1);
      expect(day.nextStart(0, 1)).toBe(80_000_000);
    });

    it("keeps each budget's announcements apart by its name, in whatever order a response lists them", () => {
      const p = pace();
      p.announced([named('burst', 100, 1000), named('day', 100, 80_000_000)], 0, 1);
      // Were the two mixed up, the burst's 50 would be the day's window falling, and 100 the next window.
      p.announced([named('day', 99, 80_000_000), named('burst', 50, 1000)], 10, 2);
      // The burst: 1 try of its own for a fall of 50, a share of 1/50, and 3/100: 30 % of it of 50 is 0.75, not a try.
      expect(p.nextStart(10, 2)).toBe(1000);
      // Alone, the day's announcement would let try 3 start: 30 % of 1/1 of 99.
      const day = pace();
      day.announced(named('day', 100, 80_000_000), 0, 1);
      day.announced(named('day', 99, 80_000_000), 10, 2);
      expect(day.nextStart(10, 2)).toBeLessThan(80_000_000);
    });

    it('tells nameless budgets apart by their windows, or else by their places', () => {
      const byWindow = pace();
      byWindow.announced([budget(100, 1000, undefined, 1000), budget(100, 60_000, undefined, 60_000)], 0, 1);
      byWindow.announced([budget(100, 60_000, undefined, 60_000), budget(0, 1000, undefined, 1000)], 10, 2);
      expect(byWindow.nextStart(10, 2)).toBe(1000);
      const byPlace = pace();
      byPlace.announced([budget(100, 1000), budget(100, 60_000)], 0, 1);
      byPlace.announced([budget(0, 990), budget(100, 60_000)], 10, 2);
      expect(byPlace.nextStart(10, 2)).toBe(1000);
      // Two of one window in one announcement are two budgets all the same, the second by its place.
      const twins = pace();
      twins.announced([budget(100, 1000, undefined, 1000), budget(0, 500, undefined, 1000)], 0, 1);
      expect(twins.nextStart(0, 1)).toBe(500);
      // And three of one window are three: the third, spent the longest, holds.
      const triplets = pace();
      triplets.announced([budget(100, 1000, undefined, 1000), budget(0, 500, undefined, 1000), budget(0, 800, undefined, 1000)], 0, 1);
      expect(triplets.nextStart(0, 1)).toBe(800);
      // A budget with no name and no window is its place: the one at place 0 next is another than the one at place 1 before.
      const moved = pace();
      moved.announced([budget(100, 1000, undefined, 1000), budget(0, 1000)], 0, 1);
      moved.announced([budget(100, 1000)], 10, 2);
      expect(moved.nextStart(10, 2)).toBe(1000);
    });

    it('measures the share of a budget first announced after the run began from its windows only, not against its limit', () => {
      const p = pace();
      p.announced(named('burst', 1000, 1000), 0, 1);
      // Try 2 brings a day's quota 9,000 short of its limit, drawn before the run for all it can tell: a
      // share of 1, 30 % of its 1,000 is 300 tries. Against its limit it would have been 2/9,000, so
      // 1/100 (and 3/100): 12 tries.
      p.announced([named('burst', 999, 990), named('day', 1000, 80_000_000, 10_000)], 10, 2);
      expect(p.nextStart(10, 300)).toBeLessThan(80_000_010);
      // Past 300 the day binds: its reset is later than the burst's.
      expect(p.nextStart(10, 360)).toBe(80_000_010);
    });

    it('keeps no more than 16 budgets: a reader that names every announcement anew adds none after them', () => {
      const p = pace();
      p.announced(
        Array.from({ length: 16 }, (_, i) => named(`b${i}`, 100, 1000)),
        0,
        1,
      );
      p.announced(named('b16', 0, 1000), 10, 2);
      expect(p.nextStart(10, 2)).toBeLessThan(1000);
      p.announced(named('b15', 0, 1000), 20, 3);
      expect(p.nextStart(20, 3)).toBe(1000);
    });

    it('ignores, budget by budget, an announcement older than the latest one read', () => {
      const p = pace();
      p.announced([named('burst', 0, 1000), named('day', 9000, 80_000_000)], 0, 5);
      // Try 4's news is older for both.
      p.announced([named('burst', 9, 1000), named('day', 9001, 80_000_000)], 10, 4);
      expect(p.nextStart(10, 5)).toBe(1000);
    });
  });

  describe('a resumed run: hearFirst', () => {
    it('lets one try start to hear where the budget stands, and the rest wait for its answer, a second and a jitter at most', () => {
      const p = new AnnouncedBudget(() => 0.5);
      // The checkpoint's run started 5 tries; the resumed run's first is try 6.
      p.hearFirst(100, 5);
      const until = 100 + SECOND + 0.5 * JITTER_MS;
      expect(p.nextStart(100, 5)).toBe(100);
      expect(p.nextStart(100, 6)).toBe(until);
      expect(p.nextStart(until - 1, 6)).toBe(until);
      // No answer by then: the run goes on without one.
      expect(p.nextStart(until + 10, 6)).toBe(until + 10);
      expect(p.nextStart(until + 10, 7)).toBe(until + 10);
    });

    it("goes on once the first try answers, whether it announces the budget or not, and not on an older try's answer", () => {
      const announcing = pace();
      announcing.hearFirst(100, 5);
      expect(announcing.nextStart(100, 6)).toBe(1100);
      // Try 5 started before the resume: its answer is older news.
      announcing.announced(undefined, 110, 5);
      expect(announcing.nextStart(110, 6)).toBe(1100);
      // Try 6's answer: the rest go on at the budget's pace. Its first announcement measures 6 tries of
      // the 10 the window lost, a share of 0.6 in a first window: 60 % of half of 0.63 of 90, 17.01
      // tries, spread over a second from the last start, at 100.
      announcing.announced(budget(90, 1000, 100, 1000), 120, 6);
      expect(announcing.nextStart(120, 6)).toBeCloseTo(100 + SECOND / (MARGIN * 0.5 * (0.6 + PROBE) * 90 + 1), 6);

      const silent = pace();
      silent.hearFirst(100, 5);
      expect(silent.unannounced(5)).toBe(false);
      expect(silent.nextStart(110, 6)).toBe(1100);
      expect(silent.unannounced(6)).toBe(true);
      expect(silent.nextStart(120, 6)).toBe(120);
      // Heard once, it releases nothing more.
      expect(silent.unannounced(7)).toBe(false);
    });
  });
});

describe('OneBudget alone (contract §13)', () => {
  it('sets no limit before its first announcement, and an answer that announces nothing releases nothing then', () => {
    const one = new OneBudget(() => 0, 0, true);
    expect(one.nextStart(5, 3, 4)).toBe(5);
    expect(one.unannounced(4)).toBe(false);
    expect(one.nextStart(6, 4, 5)).toBe(6);
  });
});
