/**
 * `npx tsx bench/announced-on-429.mts [RATES] [SECONDS] [REPETITIONS]`: `rateLimit: true` behind a server that
 * announces its budget on its 429s only, over real HTTP on 127.0.0.1. The real-limiters scenario's
 * server (`http/limiter-server.mts`, kind `flexible-429`: rate-limiter-flexible with its README's recipe,
 * `Retry-After` and `X-RateLimit-*` on a 429 and nothing on a success) and its ten client processes with
 * real `fetch`, each running `slowStart` with window pacing, `retry` honouring `Retry-After`, and
 * `rateLimit: true` (the scenario's `rate-limit` strategy), beside the same without `rateLimit`
 * (`retry`). For each rate (comma-separated, requests a second; 50,200 by default), the clients share
 * SECONDS (4 by default) of the server's capacity, and the requests a second they drew are printed
 * against the limit, run by run (the two strategies alternate, REPETITIONS times, 3 by default, after a
 * run of each on a second of capacity that warms the processes up and is not counted), then their medians. Bounded: a client gives up a run after 120 s, and the script ends after 15 minutes.
 * It measures nothing for the report; `npm run bench` does.
 */
import { median } from './harness.mjs';
import { CLIENTS, CONCURRENCY, Client, runClients, startServer } from './scenarios/real-limiters.mjs';

const usage = 'usage: announced-on-429.mts [RATES] [SECONDS] [REPETITIONS]';
const [ratesArg = '50,200', secondsArg = '4', repetitionsArg = '3'] = process.argv.slice(2);
const rates = ratesArg.split(',').map(Number);
if (rates.some((rate) => !Number.isInteger(rate) || rate < CLIENTS || rate > 1000)) {
  throw new Error(`${usage}: RATES are whole numbers of requests a second from ${CLIENTS} to 1000; got ${ratesArg}`);
}
const seconds = Number(secondsArg);
if (!(seconds > 0 && seconds <= 20)) throw new Error(`${usage}: SECONDS is from 0 to 20; got ${secondsArg}`);
const repetitions = Number(repetitionsArg);
if (!Number.isInteger(repetitions) || repetitions < 1 || repetitions > 9) {
  throw new Error(`${usage}: REPETITIONS is a whole number from 1 to 9; got ${repetitionsArg}`);
}

/** Whatever happens, nothing outlives this: a run that stalls is what the script is there to show. */
const LIFETIME_MS = 15 * 60_000;
setTimeout(() => {
  console.error('announced-on-429: out of time');
  process.exit(1);
}, LIFETIME_MS).unref();

const STRATEGIES = ['rate-limit', 'retry'] as const;

/** One run's figures: what was done, in how long, and what the server counted. */
interface Figures {
  completed: number;
  makespan: number;
  served: number;
  refused: number;
}

for (const rate of rates) {
  const { child, port } = await startServer('flexible-429', rate);
  const clients = Array.from({ length: CLIENTS }, () => new Client());
  const tasks = Math.round((rate * seconds) / CLIENTS);
  const runs = new Map<string, Figures[]>(STRATEGIES.map((strategy) => [strategy, []]));
  /** Requests a second over a run's makespan. */
  const perSecond = (count: number, makespan: number) => count / (makespan / 1000);
  const line = (strategy: string, { completed, makespan, served, refused }: Figures) =>
    `flexible-429 ${rate}/s, ${strategy}: ${completed} of ${tasks * CLIENTS} tasks done in ${(makespan / 1000).toFixed(1)} s; ` +
    `${perSecond(served, makespan).toFixed(1)} requests a second served (${((100 * perSecond(served, makespan)) / rate).toFixed(0)} % of the limit of ${rate}), ` +
    `${perSecond(served + refused, makespan).toFixed(1)} tried, ${refused} 429s`;
  try {
    await Promise.all(clients.map((client) => client.ready));
    // Processes just started run their first orders slowly, compiling: too slowly, at times, to meet the limit.
    for (const strategy of STRATEGIES)
      await runClients(`http://127.0.0.1:${port}`, clients, strategy, Math.ceil(rate / CLIENTS), CONCURRENCY);
    for (let rep = 0; rep < repetitions; rep++) {
      // Alternated, so that neither strategy always runs first on clients just started.
      for (const strategy of rep % 2 === 0 ? STRATEGIES : [...STRATEGIES].reverse()) {
        const { start, answers, stats } = await runClients(`http://127.0.0.1:${port}`, clients, strategy, tasks, CONCURRENCY);
        const figures = {
          completed: answers.reduce((sum, answer) => sum + answer.completed, 0),
          makespan: Math.max(...answers.map((answer) => answer.finishedAt)) - start,
          served: stats.served,
          refused: stats.refused,
        };
        runs.get(strategy)?.push(figures);
        console.log(`  #${rep + 1} ${line(strategy, figures)}`);
      }
    }
    for (const [strategy, figures] of runs) {
      const med = (field: keyof Figures) => median(figures.map((f) => f[field]));
      console.log(
        `median ${line(strategy, { completed: med('completed'), makespan: med('makespan'), served: med('served'), refused: med('refused') })}` +
          ` (requests a second served, run by run: ${figures.map((f) => perSecond(f.served, f.makespan).toFixed(1)).join(', ')})`,
      );
    }
  } finally {
    for (const client of clients) client.close();
    child.kill('SIGTERM');
  }
}
