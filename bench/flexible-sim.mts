/**
 * rate-limiter-flexible's `BurstyRateLimiter`, as the real-limiters scenario runs it, simulated on one
 * RxJS `VirtualTimeScheduler`: ten clients, or one tab, against it, in seconds rather than the real
 * run's minutes. A tool for trying a change to a pace before measuring it for real, not a source of
 * figures: nothing in BENCHMARKS.md or the README comes from it.
 *
 * What it keeps of the real server: a window of one second that opens at the first request after the
 * last one expired; a burst budget of ten seconds that a request draws on once the window's is spent;
 * refused requests counted against both, as the library counts them; `Retry-After` as its README's
 * recipe sends it, `Math.round(msBeforeNext / 1000) || 1`; one request handled at a time, so that a
 * volley queues; a 429 answered at once, a success after a log-normal latency (median 30 ms, sigma 0.5).
 * Measured against the real runs: the tab's ratios within 0.01 of them, and the direction of every
 * `learnRate` variant tried for real so far; for ten clients its makespan ratios are higher than the
 * real ones (about 1.4 against 1.2 to 1.3 at 200 a second).
 *
 * `npx tsx bench/flexible-sim.mts [SEEDS]` prints, per setting and strategy, the medians over SEEDS
 * seeds (default 20) of the makespan and the 429s, and the medians of their ratios to the baseline.
 */
import { defer, from, map, mergeMap, retry, throwError, timer, VirtualTimeScheduler, type Observable } from 'rxjs';
import { median } from './harness.mjs';
import { is429, logNormalSource, TooManyRequestsError } from './rate-limited-server.mjs';
import { CLIENTS, CONCURRENCY, RATES, SECONDS_OF_WORK, TAB } from './scenarios/real-limiters.mjs';
import { retryAfter, slowStart } from './subject.mjs';
import { seededRandom } from './virtual-time.mjs';

/** How long the server takes to handle one request before its limiter decides, in ms. */
const HANDLING_MS = 0.3;
/** Loopback each way, in ms. */
const WIRE_MS = 0.2;

/** A fixed-window count: what a `RateLimiterMemory` keeps for one key. */
interface Window {
  count: number;
  expiresAt: number;
}

class BurstyLimiter {
  refused = 0;
  private window: Window = { count: 0, expiresAt: -Infinity };
  private burstWindow: Window = { count: 0, expiresAt: -Infinity };

  constructor(
    private readonly scheduler: VirtualTimeScheduler,
    private readonly rate: number,
    private readonly burst: number,
  ) {}

  /** Counts a request: `undefined` when it is accepted, else the `Retry-After` in seconds. */
  consume(): number | undefined {
    const now = this.scheduler.now();
    this.window = counted(this.window, now, 1000);
    if (this.window.count <= this.rate) return undefined;
    this.burstWindow = counted(this.burstWindow, now, 10_000);
    if (this.burstWindow.count <= this.burst) return undefined;
    this.refused++;
    return Math.round((Math.min(this.window.expiresAt, this.burstWindow.expiresAt) - now) / 1000) || 1;
  }
}

/** `window` with one more request at `now`, opened afresh if it had expired. */
function counted(window: Window, now: number, duration: number): Window {
  return window.expiresAt <= now ? { count: 1, expiresAt: now + duration } : { count: window.count + 1, expiresAt: window.expiresAt };
}

const STRATEGIES = ['baseline', 'retry', 'learn-rate'] as const;
type Strategy = (typeof STRATEGIES)[number];

interface Setting {
  label: string;
  rate: number;
  burst: number;
  clients: number;
  concurrency: number;
  tasksOf: (seed: number) => number;
}

/** One run of `strategy`: every client's stream subscribed at 0, the clock flushed to the end. */
function runOnce(strategy: Strategy, setting: Setting, seed: number): { makespan: number; refused: number } {
  const scheduler = new VirtualTimeScheduler(undefined, Infinity);
  const limiter = new BurstyLimiter(scheduler, setting.rate, setting.burst);
  const random = seededRandom(seed);
  /** When the server is done with the requests it has received. */
  let busyUntil = 0;
  const ends: number[] = [];
  const request = (latency: () => number) =>
    defer(() => {
      const decidedAt = Math.max(scheduler.now() + WIRE_MS, busyUntil) + HANDLING_MS;
      busyUntil = decidedAt;
      return timer(decidedAt - scheduler.now(), scheduler).pipe(
        mergeMap(() => {
          const wait = limiter.consume();
          if (wait !== undefined) return timer(WIRE_MS, scheduler).pipe(mergeMap(() => throwError(() => new TooManyRequestsError(wait))));
          return timer(latency() + WIRE_MS, scheduler).pipe(map(() => 1));
        }),
      );
    });
  const throttle = { when: (error: unknown) => (is429(error) ? (retryAfter(error) ?? 1000) : false), delay: 0, maxAttempts: 101 };
  const realRandom = Math.random;
  // `learnRate`'s jitter draws from `Math.random`: seeded here, so that a run repeats.
  Math.random = random;
  try {
    for (let client = 0; client < setting.clients; client++) {
      const latency = logNormalSource({ median: 30, sigma: 0.5, seed: seed * 100 + client });
      const factories = Array.from({ length: setting.tasksOf(seed) }, () => () => request(latency));
      const window = { pacing: 'window', maxBatchSize: setting.concurrency, scheduler } as const;
      const run: Observable<unknown> =
        strategy === 'baseline'
          ? from(factories).pipe(
              mergeMap(
                (task) => task().pipe(retry({ count: 100, delay: (error) => timer(retryAfter(error) ?? 1000, scheduler) })),
                setting.concurrency,
              ),
            )
          : slowStart(factories, { ...window, retry: strategy === 'learn-rate' ? { ...throttle, learnRate: true } : throttle });
      run.subscribe({ complete: () => ends.push(scheduler.now()) });
    }
    scheduler.flush();
  } finally {
    Math.random = realRandom;
  }
  if (ends.length !== setting.clients) throw new Error(`${strategy}: ${setting.clients - ends.length} clients did not complete`);
  return { makespan: Math.max(...ends), refused: limiter.refused };
}

const seeds = Number(process.argv[2] ?? 20);
if (!Number.isInteger(seeds) || seeds < 1)
  throw new Error(`usage: flexible-sim.mts [SEEDS], a whole number of seeds from 1; got ${process.argv[2]}`);
// The real-limiters scenario's settings: its flexible ones, and its tab. The real server's burst is half the rate.
const settings: Setting[] = [
  ...RATES.map((rate) => ({
    label: `flexible ${rate}/s`,
    rate,
    burst: Math.ceil(rate / 2),
    clients: CLIENTS,
    concurrency: CONCURRENCY,
    tasksOf: (seed: number) => Math.round((rate * SECONDS_OF_WORK[seed % SECONDS_OF_WORK.length]) / CLIENTS),
  })),
  { label: 'one tab', rate: TAB.rate, burst: TAB.burst, clients: 1, concurrency: TAB.concurrency, tasksOf: () => TAB.tasks },
];
for (const setting of settings) {
  const runs = new Map<Strategy, Array<{ makespan: number; refused: number }>>(STRATEGIES.map((s) => [s, []]));
  for (let seed = 1; seed <= seeds; seed++) for (const strategy of STRATEGIES) runs.get(strategy)?.push(runOnce(strategy, setting, seed));
  const baseline = runs.get('baseline') ?? [];
  for (const [strategy, own] of runs) {
    const ratio = (field: 'makespan' | 'refused') => median(own.map((run, i) => run[field] / Math.max(1, baseline[i][field])));
    console.log(
      `${setting.label.padEnd(16)} ${strategy.padEnd(10)} makespan ${median(own.map((r) => r.makespan)).toFixed(0)} ms (${ratio('makespan').toFixed(3)}), ` +
        `429s ${median(own.map((r) => r.refused))} (${ratio('refused').toFixed(3)})`,
    );
  }
}
