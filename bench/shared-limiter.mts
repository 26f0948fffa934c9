/**
 * The paces of many workers on one API key, at the length users run: `npx tsx bench/shared-limiter.mts
 * [REPETITIONS]`. Ten client processes with real `fetch` share one budget of express-rate-limit (a fixed
 * window of 1 s, draft-8 headers on every answer) at 50 and at 200 requests a second, each run holding
 * 20 s of the limiter's capacity. Against the baseline that hammers (`mergeMap(task, 16)` with RxJS
 * `retry` honouring `Retry-After`): `rateLimit: true` alone; `shared`, the `limiter` option on one
 * RateLimiterRedis bucket of the limiter's rate on a real `redis-server` (started here, on 127.0.0.1);
 * and `shared-rate-limit`, both. The strategies take turns in each repetition. Prints, per rate and
 * strategy, the medians of makespan, 429s and the clients' finish spread, and each one's median ratio
 * to the baseline's run of the same repetition.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { Client, CLIENTS, CONCURRENCY, startServer, type Answer, type Stats } from './scenarios/real-limiters.mjs';
import { median } from './harness.mjs';

const SECONDS_OF_WORK = 20;
const RATES = [50, 200] as const;
const STRATEGIES = ['baseline', 'rate-limit', 'shared', 'shared-rate-limit'] as const;
const REPETITIONS = Number(process.argv[2] ?? 3);
/** Time for every client to have its order before the instant they all begin. */
const START_MS = 500;

interface Run {
  makespan: number;
  spread: number;
  refused: number;
  completed: number;
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

async function startRedis(): Promise<{ child: ChildProcess; port: number }> {
  const port = await freePort();
  const child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  await new Promise<void>((resolve, reject) => {
    let seen = '';
    child.stdout!.on('data', (data: Buffer) => {
      seen += String(data);
      if (seen.includes('Ready to accept connections')) resolve();
    });
    child.once('exit', (code) => reject(new Error(`redis-server exited with ${code}`)));
  });
  return { child, port };
}

const results = new Map<string, Run[]>();
const redis = await startRedis();
try {
  for (const rate of RATES) {
    const { child: server, port } = await startServer('express', rate);
    const base = `http://127.0.0.1:${port}`;
    const clients = Array.from({ length: CLIENTS }, () => new Client());
    const tasks = (SECONDS_OF_WORK * rate) / CLIENTS;
    try {
      await Promise.all(clients.map((client) => client.ready));
      for (let rep = 0; rep < REPETITIONS; rep++) {
        for (const strategy of STRATEGIES) {
          await fetch(`${base}/reset`, { method: 'POST' }).then((response) => response.arrayBuffer());
          const start = Date.now() + START_MS;
          const order = { url: `${base}/task`, strategy, tasks, start, concurrency: CONCURRENCY, redisPort: redis.port, rate };
          const answers: Answer[] = await Promise.all(clients.map((client) => client.run(order)));
          const stats = (await fetch(`${base}/stats`).then((response) => response.json())) as Stats;
          const finished = answers.map((answer) => answer.finishedAt - start);
          const run = {
            makespan: Math.max(...finished),
            spread: Math.max(...finished) - Math.min(...finished),
            refused: stats.refused,
            completed: answers.reduce((sum, answer) => sum + answer.completed, 0),
          };
          const key = `${rate} ${strategy}`;
          results.set(key, [...(results.get(key) ?? []), run]);
          console.error(
            `${rate}/s ${strategy} #${rep + 1}: ${run.completed} done, ${run.refused} 429s, ${run.makespan} ms, spread ${run.spread} ms`,
          );
        }
      }
    } finally {
      for (const client of clients) client.close();
      server.kill('SIGTERM');
    }
  }
} finally {
  redis.child.kill('SIGTERM');
}

console.log(
  `\n10 clients, ${SECONDS_OF_WORK} s of capacity a run, medians of ${REPETITIONS}; ratios: median over repetitions of the run against the baseline's beside it\n`,
);
console.log('| rate | strategy | all done | makespan | 429s | finish spread | makespan ratio | 429 ratio | spread ratio |');
console.log('| --- | --- | --- | --- | --- | --- | --- | --- | --- |');
for (const rate of RATES) {
  const baseline = results.get(`${rate} baseline`) ?? [];
  for (const strategy of STRATEGIES) {
    const runs = results.get(`${rate} ${strategy}`) ?? [];
    const ratio = (field: keyof Run) => median(runs.map((run, rep) => run[field] / Math.max(1, baseline[rep][field])));
    const done = runs.filter((run) => run.completed === SECONDS_OF_WORK * rate).length;
    console.log(
      `| ${rate}/s | ${strategy} | ${done} of ${runs.length} | ${median(runs.map((r) => r.makespan))} ms | ${median(runs.map((r) => r.refused))} | ` +
        `${median(runs.map((r) => r.spread))} ms | ${ratio('makespan').toFixed(2)} | ${ratio('refused').toFixed(3)} | ${ratio('spread').toFixed(2)} |`,
    );
  }
}
