/**
 * One client process of the `real-limiters` scenario, kept for every run of a server so that process
 * start-up stays out of the runs. Each line on stdin is a run: `{"url","strategy","tasks","start",
 * "concurrency"}`; the client makes `tasks` requests to `url` with real `fetch` by `strategy`, starting
 * at `start` (ms since the epoch, so that every client starts at one instant), and prints
 * `{"completed":N,"finishedAt":T,"firstSecond":F,"unheard":U,"firstHeardAfter":H,"completedAt":[...]}` (F:
 * the tasks completed in the run's first second; U: the 429s drawn by tries sent before the client heard
 * its first; H: how long that first 429 took to come back, in ms, or null without one; then when each
 * task completed, in ms after `start`),
 * after a first line `{"ready":true}` once it can take orders. A run gives up after 120 s; stdin's end
 * ends the process. The `shared` strategies take `redisPort` and `rate` in the order: one bucket of
 * `rate` a second on that Redis server (rate-limiter-flexible's RateLimiterRedis), fresh for each run,
 * that every client's starts wait for through the `limiter` option.
 */
import { createInterface } from 'node:readline';
import { Redis } from 'ioredis';
import { RateLimiterRedis } from 'rate-limiter-flexible';
import { defer, from, lastValueFrom, mergeMap, retry, takeUntil, timer, type Observable } from 'rxjs';
import type { Answer } from '../scenarios/real-limiters.mjs';
import { fromRateLimiterFlexible, retryAfter, slowStart } from '../subject.mjs';

const DEADLINE_MS = 120_000;

interface Order {
  url: string;
  strategy: string;
  tasks: number;
  start: number;
  concurrency: number;
  redisPort?: number;
  rate?: number;
}

/** One connection to the Redis server of the `shared` strategies, made on the first order that names one. */
let redis: Redis | undefined;

const is429 = (error: unknown) => error instanceof Response && error.status === 429;
/** What careful users write: wait what the server asks, or a second. */
const serverDelay = (error: unknown) => timer(retryAfter(error) ?? 1000);
/** The same waits for ours: what the server asks, or a second, and no backoff of its own on top. */
const throttle = { when: (error: unknown) => (is429(error) ? (retryAfter(error) ?? 1000) : false), delay: 0, maxAttempts: 101 };

async function runOrder({ url, strategy, tasks, start, concurrency, redisPort, rate }: Order): Promise<Answer> {
  /** Tasks that succeeded: each succeeds once, whatever the tries it took. */
  let completed = 0;
  /** When each of them completed, in ms after the run's start. */
  const completedAt: number[] = [];
  /** When the client heard its first 429, and how long after sending that try. */
  let firstHeardAt: number | undefined;
  let firstHeardAfter: number | null = null;
  /** 429s to tries sent before the first was heard: nothing the client learns from a 429 could spare them. */
  let unheard = 0;
  /** A request; a 429 (or any other failure) is thrown as the Response, which carries its headers. */
  const request = async (): Promise<Response> => {
    const sentAt = performance.now();
    const response = await fetch(url);
    if (response.status === 429 && (firstHeardAt === undefined || sentAt < firstHeardAt)) {
      unheard++;
      if (firstHeardAt === undefined) {
        firstHeardAt = performance.now();
        firstHeardAfter = firstHeardAt - sentAt;
      }
    }
    await response.arrayBuffer();
    if (!response.ok) throw response;
    completed++;
    completedAt.push(Date.now() - start);
    return response;
  };
  const factories = Array.from({ length: tasks }, () => request);
  const window = { pacing: 'window', maxBatchSize: concurrency } as const;
  const merged = (retries: number) =>
    from(factories).pipe(mergeMap((task) => defer(task).pipe(retry({ count: retries, delay: serverDelay })), concurrency));
  const strategies: Record<string, () => Observable<unknown>> = {
    /** `mergeMap(task, N)` with RxJS `retry` honouring `Retry-After`, up to 100 retries. */
    baseline: () => merged(100),
    /** The same, giving up after 8 retries: what loses tasks. */
    'gives-up': () => merged(8),
    retry: () => slowStart(factories, { ...window, retry: throttle }),
    'learn-rate': () => slowStart(factories, { ...window, retry: { ...throttle, learnRate: true } }),
    'rate-limit': () => slowStart(factories, { ...window, retry: throttle, rateLimit: true }),
    'rate-limit-learn': () => slowStart(factories, { ...window, retry: { ...throttle, learnRate: true }, rateLimit: true }),
    shared: () => slowStart(factories, { ...window, retry: throttle, limiter: sharedBucket() }),
    'shared-rate-limit': () => slowStart(factories, { ...window, retry: throttle, limiter: sharedBucket(), rateLimit: true }),
  };
  /** The run's bucket: every client of the run consumes from the same key, named by the run's start. */
  function sharedBucket() {
    if (redisPort === undefined || rate === undefined) throw new Error(`${strategy} needs redisPort and rate`);
    redis ??= new Redis({ host: '127.0.0.1', port: redisPort });
    const bucket = new RateLimiterRedis({ storeClient: redis, points: rate, duration: 1, keyPrefix: `bench-${start}` });
    return fromRateLimiterFlexible(bucket, 'shared');
  }
  const run = strategies[strategy];
  if (run === undefined) throw new Error(`unknown strategy ${strategy}`);
  await new Promise((resolve) => setTimeout(resolve, Math.max(0, start - Date.now())));
  /** What the run completed in its first second, the window in which every client ramps up. */
  let firstSecond: number | undefined;
  const mark = setTimeout(() => (firstSecond = completed), 1000);
  // A run that gives up errors: what it completed is counted all the same.
  await lastValueFrom(run().pipe(takeUntil(timer(DEADLINE_MS))), { defaultValue: undefined }).catch(() => undefined);
  clearTimeout(mark);
  return { completed, finishedAt: Date.now(), firstSecond: firstSecond ?? completed, unheard, firstHeardAfter, completedAt };
}

process.stdout.write('{"ready":true}\n');
for await (const line of createInterface({ input: process.stdin })) {
  process.stdout.write(`${JSON.stringify(await runOrder(JSON.parse(line) as Order))}\n`);
}
redis?.disconnect();
