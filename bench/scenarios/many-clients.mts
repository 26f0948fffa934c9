import { defer, from, map, mergeMap, retry, timer, VirtualTimeScheduler, type Observable } from 'rxjs';
import { format, progress, type Figure, type Scenario, type TargetResult } from '../harness.mjs';
import { is429, logNormalSource, RateLimitedServer, type ServerOptions } from '../rate-limited-server.mjs';
import { retryAfter, slowStart } from '../subject.mjs';
import { seededRandom } from '../virtual-time.mjs';
// Not re-exported by subject.mts (yet): read from the same sources.

const CLIENTS = 10;
const TASKS_PER_CLIENT = 1_000;
const TASKS = CLIENTS * TASKS_PER_CLIENT;
/** Requests per second the server accepts. */
const RATES = [100, 1_000] as const;
/** The bucket holds one second's worth of requests and starts full. */
const BURST_SECONDS = 1;
const MEDIAN_MS = 50;
const SIGMA = 0.5;
const LATENCY_SEED = 21;
const JITTER_SEED = 4_021;
/**
 * `learnRate` lengthens each throttle's pause by a draw of `Math.random`: during a run it draws from a
 * PRNG with this seed, so that the figures of our side repeat exactly too.
 */
const PAUSE_JITTER_SEED = 8_021;
/**
 * Further runs with every seed moved by each of these, to show the figures are not those of one draw of
 * latencies and jitter: the targets are judged on the first run, the spread is reported.
 */
const OTHER_SEED_SHIFTS = [1_000, 2_000, 3_000, 4_000, 5_000];
/** Fixed concurrency of the baseline, per client. */
const BASELINE_CONCURRENCY = 16;
/** Retries per task on the baseline; tries per task are one more. Enough that no task runs out. */
const BASELINE_RETRIES = 100;
/** Tries per task on our side: the baseline's, first try included. */
const MAX_ATTEMPTS = BASELINE_RETRIES + 1;
const BACKOFF_BASE_MS = 1_000;
const BACKOFF_CAP_MS = 30_000;
/** Targets from the issue: ours / baseline. */
const MAX_429_RATIO = 0.25;
const MAX_MAKESPAN_RATIO = 1.2;

/** `ours` learns the rate (`retry.learnRate`); `ours-alone` is §10's pace alone, for comparison. */
type Side = 'baseline' | 'ours' | 'ours-alone';

/**
 * Exponential backoff before retry `attempt` (1 for the first): 1 s doubling, capped at 30 s, times a
 * seeded jitter uniform in [0.5, 1.5).
 */
function backoff(random: () => number): (attempt: number) => number {
  return (attempt) => Math.min(BACKOFF_CAP_MS, BACKOFF_BASE_MS * 2 ** (attempt - 1)) * (0.5 + random());
}

interface ClientRun {
  completedTasks: number;
  /** Virtual ms at which the client's stream completed or errored; NaN if it did neither. */
  ended: number;
  error: unknown;
}

interface SideRun {
  throttled: number;
  /** 429s drawn in the first second, when every client ramps up against the full bucket. */
  throttledFirstSecond: number;
  accepted: number;
  /** Virtual ms when the last client ended. */
  makespan: number;
  completedTasks: number;
  /** Clients whose stream errored (a task out of tries) or never ended. */
  failedClients: number;
  /** Most tries any one task took. */
  maxTries: number;
  /** accepted / (rate * makespan). */
  capacityShare: number;
}

/** One client's stream of completed-task counts, on the given side. */
function client(
  side: Side,
  server: RateLimitedServer,
  scheduler: VirtualTimeScheduler,
  index: number,
  tries: number[],
  seedShift: number,
): Observable<number> {
  const latency = logNormalSource({ median: MEDIAN_MS, sigma: SIGMA, seed: LATENCY_SEED + seedShift + index });
  const delay = backoff(seededRandom(JITTER_SEED + seedShift + index));
  const offset = index * TASKS_PER_CLIENT;
  // Counted on subscription: RxJS's retry subscribes again to the observable the factory returned.
  const tasks = Array.from(
    { length: TASKS_PER_CLIENT },
    (_, i) => () =>
      defer(() => {
        tries[offset + i]++;
        return server.request(i, latency);
      }),
  );
  switch (side) {
    case 'baseline':
      return from(tasks).pipe(
        mergeMap(
          (task) =>
            task().pipe(
              retry({
                count: BASELINE_RETRIES,
                // What careful users write: wait what the server asks, backing off only without an answer.
                delay: (error: unknown, retryCount) => {
                  if (!is429(error)) throw error;
                  return timer(retryAfter(error) ?? delay(retryCount), scheduler);
                },
              }),
            ),
          BASELINE_CONCURRENCY,
        ),
        map(() => 1),
      );
    case 'ours':
    case 'ours-alone':
      return slowStart(tasks, {
        pacing: 'window',
        maxBatchSize: BASELINE_CONCURRENCY,
        scheduler,
        retry: {
          learnRate: side === 'ours',
          when: (error) => (is429(error) ? (retryAfter(error) ?? true) : false),
          maxAttempts: MAX_ATTEMPTS,
          delay: (attempt) => delay(attempt),
        },
      }).pipe(map((result) => result.size));
  }
}

/** Subscribes every client on one virtual clock, runs the clock out, and unsubscribes them. */
function runClients(
  side: Side,
  server: RateLimitedServer,
  scheduler: VirtualTimeScheduler,
  tries: number[],
  clients: ClientRun[],
  seedShift: number,
): void {
  const subscriptions = Array.from({ length: CLIENTS }, (_, index) => {
    const run: ClientRun = { completedTasks: 0, ended: NaN, error: undefined };
    clients.push(run);
    return client(side, server, scheduler, index, tries, seedShift).subscribe({
      next: (count) => (run.completedTasks += count),
      error: (error: unknown) => {
        run.error = error;
        run.ended = scheduler.now();
      },
      complete: () => (run.ended = scheduler.now()),
    });
  });
  scheduler.flush();
  for (const subscription of subscriptions) subscription.unsubscribe();
}

/** Every client at once against one fresh server on one fresh virtual clock. */
function runSide(side: Side, rate: number, seedShift = 0): SideRun {
  const scheduler = new VirtualTimeScheduler();
  const options: ServerOptions = { rate, burst: rate * BURST_SECONDS };
  const server = new RateLimitedServer(scheduler, options);
  const tries = new Array<number>(TASKS).fill(0);
  const clients: ClientRun[] = [];
  const random = Math.random;
  Math.random = seededRandom(PAUSE_JITTER_SEED + seedShift);
  try {
    runClients(side, server, scheduler, tries, clients, seedShift);
  } finally {
    Math.random = random;
  }
  const makespan = Math.max(...clients.map((run) => (Number.isNaN(run.ended) ? scheduler.now() : run.ended)));
  const completedTasks = clients.reduce((sum, run) => sum + run.completedTasks, 0);
  if (clients.every((run) => run.error === undefined) && server.accepted !== completedTasks)
    throw new Error(`Sanity check failed: ${side} at ${rate}/s: ${server.accepted} requests accepted, ${completedTasks} tasks completed`);
  return {
    throttled: server.throttled,
    throttledFirstSecond: server.throttledAt.filter((at) => at < 1_000).length,
    accepted: server.accepted,
    makespan,
    completedTasks,
    failedClients: clients.filter((run) => run.error !== undefined || Number.isNaN(run.ended)).length,
    maxTries: Math.max(...tries),
    capacityShare: server.accepted / ((rate * makespan) / 1000),
  };
}

/** The ratios of ours to the baseline with every seed shifted, as `min to max` over the shifts. */
function spreadOverOtherSeeds(rate: number): Figure[] {
  const runs = OTHER_SEED_SHIFTS.map((shift) => ({ baseline: runSide('baseline', rate, shift), ours: runSide('ours', rate, shift) }));
  const range = (values: number[]) => `${ratio(Math.min(...values))} to ${ratio(Math.max(...values))}`;
  const where = `on ${OTHER_SEED_SHIFTS.length} other seeds`;
  return [
    { label: `${rate}/s: 429s, ours / baseline, ${where}`, value: range(runs.map((r) => r.ours.throttled / r.baseline.throttled)) },
    { label: `${rate}/s: makespan, ours / baseline, ${where}`, value: range(runs.map((r) => r.ours.makespan / r.baseline.makespan)) },
    {
      label: `${rate}/s: runs in which ours completes every task, ${where}`,
      value: `${runs.filter((r) => r.ours.completedTasks === TASKS && r.ours.failedClients === 0).length} of ${runs.length}`,
    },
  ];
}

const seconds = (ms: number): string => `${(ms / 1000).toFixed(1)} s`;
/** Three decimals: the 429 ratio can sit right at the limit of 0.25. */
const ratio = (value: number): string => value.toFixed(3);
const percent = (share: number): string => `${(share * 100).toFixed(1)} %`;

function sideFigures(label: string, rate: number, run: SideRun): Figure[] {
  return [
    { label: `${rate}/s, ${label}: 429s drawn`, value: format.count(run.throttled) },
    { label: `${rate}/s, ${label}: 429s drawn in the first second`, value: format.count(run.throttledFirstSecond) },
    { label: `${rate}/s, ${label}: share of the server's capacity used`, value: percent(run.capacityShare) },
    { label: `${rate}/s, ${label}: makespan`, value: seconds(run.makespan) },
    { label: `${rate}/s, ${label}: tasks completed`, value: `${format.count(run.completedTasks)} of ${format.count(TASKS)}` },
    { label: `${rate}/s, ${label}: clients that failed`, value: format.count(run.failedClients) },
    { label: `${rate}/s, ${label}: most tries for one task`, value: format.count(run.maxTries) },
  ];
}

/**
 * Many clients with no coordinator against one rate limit: what users write today (fixed concurrency and
 * RxJS's per-task `retry` with exponential backoff) against `slowStart` with window pacing and `retry`
 * honouring `Retry-After`. Virtual time: the figures are the same on every machine.
 */
export const manyClients: Scenario = {
  name: 'many-clients',
  title: 'Many clients, one rate limit',
  async run() {
    const figures: Figure[] = [];
    const targets: TargetResult[] = [];
    for (const rate of RATES) {
      const floor = ((TASKS - rate * BURST_SECONDS) / rate) * 1000;
      figures.push({ label: `${rate}/s: least makespan the bucket allows`, value: seconds(floor) });
      const baseline = runSide('baseline', rate);
      progress(
        `${rate}/s, baseline: ${baseline.throttled} 429s, makespan ${seconds(baseline.makespan)}, ` +
          `${baseline.completedTasks} tasks completed, capacity ${percent(baseline.capacityShare)}`,
      );
      const ours = runSide('ours', rate);
      progress(
        `${rate}/s, ours: ${ours.throttled} 429s, makespan ${seconds(ours.makespan)}, ` +
          `${ours.completedTasks} tasks completed, capacity ${percent(ours.capacityShare)}`,
      );
      const alone = runSide('ours-alone', rate);
      const throttledRatio = ours.throttled / baseline.throttled;
      const makespanRatio = ours.makespan / baseline.makespan;
      figures.push(
        ...sideFigures('baseline', rate, baseline),
        ...sideFigures('ours', rate, ours),
        { label: `${rate}/s: 429s, ours / baseline`, value: ratio(throttledRatio) },
        { label: `${rate}/s: makespan, ours / baseline`, value: ratio(makespanRatio) },
        { label: `${rate}/s: capacity used, ours / baseline`, value: ratio(ours.capacityShare / baseline.capacityShare) },
        // What learning the rate adds: §10's pace alone, on the same clients.
        { label: `${rate}/s, ours without learnRate: 429s drawn`, value: format.count(alone.throttled) },
        { label: `${rate}/s: 429s, ours without learnRate / baseline`, value: ratio(alone.throttled / baseline.throttled) },
        { label: `${rate}/s: makespan, ours without learnRate / baseline`, value: ratio(alone.makespan / baseline.makespan) },
        {
          label: `${rate}/s, ours without learnRate: tasks completed`,
          value: `${format.count(alone.completedTasks)} of ${format.count(TASKS)}`,
        },
        ...spreadOverOtherSeeds(rate),
      );
      for (const [label, run] of [
        ['baseline', baseline],
        ['ours', ours],
      ] as const) {
        targets.push({
          description: `every task completes, ${label}, ${rate}/s`,
          measured: format.count(run.completedTasks),
          limit: `= ${format.count(TASKS)}`,
          met: run.completedTasks === TASKS && run.failedClients === 0,
        });
      }
      targets.push(
        {
          description: `429s drawn, ours / baseline, ${rate}/s`,
          measured: ratio(throttledRatio),
          limit: `<= ${MAX_429_RATIO}`,
          met: throttledRatio <= MAX_429_RATIO,
        },
        {
          description: `makespan, ours / baseline, ${rate}/s`,
          measured: ratio(makespanRatio),
          limit: `<= ${MAX_MAKESPAN_RATIO}`,
          met: makespanRatio <= MAX_MAKESPAN_RATIO,
        },
      );
    }
    return {
      name: this.name,
      title: this.title,
      method:
        `${CLIENTS} independent clients, ${format.count(TASKS_PER_CLIENT)} tasks each, all starting at virtual time 0 ` +
        `against one simulated server on one RxJS \`VirtualTimeScheduler\`. The server is a token bucket refilled at ` +
        `${RATES.join(' or ')} requests per second, holding ${BURST_SECONDS} second's worth of tokens and full at the ` +
        'start; a request takes a token when it is made (on subscription), or else is answered 429 with ' +
        '`Retry-After` = the seconds until the bucket next holds a token, rounded up to a whole second (so at least ' +
        '1; a token is never more than 1 / rate away, so it is always 1 s here), readable through ' +
        '`error.headers.get("Retry-After")`. The 429 comes at once, as real limiters answer it; a success after the ' +
        `request's latency, log-normal with median ${MEDIAN_MS} ms and σ ${SIGMA}, drawn per request from a PRNG seeded per client ` +
        `(${LATENCY_SEED} + client). Baseline, per client: \`from(tasks).pipe(mergeMap(task => task().pipe(retry({ ` +
        `count: ${BASELINE_RETRIES}, delay: (error, n) => timer(retryAfter(error) ?? backoff(n), scheduler) })), ${BASELINE_CONCURRENCY}))\`, ` +
        `backoff(n) = min(${BACKOFF_CAP_MS / 1000} s, ${BACKOFF_BASE_MS / 1000} s × 2^(n-1)) × a jitter uniform in ` +
        `[0.5, 1.5) from a PRNG seeded per client (${JITTER_SEED} + client): it honours \`Retry-After\`, and backs off only without one. ` +
        `Ours, per client: \`slowStart(tasks, { pacing: 'window', maxBatchSize: ${BASELINE_CONCURRENCY}, scheduler, retry: { learnRate: true, when: error => is429(error) ? ` +
        `(retryAfter(error) ?? true) : false, maxAttempts: ${MAX_ATTEMPTS}, delay: backoff } })\`, the same seeded ` +
        'backoff as the baseline, so a pause is the longer of it and `Retry-After`; `maxBatchSize` is the ' +
        "baseline's concurrency, so that both sides have the same cap on what is in flight. `learnRate` lengthens each " +
        `throttle's pause by up to 5 % drawn from \`Math.random\`, which draws from a PRNG seeded per run (${PAUSE_JITTER_SEED}) while it runs. ` +
        "'Ours without learnRate' is the same with `learnRate: false`: §10's pace alone. " +
        'Makespan: virtual time when the last client ends. Capacity used: requests accepted / (rate × makespan); ' +
        'the full bucket at the start lets it exceed 100 % slightly. The targets are judged on the seeds above; the ' +
        `same comparison with every seed shifted by ${OTHER_SEED_SHIFTS.join(', ')} gives the spread reported.`,
      figures,
      targets,
    };
  },
};
