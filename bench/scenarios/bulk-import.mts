import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { resolve } from 'node:path';
import { promisify } from 'node:util';
import { benchDir, repoRoot } from '../child.mjs';
import { format, median, progress, type Figure, type Scenario, type TargetResult } from '../harness.mjs';

/** The newcomer's import: 2,000 records into an API behind express-rate-limit at 100 a second. */
export const RECORDS = 2_000;
export const RATE = 100;
/** 8 records the API refuses (422), and 2 % that answer 503 once. */
export const BAD = [17, 250, 511, 777, 1024, 1300, 1666, 1999].map((i) => `r${i}`);
export const FLAKY = Array.from({ length: RECORDS / 50 }, (_, i) => `r${i * 50 + 7}`);
export const STRATEGIES = ['kinds', 'before-kinds', 'p-queue'] as const;
const REPETITIONS = 3;
/** A run that takes longer has failed. */
const DEADLINE_MS = 180_000;

interface Answer {
  makespan: number;
  created: number;
  itemFailed: number;
  error: string | null;
}

interface Stats {
  created: number;
  duplicates: number;
  answered: Record<string, number>;
}

interface Run extends Answer {
  readonly serverCreated: number;
  readonly duplicates: number;
  readonly refused: number;
}

const run = promisify(execFile);

function startServer(): Promise<{ child: ChildProcess; base: string }> {
  const args = [resolve(benchDir, 'http/import-server.mts'), String(RATE), BAD.join(','), FLAKY.join(',')];
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', ...args], { cwd: repoRoot, stdio: ['ignore', 'pipe', 'inherit'] });
    child.stdout?.setEncoding('utf8');
    child.stdout?.once('data', (line: string) =>
      resolvePromise({ child, base: `http://127.0.0.1:${(JSON.parse(line) as { port: number }).port}` }),
    );
    child.once('error', reject);
  });
}

async function runOnce(base: string, strategy: string): Promise<Run> {
  await fetch(`${base}/reset`, { method: 'POST' }).then((r) => r.arrayBuffer());
  const { stdout } = await run(
    process.execPath,
    ['--import', 'tsx', resolve(benchDir, 'http/import-client.mts'), base, strategy, String(RECORDS)],
    { cwd: repoRoot, timeout: DEADLINE_MS },
  );
  const answer = JSON.parse(stdout) as Answer;
  const stats = (await fetch(`${base}/stats`).then((r) => r.json())) as Stats;
  return { ...answer, serverCreated: stats.created, duplicates: stats.duplicates, refused: stats.answered[429] ?? 0 };
}

/**
 * The import a newcomer wrote (§14): 2,000 records into an API behind a real rate limiter, with a few
 * bad records and a few requests that fail once; this package's recipe with the four kinds, the recipe
 * before them, and p-queue with p-retry.
 */
export const bulkImport: Scenario = {
  name: 'bulk-import',
  title: 'A bulk import over real HTTP: 2,000 records behind express-rate-limit, 8 bad records, 2 % 503s',
  async run() {
    const { child, base } = await startServer();
    const runs = new Map<string, Run[]>(STRATEGIES.map((strategy) => [strategy, []]));
    try {
      for (let rep = 0; rep < REPETITIONS; rep++) {
        for (const strategy of STRATEGIES) {
          const result = await runOnce(base, strategy);
          runs.get(strategy)?.push(result);
          progress(
            `bulk-import ${strategy} #${rep + 1}: ${format.ms(result.makespan)}, ${result.refused} 429s, ${result.itemFailed} failed`,
          );
        }
      }
    } finally {
      child.kill('SIGTERM');
    }
    // The floor: the fewest requests the job needs (every record once, the flaky ones twice) at the
    // limiter's rate.
    const requests = RECORDS + FLAKY.length;
    const floor = (1000 * requests) / RATE;
    const figures: Figure[] = [];
    const targets: TargetResult[] = [];
    const med = (strategy: string, pick: (r: Run) => number) => median((runs.get(strategy) ?? []).map(pick));
    for (const strategy of STRATEGIES) {
      const of = runs.get(strategy) ?? [];
      figures.push({
        label: `bulk-import, ${strategy}`,
        value:
          `makespan ${format.ms(med(strategy, (r) => r.makespan))} (median of ${of.length}: ${of.map((r) => format.ms(r.makespan)).join(', ')}), ` +
          `${(med(strategy, (r) => r.makespan) / floor).toFixed(2)} times the floor of ${format.ms(floor)}; ` +
          `429s ${of.map((r) => r.refused).join(', ')}; failed items ${of.map((r) => r.itemFailed).join(', ')}; ` +
          `created ${of.map((r) => r.serverCreated).join(', ')} (duplicates ${of.map((r) => r.duplicates).join(', ')})` +
          (of.some((r) => r.error !== null) ? `; errors: ${of.map((r) => r.error).join(' | ')}` : ''),
      });
    }
    const ours = runs.get('kinds') ?? [];
    targets.push(
      {
        description: 'bulk-import with the four kinds: exactly the 8 bad records failed, every other created once, in every run',
        measured: ours.map((r) => `${r.itemFailed} failed, ${r.serverCreated} created`).join('; '),
        limit: `8 failed, ${RECORDS - BAD.length} created`,
        met: ours.every(
          (r) => r.error === null && r.itemFailed === BAD.length && r.serverCreated === RECORDS - BAD.length && r.duplicates === 0,
        ),
      },
      {
        description: 'bulk-import with the four kinds: 429s drawn (median)',
        measured: String(med('kinds', (r) => r.refused)),
        limit: '<= 5',
        met: med('kinds', (r) => r.refused) <= 5,
      },
      {
        description: 'bulk-import with the four kinds: makespan against the floor (median)',
        measured: (med('kinds', (r) => r.makespan) / floor).toFixed(2),
        limit: '<= 1.1',
        met: med('kinds', (r) => r.makespan) / floor <= 1.1,
      },
    );
    return {
      name: this.name,
      title: this.title,
      method:
        `A server process on 127.0.0.1: express 5.3 with express-rate-limit 8.7 (a fixed window of 1 s holding ${RATE} requests, ` +
        `draft-8 \`RateLimit\` headers on every response, \`Retry-After\` on a 429) in front of \`POST /records\`, which takes 20 to ` +
        `60 ms, answers 422 to ${BAD.length} records every time and 503 (no \`Retry-After\`) to the first request of ${FLAKY.length} ` +
        `(2 %), and counts what it creates. One client process with real \`fetch\` posts ${RECORDS} records: \`kinds\` is the README's ` +
        `recipe (\`slowStart\`, window pacing, \`maxBatchSize: 32\`, \`rateLimit: true\`, \`retry.when\` saying "422 is an item" and ` +
        `leaving the rest to the default, no \`delay\`); \`before-kinds\` the recipe before the kinds (429, 503 and a dropped request ` +
        `are throttles, a 422 a value counted by hand); \`p-queue\` p-queue 8.1 (32 at a time) with p-retry 6.2 (10 retries, at most 5 s apart), a 429 ` +
        `pausing the queue for its \`Retry-After\`. The strategies alternate in each of ${REPETITIONS} repetitions; makespans are ` +
        `the client's, medians of the repetitions. The floor: the ${requests} requests the job needs at the least, at ${RATE} a second.`,
      figures,
      targets,
    };
  },
};
