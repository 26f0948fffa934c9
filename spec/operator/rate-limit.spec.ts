// The `rateLimit` option (§13): starts paced by the budget a server announces, in virtual time,
// against a fake server with a fixed window. The real limiters are in the benchmark.
import { map, Observable, timer } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import { slowStart, type SlowStartEvent, type TaskFactory } from '../../src/index.js';
import { errorsReportedLater } from '../support/helpers.js';

/** A server that lets `limit` requests through in each window of 1,000 ms, and says so on every response. */
function fixedWindowServer(now: () => number, limit: number) {
  const counts = new Map<number, number>();
  const refused: number[] = [];
  const served: number[] = [];
  const headers = (remaining: number) => {
    const reset = Math.ceil((1000 - (now() % 1000)) / 1000);
    return new Headers({
      RateLimit: `"${limit}-in-1sec"; r=${remaining}; t=${reset}`,
      'RateLimit-Policy': `"${limit}-in-1sec"; q=${limit}; w=1`,
    });
  };
  /** A request that takes 10 ms; the server counts it as it arrives. */
  const request = (): Observable<{ status: number; headers: Headers }> =>
    new Observable((subscriber) => {
      const window = Math.floor(now() / 1000);
      const count = (counts.get(window) ?? 0) + 1;
      counts.set(window, count);
      const answer = count > limit ? { status: 429, headers: headers(0) } : { status: 200, headers: headers(limit - count) };
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

/** Runs `tasks` requests against a server of 5 a second, with `options`, in virtual time. */
function runAgainstServer(tasks: number, options: { rateLimit?: boolean }) {
  const scheduler = new TestScheduler(() => {});
  let result = { served: [] as number[], refused: [] as number[], paused: [] as SlowStartEvent[], done: 0 };
  scheduler.run(({ flush }) => {
    const server = fixedWindowServer(() => scheduler.now(), 5);
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
 * for a second (or none), and returns when each started and the rate-limit pauses reported.
 */
function pausesOf(answers: ReadonlyArray<{ at: number; left?: number }>) {
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
    slowStart(tasks, {
      pacing: 'window',
      initialBatchSize: 2,
      rateLimit,
      events: (e) => {
        if (e.type === 'paused') pauses.push(`${e.time} until ${e.until} (${e.cause})`);
      },
    }).subscribe();
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
    // The first request, answered at 10, says 4 are left. In the first window 35 % of what each answer
    // says is left may go, as fast as the pace grows: 1.4 of 4, then 1.05 of 3, then 0.7 of 2, not a
    // try. 3 of the window's 5. Then nothing until the reset announced with the first answer (at 10,
    // for 1 s), and one try to hear the new window. The share is surer with every window, 52.5 % of
    // it in the second and 61.25 % in the third: 4 of 5 in each.
    expect(paced.served).toEqual([0, 10, 20, 1010, 1020, 1020, 1030, 2020, 2030, 2030, 2040, 3030]);
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
    // at 50, that the next window has 10. Then tries with nothing to say.
    const { starts, pauses } = pausesOf([{ at: 10, left: 0 }, { at: 50, left: 10 }, { at: 1 }, { at: 1 }]);
    expect(starts).toEqual([0, 0, 50, 50]);
    expect(pauses).toEqual(['10 until 1010 (rate limit)', '50 until 50 (rate limit)']);
  });
});
