/**
 * `npx tsx bench/limiter-trace.mts KIND RATE STRATEGIES [REPETITIONS]`: the real-limiters scenario's
 * ten clients against one of its servers (KIND `express` or `flexible`, RATE requests a second), for
 * the strategies named (comma-separated: baseline, gives-up, retry, learn-rate, rate-limit), run by run:
 * what the limiter let through in each of its windows, and for each client when it finished and what it
 * completed in each second of the run. It shows where a finish spread comes from: which clients fall
 * behind, and in which window. It measures nothing for the report; `npm run bench` does.
 */
import { CLIENTS, CONCURRENCY, Client, KINDS, SECONDS_OF_WORK, STRATEGIES, runClients, startServer } from './scenarios/real-limiters.mjs';

const usage = 'usage: limiter-trace.mts KIND RATE STRATEGIES [REPETITIONS]';
const [kind, rateArg, strategiesArg, repetitionsArg = '1'] = process.argv.slice(2);
if (!(KINDS as readonly string[]).includes(kind ?? '')) throw new Error(`${usage}: KIND is one of ${KINDS.join(', ')}; got ${kind}`);
const rate = Number(rateArg);
if (!Number.isInteger(rate) || rate < CLIENTS)
  throw new Error(`${usage}: RATE is a whole number of requests a second, at least ${CLIENTS}; got ${rateArg}`);
const strategies = (strategiesArg ?? '').split(',');
const unknown = strategies.filter((s) => !(STRATEGIES as readonly string[]).includes(s));
if (unknown.length > 0) throw new Error(`${usage}: STRATEGIES are of ${STRATEGIES.join(', ')}; got ${unknown.join(', ')}`);
const repetitions = Number(repetitionsArg);
if (!Number.isInteger(repetitions) || repetitions < 1 || repetitions > 20) {
  throw new Error(`${usage}: REPETITIONS is a whole number from 1 to 20; got ${repetitionsArg}`);
}

const { child, port } = await startServer(kind, rate);
const clients = Array.from({ length: CLIENTS }, () => new Client());
try {
  await Promise.all(clients.map((client) => client.ready));
  for (let rep = 0; rep < repetitions; rep++) {
    const tasks = Math.round((rate * SECONDS_OF_WORK[rep % SECONDS_OF_WORK.length]) / CLIENTS);
    for (const strategy of strategies) {
      const { start, answers, stats } = await runClients(`http://127.0.0.1:${port}`, clients, strategy, tasks, CONCURRENCY);
      const finished = answers.map((answer) => answer.finishedAt - start);
      const seconds = Math.ceil(Math.max(...finished) / 1000);
      console.log(
        `\n${kind} ${rate}/s, ${strategy}, ${tasks} tasks a client: makespan ${Math.max(...finished)} ms, ` +
          `finish spread ${Math.max(...finished) - Math.min(...finished)} ms, ${stats.refused} 429s`,
      );
      console.log(
        `  the limiter's windows (ms after the first request: let through): ${stats.windows.map((w) => `${w.start}: ${w.accepted}`).join(', ')}`,
      );
      console.log('  each client, by when it finished: finish (ms) | completed in each second of the run');
      for (const [i, answer] of answers.map((a, i) => [i, a] as const).sort(([a], [b]) => finished[a] - finished[b])) {
        const perSecond = new Array<number>(seconds).fill(0);
        for (const at of answer.completedAt) perSecond[Math.min(seconds - 1, Math.floor(at / 1000))]++;
        console.log(`  ${String(finished[i]).padStart(6)} | ${perSecond.map((n) => String(n).padStart(3)).join(' ')}`);
      }
    }
  }
} finally {
  for (const client of clients) client.close();
  child.kill('SIGTERM');
}
