/**
 * Many workers on one API key, at the length users run: ten client processes with real `fetch` share one
 * budget for 20 s of its capacity a run, where the `real-limiters` scenario runs 3.5 to 4.5 s, too short
 * to see a client fall behind for good. Behind express-rate-limit (draft-8 headers on every answer) and
 * behind rate-limiter-flexible with its README's recipe (`X-RateLimit-*` on its 429s only), with the
 * `limiter` option on one RateLimiterRedis bucket of a real `redis-server` beside them; and one process
 * alone, as a browser tab, where the pace among many must cost nothing.
 */
import type { ChildProcess } from 'node:child_process';
import { format, median, progress, type Figure, type Scenario, type TargetResult } from '../harness.mjs';
import { startRedis } from '../http/redis-server.mjs';
import { Client, CLIENTS, CONCURRENCY, startServer, TAB, type Answer, type Stats } from './real-limiters.mjs';

const SECONDS_OF_WORK = 20;
const REPETITIONS = 3;
/** Time for every client to have its order before the instant they all begin. */
const START_MS = 500;

interface Run {
  readonly makespan: number;
  readonly spread: number;
  readonly refused: number;
  readonly completed: number;
}

/** What a strategy is held to, as ratios to the baseline's run beside it. */
interface Limits {
  readonly strategy: string;
  /** The configuration, as the targets name it. */
  readonly name: string;
  readonly makespan: number;
  readonly refused?: number;
  readonly spread?: number;
  /** The most 429s a run may draw (the median of the repetitions), as a count. */
  readonly refusals?: number;
}

interface Setting {
  readonly label: string;
  readonly kind: 'express' | 'flexible-429';
  readonly rate: number;
  /** How many client processes share the key, and how many tasks each has in flight. */
  readonly clients: number;
  readonly concurrency: number;
  readonly strategies: readonly string[];
  readonly limits: readonly Limits[];
}

/** Where the server announces its budget on every answer: the targets of the announced pace and of the shared bucket. */
const everyAnswer = (rate: number): Setting => ({
  label: `20 s at ${rate}/s, express`,
  kind: 'express',
  rate,
  clients: CLIENTS,
  concurrency: CONCURRENCY,
  strategies: ['baseline', 'rate-limit', 'rate-limit-learn', 'shared', 'shared-rate-limit'],
  limits: [
    { strategy: 'rate-limit', name: 'rateLimit', makespan: 1.1, refused: 0.05, spread: 2 },
    { strategy: 'rate-limit-learn', name: 'rateLimit and learnRate', makespan: 1.1, refused: 0.05, spread: 2 },
    { strategy: 'shared-rate-limit', name: 'the shared bucket and rateLimit', makespan: 1.05, refused: 0.01 },
  ],
});

/** Where the server announces its budget on its 429s only: no stall. */
const only429 = (rate: number): Setting => ({
  label: `20 s at ${rate}/s, flexible on its 429s only`,
  kind: 'flexible-429',
  rate,
  clients: CLIENTS,
  concurrency: CONCURRENCY,
  strategies: ['baseline', 'rate-limit'],
  limits: [{ strategy: 'rate-limit', name: 'rateLimit', makespan: 1.2 }],
});

/**
 * One process alone, as a browser tab has it (6 in flight), where the server announces its budget on
 * every answer: what the fair pace does among many clients must cost a client alone nothing.
 */
const alone: Setting = {
  label: `20 s at ${TAB.rate}/s, express, one process with ${TAB.concurrency} in flight`,
  kind: 'express',
  rate: TAB.rate,
  clients: 1,
  concurrency: TAB.concurrency,
  strategies: ['baseline', 'rate-limit', 'rate-limit-learn'],
  limits: [
    { strategy: 'rate-limit', name: 'rateLimit', makespan: 1.02, refusals: 0 },
    { strategy: 'rate-limit-learn', name: 'rateLimit and learnRate', makespan: 1.02, refusals: 0 },
  ],
};

const SETTINGS: readonly Setting[] = [everyAnswer(50), everyAnswer(200), only429(50), only429(200), alone];

/** The runs of each strategy of `setting`, in the order of the repetitions; the strategies take turns. */
async function compare(setting: Setting, redisPort: number): Promise<Map<string, Run[]>> {
  const { child, port } = await startServer(setting.kind, setting.rate);
  const base = `http://127.0.0.1:${port}`;
  const clients = Array.from({ length: setting.clients }, () => new Client());
  const runs = new Map<string, Run[]>(setting.strategies.map((strategy) => [strategy, []]));
  const tasks = (SECONDS_OF_WORK * setting.rate) / setting.clients;
  try {
    await Promise.all(clients.map((client) => client.ready));
    for (let rep = 0; rep < REPETITIONS; rep++) {
      for (const strategy of setting.strategies) {
        await fetch(`${base}/reset`, { method: 'POST' }).then((response) => response.arrayBuffer());
        const start = Date.now() + START_MS;
        const order = { url: `${base}/task`, strategy, tasks, start, concurrency: setting.concurrency, redisPort, rate: setting.rate };
        const answers: Answer[] = await Promise.all(clients.map((client) => client.run(order)));
        const stats = (await fetch(`${base}/stats`).then((response) => response.json())) as Stats;
        const finished = answers.map((answer) => answer.finishedAt - start);
        const run = {
          makespan: Math.max(...finished),
          spread: Math.max(...finished) - Math.min(...finished),
          refused: stats.refused,
          completed: answers.reduce((sum, answer) => sum + answer.completed, 0),
        };
        runs.get(strategy)!.push(run);
        progress(
          `${setting.label} ${strategy} #${rep + 1}: ${run.completed} done, ${run.refused} 429s, ${format.ms(run.makespan)}, spread ${format.ms(run.spread)}`,
        );
      }
    }
  } finally {
    for (const client of clients) client.close();
    child.kill('SIGTERM');
  }
  return runs;
}

/** The figures of `setting`'s strategies, and the targets its limits set. */
function report(setting: Setting, runs: Map<string, Run[]>): { figures: Figure[]; targets: TargetResult[] } {
  const at = (strategy: string) => runs.get(strategy) ?? [];
  const med = (strategy: string, field: keyof Run) => median(at(strategy).map((run) => run[field]));
  /** The median over the repetitions of the run against the baseline's run beside it. */
  const ratio = (strategy: string, field: keyof Run) =>
    median(at(strategy).map((run, rep) => run[field] / Math.max(1, at('baseline')[rep]![field])));
  const all = SECONDS_OF_WORK * setting.rate;
  const done = (strategy: string) => at(strategy).filter((run) => run.completed === all).length;
  const figures = setting.strategies.map((strategy) => ({
    label: `${setting.label}, ${strategy}`,
    value:
      `every task done in ${done(strategy)} of ${REPETITIONS} runs; makespan ${format.ms(med(strategy, 'makespan'))}, ` +
      `${format.ratio(ratio(strategy, 'makespan'))} of the baseline's; 429s ${format.count(med(strategy, 'refused'))}, ` +
      `${ratio(strategy, 'refused').toFixed(3)} of the baseline's; finish spread ${format.ms(med(strategy, 'spread'))}, ` +
      `${format.ratio(ratio(strategy, 'spread'))} of the baseline's`,
  }));
  const targets: TargetResult[] = [];
  for (const { strategy, name, ...limits } of setting.limits) {
    targets.push({
      description: `${setting.label}: runs in which every task completes with ${name}`,
      measured: format.count(done(strategy)),
      limit: `= ${REPETITIONS}`,
      met: done(strategy) === REPETITIONS,
    });
    for (const [field, limit, what] of [
      ['makespan', limits.makespan, 'makespan'],
      ['refused', limits.refused, '429s'],
      ['spread', limits.spread, 'finish spread'],
    ] as const) {
      if (limit === undefined) continue;
      const measured = ratio(strategy, field);
      targets.push({
        description: `${setting.label}: ${what}, ${name} / baseline`,
        measured: field === 'refused' ? measured.toFixed(3) : format.ratio(measured),
        limit: `<= ${limit}`,
        met: measured <= limit,
      });
    }
    if (limits.refusals !== undefined) {
      const refusals = med(strategy, 'refused');
      targets.push({
        description: `${setting.label}: 429s with ${name}`,
        measured: format.count(refusals),
        limit: `<= ${limits.refusals}`,
        met: refusals <= limits.refusals,
      });
    }
  }
  return { figures, targets };
}

export const manyWorkers: Scenario = {
  name: 'many-workers',
  title: 'Ten workers on one API key, 20 s of capacity a run',
  async run() {
    const redis: { child: ChildProcess; port: number } = await startRedis();
    const figures: Figure[] = [];
    const targets: TargetResult[] = [];
    try {
      for (const setting of SETTINGS) {
        const result = report(setting, await compare(setting, redis.port));
        figures.push(...result.figures);
        targets.push(...result.targets);
      }
    } finally {
      redis.child.kill('SIGTERM');
    }
    return {
      name: this.name,
      title: this.title,
      method:
        `${CLIENTS} client processes with real \`fetch\` on 127.0.0.1 share one API key, start at one instant and run ` +
        `${SECONDS_OF_WORK} s of the server's capacity between them (1,000 tasks at 50 a second, 4,000 at 200), ` +
        `${REPETITIONS} repetitions with the strategies taking turns; figures are medians, and ratios the median of each ` +
        `repetition's ratio to the baseline's run beside it. The server is express 5 with express-rate-limit (a fixed ` +
        `window of 1 s, draft-8 \`RateLimit\` headers on every answer), or rate-limiter-flexible with its README's recipe ` +
        `(\`Retry-After\` and \`X-RateLimit-*\` on a 429, nothing on a success), in front of a handler that sleeps a ` +
        `log-normal latency (median 30 ms). Per client: \`baseline\` is \`mergeMap(task, 16)\` with RxJS ` +
        `\`retry({ count: 100 })\` honouring \`Retry-After\`; the others are \`slowStart\` with window pacing, ` +
        `\`maxBatchSize: 16\` and \`retry\` waiting what the server asks: \`rate-limit\` with \`rateLimit: true\`, ` +
        `\`rate-limit-learn\` with \`learnRate\` too, \`shared\` with the \`limiter\` option on one RateLimiterRedis bucket ` +
        `of the server's rate on a real \`redis-server\`, and \`shared-rate-limit\` with both. The finish spread is the ` +
        `time from the first client done to the last. One process alone: a single client with ${TAB.concurrency} in flight, ` +
        `as a browser tab has to one host (\`mergeMap(task, ${TAB.concurrency})\` for the baseline, \`maxBatchSize: ` +
        `${TAB.concurrency}\` for ours), runs ${SECONDS_OF_WORK * TAB.rate} tasks behind express-rate-limit at ${TAB.rate} a second.`,
      figures,
      targets,
    };
  },
};
