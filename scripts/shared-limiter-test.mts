/**
 * `npm run shared-limiter-test`: two client processes share one bucket on a real Redis server
 * (Debian's `redis-server`, started here on 127.0.0.1 with nothing saved) through the `limiter` option
 * and `fromRateLimiterFlexible()` on rate-limiter-flexible's RateLimiterRedis, against an API whose own
 * limiter allows that many requests a second for both together and announces it (`RateLimit-Policy`).
 * The buckets begin at 4 points and take the API's rate from its policy (`rateFromServer`). Both complete
 * every task; no factory is called but on a grant of the bucket, and no window of the bucket grants more
 * than the API's limit: together the clients never exceed it. The API's refusals are printed. Bounded:
 * every process is stopped within 60 s.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startRedis } from '../bench/http/redis-server.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const LIMIT = 40;
const TASKS = 100;
const CLIENTS = 2;
const DEADLINE_MS = 60_000;

const children: ChildProcess[] = [];
const stopAll = () => children.forEach((child) => child.kill('SIGTERM'));
setTimeout(() => {
  console.error(`shared-limiter-test: not done in ${DEADLINE_MS / 1000} s`);
  stopAll();
  process.exit(1);
}, DEADLINE_MS).unref();

/** Starts `command` and resolves with the first stdout line that `ready` accepts. */
function start(command: string, args: string[], ready: (line: string) => boolean): Promise<{ child: ChildProcess; line: string }> {
  const child = spawn(command, args, { cwd: root, stdio: ['ignore', 'pipe', 'inherit'] });
  children.push(child);
  return new Promise((resolve, reject) => {
    let buffered = '';
    child.stdout!.on('data', (data: Buffer) => {
      buffered += String(data);
      const line = buffered.split('\n').find(ready);
      if (line !== undefined) resolve({ child, line });
    });
    child.once('exit', (code) => reject(new Error(`${command} exited with ${code} before it was ready`)));
  });
}

const tsx = (file: string, ...args: string[]) =>
  [process.execPath, ['--import', 'tsx', join(root, 'scripts', 'shared-limiter', file), ...args]] as const;
let failures = 0;
try {
  const redis = await startRedis();
  children.push(redis.child);
  const redisPort = redis.port;
  const api = await start(...tsx('api.mts', String(LIMIT)), (line) => line.startsWith('{'));
  const url = `http://127.0.0.1:${(JSON.parse(api.line) as { port: number }).port}/`;
  const began = Date.now();
  const answers = await Promise.all(
    Array.from({ length: CLIENTS }, () =>
      start(...tsx('client.mts', url, String(redisPort), String(TASKS)), (line) => line.startsWith('{')).then(
        ({ line }) =>
          JSON.parse(line) as {
            completed: number;
            refused: number;
            calls: number;
            grants: { consumed: number; windowEnd: number }[];
            points: number;
          },
      ),
    ),
  );
  const seconds = (Date.now() - began) / 1000;
  const stats = (await (await fetch(`${url}stats`)).json()) as { served: number; refused: number };
  console.log(
    `${CLIENTS} clients, ${TASKS} tasks each, one Redis bucket that takes the API's ${LIMIT} a second: ${answers.map((a) => a.completed).join(' and ')} completed, ` +
      `${stats.served} served and ${stats.refused} refused by the API, in ${seconds.toFixed(1)} s (at least ${((CLIENTS * TASKS) / LIMIT - 1).toFixed(0)} s at the bucket's rate)`,
  );
  const check = (ok: boolean, what: string) => {
    if (!ok) failures++;
    console.log(`${ok ? 'ok' : 'FAILED'}: ${what}`);
  };
  check(
    answers.every((answer) => answer.completed === TASKS),
    'both clients complete every task',
  );
  check(
    answers.every((answer) => answer.points === LIMIT),
    `each bucket took the API's announced policy for its rate: ${answers.map((answer) => answer.points).join(' and ')} points, from 4`,
  );
  check(
    answers.every((answer) => answer.calls === answer.grants.length),
    `each factory called on a grant of the bucket (${answers.map((answer) => `${answer.calls} calls, ${answer.grants.length} grants`).join('; ')})`,
  );
  // Grants of one window, across the clients: their window ends agree to a few ms.
  const windows: { end: number; grants: number; most: number }[] = [];
  for (const grant of answers.flatMap((answer) => answer.grants)) {
    const window = windows.find((candidate) => Math.abs(candidate.end - grant.windowEnd) < 100);
    if (window === undefined) {
      windows.push({ end: grant.windowEnd, grants: 1, most: grant.consumed });
    } else {
      window.grants++;
      window.most = Math.max(window.most, grant.consumed);
    }
  }
  check(
    windows.every((window) => window.grants <= LIMIT && window.most <= LIMIT),
    `no window of the bucket grants more than ${LIMIT} (${windows.map((window) => window.grants).join(', ')} in its ${windows.length} windows)`,
  );
} finally {
  stopAll();
}
if (failures > 0) process.exit(1);
console.log('shared-limiter-test: passed');
