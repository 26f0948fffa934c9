// The `rateLimit` option (§13): starts paced by the budget a server announces, in virtual time,
// against a fake server with a fixed window. The real limiters are in the benchmark.
import { from, map, Observable, timer } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import { retryAfter, slowStart, slowStartBatch, type RateLimitState, type SlowStartEvent, type TaskFactory } from '../../src/index.js';
import { errorsReportedLater } from '../support/helpers.js';

/** An epoch time part of the way through a second (ms): where the wall clock stands at virtual time 0 when a server announces epoch resets. */
const EPOCH_MS = 1_796_148_223_400;

/** When the fake server's day ends: its quota a day is reset then, and every 86,400 s after. */
const DAY_ENDS = 80_000_000;

/**
 * A server that lets `limit` requests through in each window of 1,000 ms, and says so on every response.
 * With `quota`, it also lets `day` requests through a day, of which `dayLeft` are left in the day that
 * ends at {@link DAY_ENDS}, and announces both budgets.
 */
function fixedWindowServer(now: () => number, limit: number, quota?: { day: number; dayLeft: number }) {
  const counts = new Map<number, number>();
  const servedOnDay = new Map<number, number>();
  const refused: number[] = [];
  const served: number[] = [];
  const dayOf = (at: number) => (at < DAY_ENDS ? 0 : 1 + Math.floor((at - DAY_ENDS) / 86_400_000));
  const dayLeft = () =>
    quota === undefined ? Infinity : (dayOf(now()) === 0 ? quota.dayLeft : quota.day) - (servedOnDay.get(dayOf(now())) ?? 0);
  const headers = (remaining: number) => {
    const reset = Math.ceil((1000 - (now() % 1000)) / 1000);
    const burst = {
      RateLimit: `"${limit}-in-1sec"; r=${remaining}; t=${reset}`,
      'RateLimit-Policy': `"${limit}-in-1sec"; q=${limit}; w=1`,
    };
    if (quota === undefined) return new Headers(burst);
    const dayReset = Math.ceil((DAY_ENDS + dayOf(now()) * 86_400_000 - now()) / 1000);
    return new Headers({
      RateLimit: `${burst.RateLimit}, "day"; r=${dayLeft()}; t=${dayReset}`,
      'RateLimit-Policy': `${burst['RateLimit-Policy']}, "day"; q=${quota.day}; w=86400`,
    });
  };
  /** A request that takes 10 ms; the server counts it as it arrives. */
  const request = (): Observable<{ status: number; headers: Headers }> =>
    new Observable((subscriber) => {
      const window = Math.floor(now() / 1000);
      const count = (counts.get(window) ?? 0) + 1;
      counts.set(window, count);
      const refuse = count > limit || dayLeft() <= 0;
      if (!refuse) servedOnDay.set(dayOf(now()), (servedOnDay.get(dayOf(now())) ?? 0) + 1);
      const answer = refuse ? { status: 429, headers: headers(0) } : { status: 200, headers: headers(limit - count) };
      (refuse ? refused : served).push(now());
      return timer(10).subscribe(() => {
        if (answer.status === 429) {
          subscriber.error(answer);
          return;
        }
        subscriber.next(answer);
        subscriber.complete();
      });
    });
  return { request, refused, served };
}

/**
 * A server that lets `limit` requests through in each window of 1,000 ms and announces the budget on its
 * 429s only, as rate-limiter-flexible's README recipe has it: `Retry-After` and `X-RateLimit-*` on a
 * 429 (`Retry-After` to the millisecond), nothing on a success. Its windows begin on the clock's
 * seconds, and its reset is seconds left, rounded up. With `asFlexible`, they are as rate-limiter-flexible
 * and the recipe have them: a window begins at the first request after the last one ended, and the
 * reset is a time since the epoch in seconds, rounded up, with the virtual clock's 0 at {@link EPOCH_MS}.
 */
function announcesOnlyOn429Server(now: () => number, limit: number, asFlexible = false) {
  const counts = new Map<number, number>();
  const refused: number[] = [];
  const served: number[] = [];
  /** When the current window began. */
  let windowStart = -Infinity;
  /** A request that takes 10 ms; the server counts it as it arrives. */
  const request = (): Observable<{ status: number; headers: Headers }> =>
    new Observable((subscriber) => {
      if (now() >= windowStart + 1000) windowStart = asFlexible ? now() : Math.floor(now() / 1000) * 1000;
      const count = (counts.get(windowStart) ?? 0) + 1;
      counts.set(windowStart, count);
      const msBeforeNext = windowStart + 1000 - now();
      const answer =
        count > limit
          ? {
              status: 429,
              headers: new Headers({
                'Retry-After': String(msBeforeNext / 1000),
                'X-RateLimit-Limit': String(limit),
                'X-RateLimit-Remaining': '0',
                'X-RateLimit-Reset': String(Math.ceil(((asFlexible ? EPOCH_MS + now() : 0) + msBeforeNext) / 1000)),
              }),
            }
          : { status: 201, headers: new Headers() };
      (count > limit ? refused : served).push(now());
      return timer(10).subscribe(() => {
        if (answer.status === 429) {
          subscriber.error(answer);
          return;
        }
        subscriber.next(answer);
        subscriber.complete();
      });
    });
  return { request, refused, served };
}

/**
 * Runs `tasks` requests against a server of `limit` a second (5 unless said), and a quota a day if
 * given, with `options`, in virtual time.
 */
function runAgainstServer(tasks: number, options: { rateLimit?: boolean }, limit = 5, quota?: { day: number; dayLeft: number }) {
  const scheduler = new TestScheduler(() => {});
  let result = { served: [] as number[], refused: [] as number[], paused: [] as SlowStartEvent[], done: 0 };
  scheduler.run(({ flush }) => {
    const server = fixedWindowServer(() => scheduler.now(), limit, quota);
    const paused: SlowStartEvent[] = [];
    let done = 0;
    const factories: TaskFactory<unknown>[] = Array.from({ length: tasks }, () => server.request);
    slowStart(factories, {
      pacing: 'window',
      retry: { when: (error) => (error as { status: number }).status === 429, maxAttempts: 20, delay: 1000 },
      events: (e) => {
        if (e.type === 'paused') paused.push(e);
      },
      ...options,
    }).subscribe((r) => (done += r.size));
    flush();
    result = { served: server.served, refused: server.refused, paused, done };
  });
  return result;
}

/**
 * Runs a task for each of `answers`, two at first, each answered after `at` ms with a budget of `left`
 * for a second (or none), and returns when each started and the rate-limit pauses reported. The tasks
 * come from an array given to `slowStart`, or with `observable` through `slowStartBatch` from an
 * observable that says nothing of its length.
 */
function pausesOf(answers: ReadonlyArray<{ at: number; left?: number }>, observable = false) {
  const scheduler = new TestScheduler(() => {});
  const starts: number[] = [];
  const pauses: string[] = [];
  scheduler.run(({ flush }) => {
    const tasks = answers.map(({ at, left }) => () => {
      starts.push(scheduler.now());
      return timer(at).pipe(map(() => ({ left })));
    });
    const rateLimit = (value: unknown) => {
      const left = (value as { left?: number } | undefined)?.left;
      return left === undefined ? undefined : { limit: undefined, remaining: left, resetIn: 1000, window: undefined };
    };
    const options = {
      pacing: 'window' as const,
      initialBatchSize: 2,
      rateLimit,
      events: (e: SlowStartEvent) => {
        if (e.type === 'paused') pauses.push(`${e.time} until ${e.until} (${e.cause})`);
      },
    };
    (observable ? from(tasks).pipe(slowStartBatch(options)) : slowStart(tasks, options)).subscribe();
    flush();
  });
  return { starts, pauses };
}

describe('rateLimit (contract §13)', () => {
  beforeEach(() => jest.spyOn(Math, 'random').mockReturnValue(0));
  afterEach(() => jest.restoreAllMocks());

  it('spends what a server announces before its reset: no request refused, where the run without it draws 429s', () => {
    const paced = runAgainstServer(12, { rateLimit: true });
    const unpaced = runAgainstServer(12, {});
    expect(paced.done).toBe(12);
    expect(unpaced.done).toBe(12);
    expect(paced.refused).toEqual([]);
    expect(unpaced.refused.length).toBeGreaterThan(0);
    // At most 5 in any window of the server's.
    const perWindow = new Map<number, number>();
    for (const at of paced.served) perWindow.set(Math.floor(at / 1000), (perWindow.get(Math.floor(at / 1000)) ?? 0) + 1);
    expect(Math.max(...perWindow.values())).toBeLessThanOrEqual(5);
    expect(paced.paused.every((e) => e.type === 'paused' && e.cause === 'rate limit')).toBe(true);
    // The first request, answered at 10, says 4 are left. In the first window 30 % of what each answer
    // says is left may go: 1.2 of 4, then 0.9 of 3, not a try; 2 of the window's 5, the second spread
    // over the first 30 % of the time to the reset, as a client that sees no other spreads (303 ms,
    // in 2.2 parts). Then nothing until the reset announced with the first answer (at 10, for 1 s),
    // and one try to hear the new window. The share is surer with every window, 45 % of it in the
    // second and 52.5 % in the third: 3 of 5, spread, and then 2.1 of the 4 its answer at 3040 says are
    // left, where the run has 2 tries still to start: they fit, and start at once.
    expect(paced.served.map(Math.round)).toEqual([0, 138, 1010, 1118, 1233, 2020, 2118, 2224, 2342, 3030, 3040, 3040]);
  });

  it('keeps within each budget a server announces: a burst a second and a quota a day draw no more 429s than the burst alone', () => {
    // The burst binds now, the day's quota in the long run: 9,000 of 10,000 left for 80,000 s is
    // fewer a second than 10 a second.
    const both = runAgainstServer(60, { rateLimit: true }, 10, { day: 10_000, dayLeft: 9000 });
    const burstAlone = runAgainstServer(60, { rateLimit: true }, 10);
    expect(both.done).toBe(60);
    expect(burstAlone.done).toBe(60);
    expect(burstAlone.refused).toEqual([]);
    expect(both.refused).toEqual([]);
    expect(both.served).toEqual(burstAlone.served);
  });

  it('keeps within a quota a day that binds before the burst does: no more than it has left before its reset', () => {
    const run = runAgainstServer(30, { rateLimit: true }, 10, { day: 10_000, dayLeft: 12 });
    // At most the 12 left before the day's reset, 80,000 s on; the rest after it, and none refused.
    expect(run.refused).toEqual([]);
    const beforeReset = run.served.filter((at) => at < DAY_ENDS).length;
    expect(beforeReset).toBeGreaterThan(0);
    expect(beforeReset).toBeLessThanOrEqual(12);
    expect(run.done).toBe(30);
  });

  /** 200 requests against {@link announcesOnlyOn429Server} of 20 a second, with `rateLimit` or not, in virtual time. */
  const runAgainstRecipe = (rateLimit: boolean, asFlexible = false) => {
    const scheduler = new TestScheduler(() => {});
    let result = { served: [] as number[], refused: [] as number[], done: 0, end: 0 };
    scheduler.run(({ flush }) => {
      const server = announcesOnlyOn429Server(() => scheduler.now(), 20, asFlexible);
      let done = 0;
      let end = 0;
      // The reader measures an epoch reset against the wall clock: it follows the virtual one.
      if (asFlexible) jest.spyOn(Date, 'now').mockImplementation(() => EPOCH_MS + scheduler.now());
      slowStart(
        Array.from({ length: 200 }, () => server.request),
        {
          pacing: 'window',
          maxBatchSize: 16,
          rateLimit,
          retry: {
            when: (error) => ((error as { status: number }).status === 429 ? (retryAfter(error) ?? 1000) : false),
            delay: 0,
            maxAttempts: 100,
          },
        },
      ).subscribe({ next: (r) => (done += r.size), complete: () => (end = scheduler.now()) });
      flush();
      jest.restoreAllMocks();
      result = { served: server.served, refused: server.refused, done, end };
    });
    return result;
  };

  it('does not stall behind a server that announces its budget only on its 429s: an answer that announces nothing releases the hold', () => {
    const paced = runAgainstRecipe(true);
    const unpaced = runAgainstRecipe(false);
    expect(paced.done).toBe(200);
    expect(unpaced.done).toBe(200);
    // 200 requests at 20 a second take 10 windows at the least. Held a window's length after each
    // reset, the run drew about one a second once the first 429 came.
    expect(paced.end).toBeLessThan(15_000);
    expect(paced.end / unpaced.end).toBeLessThan(1.5);
    expect(paced.refused.length).toBeLessThanOrEqual(unpaced.refused.length);
  });

  it('resumes a spent budget when its 429 says to retry, not at its reset rounded up to the second', () => {
    // A window begins at the first request after the last one ended, and a 429 announces its reset in
    // epoch seconds, rounded up: half a second late on average. Held until then, the run starts every
    // window late; the window that it opens ends later still, and is announced later again.
    const paced = runAgainstRecipe(true, true);
    const unpaced = runAgainstRecipe(false, true);
    expect(paced.done).toBe(200);
    expect(paced.end).toBeLessThanOrEqual(unpaced.end * 1.05);
    expect(paced.refused.length).toBeLessThanOrEqual(unpaced.refused.length);
  });

  it('changes nothing while no response announces a budget', () => {
    const startsWith = (rateLimit: boolean) => {
      const scheduler = new TestScheduler(() => {});
      const starts: number[] = [];
      scheduler.run(({ flush }) => {
        const tasks = Array.from({ length: 20 }, (_, i) => () => {
          starts.push(scheduler.now());
          return timer(i % 3);
        });
        slowStart(tasks, { pacing: 'window', rateLimit }).subscribe();
        flush();
      });
      return starts;
    };
    expect(startsWith(true)).toEqual(startsWith(false));
  });

  it('takes a spent budget whose reset has hundreds of digits for the malformed announcement it is: it holds nothing', () => {
    const startsWith = (rateLimit: boolean) => {
      const scheduler = new TestScheduler(() => {});
      const starts: number[] = [];
      scheduler.run(({ flush }) => {
        const headers = new Headers({ 'RateLimit-Remaining': '0', 'RateLimit-Reset': '9'.repeat(400) });
        const tasks = Array.from({ length: 6 }, () => () => {
          starts.push(scheduler.now());
          return timer(10).pipe(map(() => ({ status: 200, headers })));
        });
        slowStart(tasks, { pacing: 'window', rateLimit }).subscribe();
        flush();
      });
      return starts;
    };
    expect(startsWith(true)).toEqual([0, 10, 10, 20, 20, 20]);
    expect(startsWith(true)).toEqual(startsWith(false));
  });

  it('waits for a reset further away than a timer can hold in steps, never asking a timer for more than 2^31 - 1 ms', () => {
    const scheduler = new TestScheduler(() => {});
    const starts: number[] = [];
    const delays: number[] = [];
    // A month and more: a quota per month spent by the first try.
    const resetIn = 3_000_000_000;
    scheduler.run(({ flush }) => {
      const tasks = Array.from({ length: 2 }, () => () => {
        starts.push(scheduler.now());
        return timer(10);
      });
      const recording = {
        now: () => scheduler.now(),
        schedule: ((work, delay, state) => {
          delays.push(delay ?? 0);
          return scheduler.schedule(work, delay, state);
        }) as typeof scheduler.schedule,
      };
      slowStart(tasks, {
        pacing: 'window',
        scheduler: recording,
        rateLimit: () => ({ limit: undefined, remaining: 0, resetIn, window: undefined }),
      }).subscribe();
      flush();
    });
    expect(starts).toEqual([0, 10 + resetIn]);
    // A longer delay fires after about 1 ms in browsers and Node: a timer that fires at once, again and again.
    expect(Math.max(...delays)).toBe(2 ** 31 - 1);
  });

  it('a reader that throws reads nothing: its error goes to config.onUnhandledError, and the run goes on', async () => {
    const failure = new Error('reader failed');
    let done = 0;
    const reported = await errorsReportedLater(async () => {
      await new Promise<void>((resolve) => {
        slowStart([async () => 1, async () => 2], {
          rateLimit: () => {
            throw failure;
          },
        }).subscribe({ next: (r) => (done += r.size), complete: resolve });
      });
    });
    expect(done).toBe(2);
    expect(reported).toEqual([failure, failure]);
  });

  it('reads through a function of its own: a budget in the body, say', () => {
    const scheduler = new TestScheduler(() => {});
    const starts: number[] = [];
    scheduler.run(({ flush }) => {
      const tasks = Array.from({ length: 3 }, () => () => {
        starts.push(scheduler.now());
        return timer(10).pipe(map(() => ({ quota: { left: 0 } })));
      });
      const rateLimit = (value: unknown) => {
        const left = (value as { quota?: { left: number } } | undefined)?.quota?.left;
        return left === undefined ? undefined : { limit: undefined, remaining: left, resetIn: 100, window: undefined };
      };
      slowStart(tasks, { pacing: 'window', rateLimit }).subscribe();
      flush();
    });
    // The first start, at 0, is answered at 10: nothing left until 110. Then one try, answered the same.
    expect(starts).toEqual([0, 110, 220]);
  });

  it('reads several budgets from a function of its own, and ignores one that is malformed or contradicts itself', () => {
    const startsWith = (budgets: unknown) => {
      const scheduler = new TestScheduler(() => {});
      const starts: number[] = [];
      scheduler.run(({ flush }) => {
        const tasks = Array.from({ length: 3 }, () => () => {
          starts.push(scheduler.now());
          return timer(10);
        });
        slowStart(tasks, { pacing: 'window', rateLimit: () => budgets as RateLimitState[] }).subscribe();
        flush();
      });
      return starts;
    };
    const spent = (resetIn: number) => ({ limit: undefined, remaining: 0, resetIn, window: undefined });
    // Each holds: the later reset binds.
    expect(startsWith([spent(100), spent(200)])).toEqual([0, 210, 420]);
    expect(startsWith(spent(100))).toEqual([0, 110, 220]);
    // A reset that is not a finite number, more remaining than the limit, a negative count, a name that
    // is not a string, and what is no budget at all are ignored, never thrown.
    const malformed = [
      spent(Infinity),
      spent(NaN),
      { ...spent(100), limit: -1 },
      { ...spent(100), remaining: 5, limit: 4 },
      { ...spent(100), name: 7 },
      { ...spent(100), window: 1e12 },
      null,
      'spent',
    ];
    expect(startsWith(malformed)).toEqual([0, 10, 10]);
    expect(startsWith([...malformed, spent(100)])).toEqual([0, 110, 220]);
  });

  it('reports a hold once: an announcement that leaves it where it was reports no pause', () => {
    // Both first tries start at 0 and say nothing is left: the first, answered at 10, until 1010; the
    // second, answered at 20 in the same window, until the same reset, which reports nothing. After
    // the reset one try hears the new window, and its answer moves the hold again.
    const { starts, pauses } = pausesOf([
      { at: 10, left: 0 },
      { at: 20, left: 0 },
      { at: 1, left: 0 },
    ]);
    expect(starts).toEqual([0, 0, 1010]);
    expect(pauses).toEqual(['10 until 1010 (rate limit)', '1010 until 2010 (rate limit)', '1011 until 2011 (rate limit)']);
  });

  it('brings a hold forward when a newer announcement allows: the pause reported ends then', () => {
    // Both first tries start at 0: the first says nothing is left for a second, the second, answered
    // at 50, that the next window has 10: 4.5 of them the run's in a second window, spread over the
    // first 30 % of the time to its reset from the last start, at 0 (315 ms, in 5.5 parts), while the
    // run has more tries to start than that. Then tries with nothing to say.
    const { starts, pauses } = pausesOf([{ at: 10, left: 0 }, { at: 50, left: 10 }, ...Array<{ at: number }>(5).fill({ at: 1 })]);
    expect(starts.slice(0, 4).map(Math.round)).toEqual([0, 0, 57, 123]);
    expect(pauses.slice(0, 2)).toEqual(['10 until 1010 (rate limit)', `50 until ${315 / 5.5} (rate limit)`]);
    // With 2 tries still to start, they fit in the 4.5: both start on the answer that allows them.
    const fewer = pausesOf([{ at: 10, left: 0 }, { at: 50, left: 10 }, { at: 1 }, { at: 1 }]);
    expect(fewer.starts).toEqual([0, 0, 50, 50]);
    expect(fewer.pauses.slice(0, 2)).toEqual(['10 until 1010 (rate limit)', '50 until 50 (rate limit)']);
  });

  it('counts the tries left of a source that has completed, though it never said its length: those that fit start at once', () => {
    const answers = [{ at: 10, left: 0 }, { at: 50, left: 10 }, { at: 1 }, { at: 1 }];
    expect(pausesOf(answers, true)).toEqual(pausesOf(answers));
    // With more tries left than fit, they are spread, as an array's are.
    const more = [{ at: 10, left: 0 }, { at: 50, left: 10 }, ...Array<{ at: number }>(5).fill({ at: 1 })];
    expect(pausesOf(more, true).starts.slice(0, 4).map(Math.round)).toEqual([0, 0, 57, 123]);
  });
});
