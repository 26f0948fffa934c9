/**
 * The `limiter` option: a bucket many runs share, that every try waits for before its factory is
 * called; and `fromRateLimiterFlexible()`, its adapter for rate-limiter-flexible (here its in-memory
 * limiter; CI runs the Redis one across processes, `npm run shared-limiter-test`).
 */
import { lastValueFrom, Observable, timer, map, VirtualTimeScheduler } from 'rxjs';
import { RateLimiterMemory } from 'rate-limiter-flexible';
import {
  fromRateLimiterFlexible,
  slowStart,
  type SlowStartEvent,
  type StartLimiter,
  type TaskContext,
  type TaskFactory,
  type RateLimitState,
} from '../../src/index';
import { errorsReportedLater } from '../support/helpers.js';

/** A bucket of `size` starts a window of `window` ms on `scheduler`'s clock, answering at once: what a shared store would. */
function bucket(scheduler: VirtualTimeScheduler, size: number, window: number): StartLimiter & { granted: number[] } {
  const granted: number[] = [];
  return {
    granted,
    take() {
      const now = scheduler.now();
      const start = Math.floor(now / window) * window;
      if (granted.filter((at) => at >= start).length < size) {
        granted.push(now);
        return 0;
      }
      return start + window - now;
    },
  };
}

/** `count` tasks of `ms` each on `scheduler`, recording when each factory is called. */
function tasks(scheduler: VirtualTimeScheduler, count: number, ms: number, called: number[]): TaskFactory<number>[] {
  return Array.from({ length: count }, (_, index) => () => {
    called.push(scheduler.now());
    return timer(ms, scheduler).pipe(map(() => index));
  });
}

describe('the limiter option', () => {
  it('calls no factory before the limiter grants its start: two runs share one bucket of 5 a second', () => {
    const scheduler = new VirtualTimeScheduler();
    const limiter = bucket(scheduler, 5, 1000);
    const called: number[] = [];
    const done: number[] = [];
    for (let run = 0; run < 2; run++) {
      slowStart(tasks(scheduler, 10, 10, called), { pacing: 'window', scheduler, limiter }).subscribe({ complete: () => done.push(run) });
    }
    scheduler.flush();
    expect(done).toEqual(expect.arrayContaining([0, 1]));
    expect(called).toHaveLength(20);
    // No window of the bucket saw more than 5 factories called.
    const perWindow = new Map<number, number>();
    for (const at of called) perWindow.set(Math.floor(at / 1000), (perWindow.get(Math.floor(at / 1000)) ?? 0) + 1);
    expect(Math.max(...perWindow.values())).toBe(5);
    expect([...perWindow.keys()]).toEqual([0, 1, 2, 3]);
  });

  it('reports a try started as it begins to wait; its duration counts the wait', () => {
    const scheduler = new VirtualTimeScheduler();
    let asked = 0;
    const limiter: StartLimiter = { take: () => (++asked === 1 ? 300 : 0) };
    const events: SlowStartEvent[] = [];
    slowStart(tasks(scheduler, 1, 10, []), { scheduler, limiter, events: (event) => events.push(event) }).subscribe();
    scheduler.flush();
    expect(events.find((event) => event.type === 'started')).toMatchObject({ time: 0 });
    expect(events.find((event) => event.type === 'succeeded')).toMatchObject({ time: 310, duration: 310 });
  });

  it('fails the try with what the limiter throws or rejects, or with a TypeError for an answer that is no wait', async () => {
    const scheduler = new VirtualTimeScheduler();
    const reasons: unknown[] = [];
    const failing = (limiter: StartLimiter) =>
      slowStart([() => [1]], { scheduler, limiter }).subscribe({
        error: (error: unknown) => reasons.push((error as { cause: unknown }).cause),
      });
    failing({
      take: () => {
        throw new Error('store down');
      },
    });
    failing({ take: () => Promise.reject(new Error('store unreachable')) });
    failing({ take: () => -1 });
    failing({ take: () => Promise.resolve('soon' as unknown as number) });
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(reasons).toEqual([
      new Error('store down'),
      new TypeError('Expected `limiter.take()` to be answering 0 or the milliseconds to wait, or a promise of them, got -1 (number)'),
      new Error('store unreachable'),
      new TypeError('Expected `limiter.take()` to be answering 0 or the milliseconds to wait, or a promise of them, got "soon" (string)'),
    ]);
  });

  it.each([
    ['at once', () => 0],
    ['later', () => Promise.resolve(0)],
  ])('tears a task down when the subscriber leaves, its start granted %s', async (_, take) => {
    const torn: number[] = [];
    const signals: AbortSignal[] = [];
    const running = (index: number) => (context: TaskContext) =>
      new Observable<number>(() => {
        signals.push(context.signal);
        return () => torn.push(index);
      });
    const subscription = slowStart([running(0), running(1)], { initialBatchSize: 2, limiter: { take } }).subscribe();
    await Promise.resolve();
    await Promise.resolve();
    expect([torn, signals.length]).toEqual([[], 2]);
    subscription.unsubscribe();
    expect(torn).toEqual([0, 1]);
    expect(signals.map((signal) => signal.aborted)).toEqual([true, true]);
  });

  it('fails the try with what its factory throws once the limiter granted its start later', async () => {
    const thrown = new Error('factory');
    const limiter = { take: () => Promise.resolve(0) };
    const failing = () => {
      throw thrown;
    };
    for (const factory of [failing, 'not a function']) {
      const error = await lastValueFrom(slowStart([factory as TaskFactory<number>], { limiter })).catch((e: unknown) => e);
      const reason = (error as { cause?: unknown }).cause;
      if (factory === failing) expect(reason).toBe(thrown);
      else
        expect(reason).toEqual(
          new TypeError('Expected `tasks[0]` to be a function returning an ObservableInput, got "not a function" (string)'),
        );
    }
  });

  it('stops waiting when the subscriber leaves: nothing is called, nothing stays scheduled', () => {
    const scheduler = new VirtualTimeScheduler();
    let asked = 0;
    const called: number[] = [];
    const subscription = slowStart(tasks(scheduler, 3, 10, called), { scheduler, limiter: { take: () => (++asked, 500) } }).subscribe();
    scheduler.maxFrames = 1200;
    scheduler.flush();
    subscription.unsubscribe();
    expect([asked, called]).toEqual([3, []]);
    expect(scheduler.actions).toHaveLength(0);
  });

  it('is checked when called', () => {
    expect(() => slowStart([], { limiter: {} as StartLimiter })).toThrow(
      new TypeError('Expected `limiter` to be a StartLimiter (an object with `take()`) or undefined, got an object (object)'),
    );
    // An object: a function that carries a `take` is not one, and neither is null.
    const take = () => 0;
    for (const limiter of [Object.assign(() => undefined, { take }), null]) {
      expect(() => slowStart([], { limiter: limiter as never })).toThrow(
        /^Expected `limiter` to be a StartLimiter \(an object with `take\(\)`\) or undefined, got /,
      );
    }
  });
});

describe('fromRateLimiterFlexible()', () => {
  it("grants what the limiter's points allow, and waits what a refusal's msBeforeNext says, and 10 ms more", async () => {
    const limiter = fromRateLimiterFlexible(new RateLimiterMemory({ points: 2, duration: 1 }), 'api');
    const answers = [await limiter.take(), await limiter.take(), await limiter.take()];
    expect(answers.slice(0, 2)).toEqual([0, 0]);
    expect(answers[2]).toBeGreaterThan(910);
    expect(answers[2]).toBeLessThanOrEqual(1010);
  });

  it('asks again afterReset ms after the reset: 0 or more, finite', async () => {
    const refusing = (afterReset: unknown) =>
      fromRateLimiterFlexible({ consume: () => Promise.reject({ msBeforeNext: 100 }) }, 'api', { afterReset } as never).take();
    await expect(refusing(undefined)).resolves.toBe(110);
    await expect(refusing(0)).resolves.toBe(100);
    await expect(refusing(0.5)).resolves.toBe(101);
    await expect(refusing(250)).resolves.toBe(350);
    for (const [afterReset, got] of [
      [-1, '-1 (number)'],
      [Number.NaN, 'NaN (number)'],
      [Infinity, 'Infinity (number)'],
      ['5', '"5" (string)'],
      [null, 'null (null)'],
    ] as const) {
      expect(() => refusing(afterReset)).toThrow(new TypeError(`Expected \`afterReset\` to be a finite number of ms >= 0, got ${got}`));
    }
    const limiter = { consume: () => Promise.resolve() };
    for (const [options, got] of [
      [null, 'null (null)'],
      [10, '10 (number)'],
    ] as const) {
      expect(() => fromRateLimiterFlexible(limiter, 'api', options as never)).toThrow(
        new TypeError(`Expected \`options\` to be an object or undefined, got ${got}`),
      );
    }
    expect(() => fromRateLimiterFlexible(limiter, 'api', undefined)).not.toThrow();
  });

  it("fails with the store's own error, and refuses what is not a limiter", async () => {
    const broken = fromRateLimiterFlexible({ consume: () => Promise.reject(new Error('ECONNREFUSED')) }, 'api');
    await expect(broken.take()).rejects.toThrow('ECONNREFUSED');
    expect(() => fromRateLimiterFlexible({} as never, 'api')).toThrow(
      new TypeError('Expected `limiter` to be a rate-limiter-flexible limiter (an object with `consume()`), got an object (object)'),
    );
    expect(() => fromRateLimiterFlexible(null as never, 'api')).toThrow(
      new TypeError('Expected `limiter` to be a rate-limiter-flexible limiter (an object with `consume()`), got null (null)'),
    );
  });

  it('reads a refusal as a wait only when its msBeforeNext is a number of 0 or more, and waits at least 1 ms', async () => {
    const refusing = (refusal: unknown) =>
      fromRateLimiterFlexible({ consume: () => Promise.reject(refusal) }, 'api', { afterReset: 0 }).take();
    await expect(refusing({ msBeforeNext: 0 })).resolves.toBe(1);
    await expect(refusing({ msBeforeNext: 12.2 })).resolves.toBe(13);
    for (const refusal of [null, { msBeforeNext: -1 }, { msBeforeNext: '5' }, { msBeforeNext: Number.NaN }]) {
      await expect(refusing(refusal)).rejects.toBe(refusal);
    }
  });
});

describe('fromRateLimiterFlexible() with rateFromServer: the bucket takes its rate from the policy announced', () => {
  /** A bucket that grants every start, with the points and duration rate-limiter-flexible's limiters have. */
  const grantingBucket = (points: number, duration: number) => ({ points, duration, consume: () => Promise.resolve() });
  /** Tasks whose answers carry `headers`; the first answers at once, the others after it. */
  const answering = (headers: Record<string, string>, count = 3) =>
    Array.from({ length: count }, () => () => Promise.resolve(new Response(null, { status: 201, headers })));
  const burstAndDay = {
    'ratelimit-policy': '"burst";q=12;w=1, "day";q=10000;w=86400',
    ratelimit: '"burst";r=11;t=1, "day";r=9999;t=80000',
  };
  const run = (limiter: StartLimiter, headers: Record<string, string>, rateLimit = true) =>
    lastValueFrom(slowStart(answering(headers), { limiter, rateLimit }), { defaultValue: undefined });

  it("sets the bucket's points to what the policy of the shortest window allows over the bucket's duration", async () => {
    const bucket = grantingBucket(2, 1);
    await run(fromRateLimiterFlexible(bucket, 'api', { rateFromServer: true }), burstAndDay);
    expect(bucket.points).toBe(12);
    // A bucket of 2 s takes twice the policy's second; 30 in 20 s is 3 in its 2 s.
    const twoSeconds = grantingBucket(2, 2);
    await run(fromRateLimiterFlexible(twoSeconds, 'api', { rateFromServer: true }), burstAndDay);
    expect(twoSeconds.points).toBe(24);
    await run(fromRateLimiterFlexible(twoSeconds, 'api', { rateFromServer: true }), {
      'ratelimit-policy': '"slow";q=30;w=20',
      ratelimit: '"slow";r=29;t=20',
    });
    expect(twoSeconds.points).toBe(3);
    // A policy below one start a window still leaves the bucket one.
    await run(fromRateLimiterFlexible(twoSeconds, 'api', { rateFromServer: true }), {
      'ratelimit-policy': '"hour";q=60;w=3600',
      ratelimit: '"hour";r=59;t=3000',
    });
    expect(twoSeconds.points).toBe(1);
  });

  it('takes the shortest window, in any order, and of two such the smaller; a budget without a limit or a window counts for nothing', () => {
    const bucket = grantingBucket(2, 1);
    const limiter = fromRateLimiterFlexible(bucket, 'api', { rateFromServer: true });
    const announced = (budgets: RateLimitState[]) => limiter.announced!(budgets);
    const budget = (limit: number | undefined, window: number | undefined) => ({ limit, remaining: 0, resetIn: 500, window });
    announced([budget(10_000, 86_400_000), budget(12, 1000)]);
    expect(bucket.points).toBe(12);
    announced([budget(20, 1000), budget(9, 1000), budget(30, 1000)]);
    expect(bucket.points).toBe(9);
    announced([budget(undefined, 500), budget(7, 0), budget(7, undefined), budget(40, 2000)]);
    expect(bucket.points).toBe(20);
  });

  it('reads the policy without the rateLimit option too, and with a reader of its own', async () => {
    const bucket = grantingBucket(2, 1);
    await run(fromRateLimiterFlexible(bucket, 'api', { rateFromServer: true }), burstAndDay, false);
    expect(bucket.points).toBe(12);
    const ownReader = (outcome: unknown) =>
      outcome instanceof Response ? { limit: 30, remaining: 3, resetIn: 700, window: 1000, name: 'own' } : undefined;
    await lastValueFrom(
      slowStart(answering(burstAndDay), {
        limiter: fromRateLimiterFlexible(bucket, 'api', { rateFromServer: true }),
        rateLimit: ownReader,
      }),
      { defaultValue: undefined },
    );
    expect(bucket.points).toBe(30);
  });

  it('tells the limiter nothing of an answer that announces no budget, from the headers or from a reader of its own', async () => {
    const heard: unknown[] = [];
    const limiter: StartLimiter = { take: () => 0, announced: (budgets) => heard.push(budgets) };
    await run(limiter, {});
    await run(limiter, {}, false);
    // A reader may answer anything at run time: a budget without `remaining` or `resetIn` counts for nothing.
    for (const answer of [undefined, [], [{ limit: 1 }]] as RateLimitState[][]) {
      await lastValueFrom(slowStart(answering({}), { limiter, rateLimit: () => answer }), { defaultValue: undefined });
    }
    expect(heard).toEqual([]);
    await run(limiter, burstAndDay);
    expect(heard).toHaveLength(3);
  });

  it('leaves the points as they are without a window announced, or without rateFromServer, and reports nothing', async () => {
    const legacy = { 'x-ratelimit-limit': '12', 'x-ratelimit-remaining': '11', 'x-ratelimit-reset': '1' };
    const bucket = grantingBucket(2, 1);
    const plain = fromRateLimiterFlexible(bucket, 'api');
    const reported = await errorsReportedLater(async () => {
      await run(fromRateLimiterFlexible(bucket, 'api', { rateFromServer: true }), legacy);
      await run(fromRateLimiterFlexible(bucket, 'api', { rateFromServer: true }), legacy, false);
      await run(fromRateLimiterFlexible(bucket, 'api', { rateFromServer: true }), {});
      await run(fromRateLimiterFlexible(bucket, 'api', { rateFromServer: true }), {}, false);
      await run(plain, burstAndDay);
      await run(plain, burstAndDay, false);
    });
    expect(reported).toEqual([]);
    expect(bucket.points).toBe(2);
    expect('announced' in plain).toBe(false);
  });

  it("tells a StartLimiter's announced() each announcement read, and sends what it throws to onUnhandledError", async () => {
    const heard: unknown[] = [];
    let completed = false;
    const reported = await errorsReportedLater(async () => {
      const limiter: StartLimiter = {
        take: () => 0,
        announced(budgets) {
          heard.push(budgets.map((budget) => budget.name));
          throw new Error('announced');
        },
      };
      await run(limiter, burstAndDay);
      completed = true;
    });
    expect(completed).toBe(true);
    expect(heard).toEqual([
      ['burst', 'day'],
      ['burst', 'day'],
      ['burst', 'day'],
    ]);
    expect(reported.map((error) => (error as Error).message)).toEqual(['announced', 'announced', 'announced']);
  });

  it('is checked when called: a boolean, on a limiter with numeric points and duration', () => {
    expect(() => fromRateLimiterFlexible(grantingBucket(2, 1), 'api', { rateFromServer: 'yes' } as never)).toThrow(
      new TypeError('Expected `rateFromServer` to be a boolean or undefined, got "yes" (string)'),
    );
    const badDuration = { ...grantingBucket(2, 1), duration: '1' };
    for (const limiter of [
      { consume: () => Promise.resolve() },
      grantingBucket(2, 0),
      { ...grantingBucket(2, 1), points: '2' },
      badDuration,
    ]) {
      expect(() => fromRateLimiterFlexible(limiter as never, 'api', { rateFromServer: true })).toThrow(
        new TypeError(
          'Expected `limiter` to be a limiter with numeric `points` and `duration` (rateFromServer sets its points), got an object (object)',
        ),
      );
      expect(() => fromRateLimiterFlexible(limiter as never, 'api', { rateFromServer: false })).not.toThrow();
    }
  });
});

describe('the limiter option, with several tries waiting', () => {
  it('asks for one start at a time, in the order the tries started: a later try never goes first', () => {
    const scheduler = new VirtualTimeScheduler();
    const answers = [300, 0, 0, 0];
    const limiter: StartLimiter = { take: () => answers.shift() ?? 0 };
    const called: number[] = [];
    const order: number[] = [];
    const factories = tasks(scheduler, 3, 10, called).map((factory, index) => (context: TaskContext) => {
      order.push(index);
      return factory(context);
    });
    slowStart(factories, { pacing: 'window', initialBatchSize: 3, scheduler, limiter }).subscribe();
    scheduler.flush();
    // The first waited 300 ms; the others waited behind it, though the limiter would have let them go.
    expect([order, called]).toEqual([
      [0, 1, 2],
      [300, 300, 300],
    ]);
  });

  it('fails the tries still waiting when the run stops, without calling them; they are left to run again', () => {
    const scheduler = new VirtualTimeScheduler();
    let asked = 0;
    // The first start is granted at once; then the bucket is spent for a second.
    const limiter: StartLimiter = { take: () => (asked++ === 0 ? 0 : 1000) };
    const called: number[] = [];
    const failing: TaskFactory<number> = () => {
      called.push(0);
      return timer(5, scheduler).pipe(
        map(() => Number.NaN),
        map(() => {
          throw new Error('403');
        }),
      );
    };
    const rest = tasks(scheduler, 2, 10, called);
    let error: { results: { status: string; reason?: unknown }[]; unfinished: unknown[] } | undefined;
    slowStart([failing, ...rest], { pacing: 'window', initialBatchSize: 3, scheduler, limiter }).subscribe({
      error: (reason: unknown) => (error = reason as typeof error),
    });
    scheduler.flush();
    expect(called).toEqual([0]);
    expect(error?.results.map((result) => result.status)).toEqual(['rejected', 'rejected', 'rejected']);
    expect(error?.results[1].reason).toEqual(new Error('The run stopped before the limiter granted this try its start'));
    expect(error?.unfinished).toHaveLength(3);
    expect(scheduler.actions).toHaveLength(0);
  });
});
