/**
 * `npm run crash-test`: the job that survives its process (the snippet of docs/durable-jobs.md, or of the
 * README, that stores checkpoints and sends an `Idempotency-Key`), run as it is written against a real HTTP API on 127.0.0.1 (express +
 * express-rate-limit, bench/http/import-server.mts, which honours and counts `Idempotency-Key`), killed
 * with SIGKILL at seeded random instants (up to 16 times a variant) and started again each time from the
 * checkpoint it stored, until it completes. Then, from the server's counts:
 * - with the key: every record created, none twice, and after each kill no more tries sent again (the
 *   server's replays) than the stored checkpoint had in doubt;
 * - without it (the header taken out of the snippet): every record created, and no more duplicates than
 *   the tasks in doubt at the kills.
 * Each kill is printed. `CRASH_SEED=n` replays a sequence of instants; CI runs the default seed.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const RECORDS = 300;
const RATE = 100;
const MIN_KILLS = 10;
/** Kills a variant at most: the run after the last one is left to complete, however slow the machine. */
const MAX_KILLS = 16;
/** Longer than the API takes to answer: what a killed client sent is counted by then. */
const SETTLE_MS = 200;
const seed = Number(process.env.CRASH_SEED ?? 0x5eed);

/** A small seeded generator (mulberry32), so that a failing sequence of kills can be replayed. */
function random(state: number): () => number {
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The documents' snippet that stores checkpoints in a file, as JavaScript, against `base`, keyed or not. */
function clientFrom(documents: string, base: string, keyed: boolean): string {
  const snippet = [...documents.matchAll(/```ts\n([\s\S]*?)```/g)]
    .map((match) => match[1])
    .find((code) => code.includes('slowStartCheckpoint()') && code.includes("'idempotency-key': String(context.key)"));
  if (snippet === undefined)
    throw new Error('neither the README nor docs/durable-jobs.md has a checkpoint snippet with an Idempotency-Key');
  const code = keyed ? snippet : snippet.replace("'idempotency-key': String(context.key)", '');
  const records = `const records = Array.from({ length: ${RECORDS} }, (_, id) => ({ id, name: 'record ' + id }));\n`;
  const js = ts.transpileModule(records + code.replaceAll('http://127.0.0.1:3000', base), {
    compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 },
  }).outputText;
  return js;
}

/** Keys in a checkpoint's list: runs count all they hold. */
function count(list: readonly unknown[] | undefined): number {
  return (list ?? []).reduce<number>((sum, entry) => sum + (Array.isArray(entry) ? entry[1] - entry[0] + 1 : 1), 0);
}

async function startServer(): Promise<{ base: string; server: ChildProcess }> {
  const server = spawn(process.execPath, ['--import', 'tsx', join(root, 'bench', 'http', 'import-server.mts'), String(RATE), '', ''], {
    cwd: root,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const port = await new Promise<number>((resolve, reject) => {
    server.stdout!.once('data', (data: Buffer) => resolve((JSON.parse(String(data)) as { port: number }).port));
    server.once('exit', () => reject(new Error('the API server exited before listening')));
  });
  return { base: `http://127.0.0.1:${port}`, server };
}

interface Stats {
  created: number;
  duplicates: number;
  replayed: number;
}

async function stats(base: string): Promise<Stats> {
  return (await (await fetch(`${base}/stats`)).json()) as Stats;
}

/** Runs the job to its end, killing it at random instants; returns what was in doubt at each kill, and the server's counts. */
async function crashRun(base: string, keyed: boolean, next: () => number) {
  await fetch(`${base}/reset`, { method: 'POST' });
  const folder = join(root, '.crash-test');
  mkdirSync(folder, { recursive: true });
  const client = join(folder, `client-${keyed ? 'keyed' : 'plain'}.mjs`);
  const documents = ['README.md', 'docs/durable-jobs.md'].map((path) => readFileSync(join(root, path), 'utf8')).join('\n');
  writeFileSync(client, clientFrom(documents, base, keyed));
  const cwd = mkdtempSync(join(tmpdir(), 'crash-test-'));
  const kills: { at: number; inDoubt: number; succeeded: number; replayedAfter: number }[] = [];
  let replayedBefore = 0;
  try {
    for (let restart = 0; restart <= MAX_KILLS; restart++) {
      const child = spawn(process.execPath, [client], { cwd, stdio: ['ignore', 'inherit', 'inherit'] });
      const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
      const at = Math.round(200 + next() * 500);
      const timer = restart < MAX_KILLS ? setTimeout(() => child.kill('SIGKILL'), at) : undefined;
      const code = await exited;
      clearTimeout(timer);
      // The requests a killed client had on the wire are still answered, and counted, by the server:
      // its counts are read once they are all in (the API answers within 60 ms).
      await sleep(SETTLE_MS);
      const { replayed } = await stats(base);
      if (kills.length > 0) kills[kills.length - 1].replayedAfter = replayed - replayedBefore;
      replayedBefore = replayed;
      if (code === 0) break;
      if (code !== null || restart === MAX_KILLS) throw new Error(`the client exited with ${code}`);
      // A client killed before its first checkpoint stored nothing, and had sent nothing.
      const file = join(cwd, 'import.checkpoint.json');
      const stored = existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as { inDoubt?: unknown[]; succeeded?: unknown[] }) : {};
      kills.push({ at, inDoubt: count(stored.inDoubt), succeeded: count(stored.succeeded), replayedAfter: 0 });
    }
  } finally {
    rmSync(cwd, { recursive: true, force: true });
  }
  return { kills, final: await stats(base) };
}

const { base, server } = await startServer();
const next = random(seed);
let failures = 0;
const check = (ok: boolean, what: string) => {
  if (!ok) failures++;
  console.log(`${ok ? 'ok' : 'FAILED'}: ${what}`);
};
try {
  for (const keyed of [true, false]) {
    const { kills, final } = await crashRun(base, keyed, next);
    console.log(`\n${keyed ? 'With' : 'Without'} an Idempotency-Key: ${RECORDS} records at ${RATE} a second, seed ${seed}`);
    for (const [at, kill] of kills.entries()) {
      console.log(
        `  kill ${at + 1} after ${kill.at} ms: stored ${kill.succeeded} succeeded, ${kill.inDoubt} in doubt; sent again to a record created already: ${kill.replayedAfter}`,
      );
    }
    const inDoubt = kills.reduce((sum, kill) => sum + kill.inDoubt, 0);
    console.log(`  server: ${final.created} created, ${final.duplicates} created twice, ${final.replayed} replays answered`);
    check(kills.length >= MIN_KILLS / 2, `${kills.length} kills (at least ${MIN_KILLS / 2} a variant, ${MIN_KILLS} in all)`);
    check(final.created === RECORDS, `every record created (${final.created} of ${RECORDS})`);
    if (keyed) {
      check(final.duplicates === 0, `no record created twice (${final.duplicates})`);
      check(
        kills.every((kill) => kill.replayedAfter <= kill.inDoubt),
        'after each kill, no more tries sent again to a created record than were in doubt',
      );
    } else {
      check(final.duplicates <= inDoubt, `duplicates (${final.duplicates}) no more than the tasks in doubt at the kills (${inDoubt})`);
    }
  }
} finally {
  server.kill('SIGTERM');
  rmSync(join(root, '.crash-test'), { recursive: true, force: true });
}
if (failures > 0) {
  console.error(`crash-test: ${failures} check(s) failed (replay with CRASH_SEED=${seed})`);
  process.exit(1);
}
console.log('crash-test: passed');
