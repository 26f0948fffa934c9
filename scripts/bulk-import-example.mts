/**
 * The Node bulk import of examples/node-bulk-import/, run as a user runs it: its client.ts, importing
 * 'rxjs-slow-start' (dist/, through the package's "exports": build first), against its server.ts on a
 * free port of 127.0.0.1, with the CSV that make-records.ts writes, in a temporary folder.
 *
 * `--demo` (`npm run demo`): starts the API, runs the client on the whole file (2,000 records) with its
 * live progress line, prints the server's counts beside the client's summary, and stops the API.
 * Ctrl-C cancels the job (the client prints how far it got); the API is stopped all the same.
 *
 * Without it (`npm run example:bulk-import`, in CI), three ways, each checked against the server's
 * counts (`GET /stats`) and the file:
 * 1. all the way: the demo itself (`--demo`, piped), on the whole file;
 * 2. SIGINT mid-job: the run ends cancelled (exit 130, a checkpoint that says so), then runs again and
 *    completes from its checkpoint;
 * 3. SIGKILL mid-job, then started again: it completes from its checkpoint; started once more, it
 *    sends nothing.
 * Each ends with the client's summary equal to the server's counts: every valid record created once,
 * none twice, every bad one (and only those) refused as an item with a 422. Every run has a time limit
 * that fails the check. Scenarios 2 and 3 import the first RECORDS_SHORT records (1,000), to keep CI fast.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const example = join(root, 'examples', 'node-bulk-import');
const RECORDS_SHORT = Number(process.env.RECORDS_SHORT ?? 1000);
/** The longest a run may take: a job of 2,000 records at 100 a second takes about 25 s. */
const RUN_LIMIT_MS = 90_000;
/** The longest a client may take to exit once told to stop. */
const STOP_LIMIT_MS = 10_000;

interface Stats {
  created: number;
  duplicates: number;
  refused: number;
  refusedIds?: string[];
  replays: number;
  aborted: number;
  answered: Record<string, number>;
}

/** The example's CSV, its first `count` records (all 2,000 by default), and the ids of those with bad data. */
function makeRecords(count?: number): { csv: string; total: number; bad: string[] } {
  const made = spawnSync(process.execPath, ['--import', 'tsx', join(example, 'make-records.ts')], { cwd: root, encoding: 'utf8' });
  if (made.status !== 0) throw new Error(`make-records.ts exited with ${made.status}: ${made.stderr}`);
  const lines = made.stdout.trim().split('\n');
  const kept = count === undefined ? lines : lines.slice(0, count + 1);
  // The server's rule, restated: no name, or an email that is not an address.
  const bad = kept
    .slice(1)
    .map((line) => line.split(','))
    .filter(([, name, email]) => name.trim() === '' || !/^[^@\s]+@[^@\s]+\.[^@\s]+$/.test(email))
    .map(([id]) => id);
  return { csv: `${kept.join('\n')}\n`, total: kept.length - 1, bad };
}

/** Starts the example's API on a free port; `detached`, Ctrl-C on a terminal does not reach it. */
async function startServer(): Promise<{ base: string; server: ChildProcess }> {
  const server = spawn(process.execPath, ['--import', 'tsx', join(example, 'server.ts')], {
    cwd: root,
    stdio: ['ignore', 'pipe', 'inherit'],
    detached: true,
  });
  // Stopped with this process, however it ends.
  process.once('exit', () => server.kill('SIGTERM'));
  for (const signal of ['SIGTERM', 'SIGHUP'] as const) process.once(signal, () => process.exit(1));
  const port = await new Promise<number>((resolve, reject) => {
    server.stdout!.once('data', (data: Buffer) => resolve((JSON.parse(String(data)) as { port: number }).port));
    server.once('exit', () => reject(new Error('the API exited before listening')));
    setTimeout(() => reject(new Error('the API did not listen within 20 s')), 20_000).unref();
  });
  return { base: `http://127.0.0.1:${port}`, server };
}

async function stats(base: string): Promise<Stats> {
  return (await (await fetch(`${base}/stats`, { signal: AbortSignal.timeout(5000) })).json()) as Stats;
}

interface Run {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  ms: number;
  /** From the signal (`stop`) to the exit. */
  exitMs?: number;
}

/**
 * Runs the client in `folder` against `base`, its output piped (or inherited, for the demo). With
 * `stop`, sends that signal once the server has created `after` records. Fails past the time limits.
 */
async function runClient(
  base: string,
  folder: string,
  options: { inherit?: boolean; stop?: { signal: NodeJS.Signals; after: number } } = {},
): Promise<Run> {
  const started = Date.now();
  const child = spawn(process.execPath, ['--import', 'tsx', join(example, 'client.ts')], {
    cwd: root,
    env: { ...process.env, API_URL: base, RECORDS: join(folder, 'records.csv'), CHECKPOINT: join(folder, 'checkpoint.json') },
    stdio: ['ignore', options.inherit === true ? 'inherit' : 'pipe', 'inherit'],
  });
  let stdout = '';
  child.stdout?.on('data', (data: Buffer) => (stdout += String(data)));
  // Never left running: killed if this process ends first.
  const kill = () => child.kill('SIGKILL');
  process.once('exit', kill);
  const exited = new Promise<Pick<Run, 'code' | 'signal'>>((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  void exited.then(() => process.off('exit', kill));
  let late = false;
  const limit = (ms: number) =>
    setTimeout(() => {
      late = true;
      child.kill('SIGKILL');
    }, ms);
  let timer = limit(RUN_LIMIT_MS);
  let signalled: number | undefined;
  if (options.stop !== undefined) {
    const { signal, after } = options.stop;
    let done = false;
    void exited.then(() => (done = true));
    while (!done && (await stats(base)).created < after) await sleep(50);
    if (done) throw new Error(`the client exited before ${after} records were created, where it was to get ${signal}`);
    child.kill(signal);
    signalled = Date.now();
    clearTimeout(timer);
    timer = limit(STOP_LIMIT_MS);
  }
  const { code, signal } = await exited;
  clearTimeout(timer);
  if (late) throw new Error(`the client did not exit in time:\n${stdout}`);
  return { code, signal, stdout, ms: Date.now() - started, exitMs: signalled === undefined ? undefined : Date.now() - signalled };
}

interface Summary {
  ended: string;
  created: number;
  refused: number;
  left: number;
  refusedIds: string[];
}

/** The client's last summary, as it prints it. */
function summaryOf(stdout: string): Summary {
  const lines = stdout.split('\n');
  const at = lines.map((line) => /^\S+ (completed|cancelled|failed): /.test(line)).lastIndexOf(true);
  const match = /^\S+ (\w+): (\d+) created, (\d+) refused, (\d+) left$/.exec(lines[at] ?? '');
  if (match === null) throw new Error(`no summary in the client's output:\n${stdout}`);
  // Then one line per reason: `  8 refused, HTTP 422 ...: 26, 298, ...`.
  const refusedIds = lines
    .slice(at + 1)
    .filter((line) => /^ {2}\d+ refused, /.test(line))
    .flatMap((line) => line.slice(line.lastIndexOf(': ') + 2).split(', '));
  return { ended: match[1], created: Number(match[2]), refused: Number(match[3]), left: Number(match[4]), refusedIds };
}

/** The server's counts as the demo prints them: `server: 1989 created, ...; answers: 1989 201s, 11 422s, 40 503s`. */
function serverLine(s: Stats): string {
  const answers = Object.entries(s.answered).map(([status, n]) => `${n} ${status}s`);
  return `server: ${s.created} created, ${s.refused} refused, ${s.duplicates} created twice, ${s.replays} replays, ${s.aborted} aborted; answers: ${answers.join(', ')}`;
}

/** The counts of `serverLine`, read back. */
function statsOf(output: string): Stats {
  const match = /^server: (\d+) created, (\d+) refused, (\d+) created twice, (\d+) replays, (\d+) aborted; answers: (.*)$/m.exec(output);
  if (match === null) throw new Error(`no server counts in the demo's output:\n${output}`);
  const [created, refused, duplicates, replays, aborted] = match.slice(1, 6).map(Number);
  const answered = Object.fromEntries([...match[6].matchAll(/(\d+) (\d{3})s/g)].map(([, n, status]) => [status, Number(n)]));
  return { created, refused, duplicates, replays, aborted, answered };
}

async function demo(): Promise<number> {
  const folder = mkdtempSync(join(tmpdir(), 'bulk-import-'));
  process.once('exit', () => rmSync(folder, { recursive: true, force: true }));
  const { base, server } = await startServer();
  // Ctrl-C is the client's to handle: this process waits for it to print its summary.
  const ignore = () => undefined;
  process.on('SIGINT', ignore);
  try {
    const { csv, total, bad } = makeRecords();
    writeFileSync(join(folder, 'records.csv'), csv);
    const { RATE = '100', FAIL = '0.02' } = process.env;
    console.log(`An API on ${base}: ${RATE} requests a second, 20 to 60 ms each, a 503 to ${Number(FAIL) * 100} % of first tries.`);
    console.log(`Importing ${total} records (${bad.length} with bad data) from ${join(folder, 'records.csv')}; Ctrl-C cancels.\n`);
    const run = await runClient(base, folder, { inherit: true });
    const counts = await stats(base);
    console.log(`\n${serverLine(counts)}`);
    if (run.code !== 0) {
      console.log(
        'The server counts the requests in flight at the stop too: the checkpoint has them in doubt, and a run that resumes it sends them\n' +
          'again with their Idempotency-Keys, which the server answers from what it stored, creating nothing twice.',
      );
    }
    console.log(`${(run.ms / 1000).toFixed(1)} s`);
    return run.code ?? 1;
  } finally {
    process.off('SIGINT', ignore);
    server.kill('SIGTERM');
  }
}

let failures = 0;
function check(ok: boolean, what: string): void {
  if (!ok) failures++;
  console.log(`  ${ok ? 'ok' : 'FAILED'}: ${what}`);
}
const same = (a: readonly string[], b: readonly string[]) => a.length === b.length && [...a].sort().join() === [...b].sort().join();

/** The checks every scenario ends with: the client's summary against the server's counts and the file. */
function checkEnd(summary: Summary, server: Stats, records: { total: number; bad: string[] }, ms: number): void {
  const { total, bad } = records;
  const answers = (status: number) => server.answered[status] ?? 0;
  console.log(
    `  figures: ${total} records (${bad.length} bad); client ${summary.ended}: ${summary.created} created, ${summary.refused} refused, ` +
      `${summary.left} left; server: ${server.created} created, ${server.refused} refused, ${server.duplicates} created twice, ` +
      `${server.replays} replays, ${answers(429)} 429s, ${answers(503)} 503s; ${(ms / 1000).toFixed(1)} s`,
  );
  check(summary.ended === 'completed' && summary.left === 0, `the job completed, nothing left (${summary.ended}, ${summary.left} left)`);
  check(summary.created === server.created, `created: client ${summary.created}, server ${server.created}`);
  check(summary.refused === server.refused, `refused: client ${summary.refused}, server ${server.refused}`);
  check(server.created === total - bad.length, `every valid record created (${server.created} of ${total - bad.length})`);
  check(server.duplicates === 0, `no record created twice (${server.duplicates})`);
  check(
    same(summary.refusedIds, bad),
    `the ${bad.length} bad records, and only those, refused as items (${summary.refusedIds.join(', ')})`,
  );
  // The demo prints the server's counts, not its ids.
  if (server.refusedIds !== undefined) check(same(server.refusedIds, bad), 'the server refused the same records');
}

const checkpointOf = (folder: string) => JSON.parse(readFileSync(join(folder, 'checkpoint.json'), 'utf8')) as { ended: string | null };

async function scenarios(): Promise<void> {
  const started = Date.now();

  console.log('1. All the way: the demo (npm run demo), piped');
  {
    const records = makeRecords();
    const begun = Date.now();
    const child = spawn(process.execPath, ['--import', 'tsx', fileURLToPath(import.meta.url), '--demo'], {
      cwd: root,
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let stdout = '';
    child.stdout.on('data', (data: Buffer) => (stdout += String(data)));
    // Past the limit, SIGTERM: the demo stops its API and its client as it exits.
    const limit = setTimeout(() => child.kill('SIGTERM'), RUN_LIMIT_MS);
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    clearTimeout(limit);
    check(code === 0, `the demo exited with 0 (${code}) within ${RUN_LIMIT_MS / 1000} s`);
    const server = statsOf(stdout);
    checkEnd(summaryOf(stdout), server, records, Date.now() - begun);
  }

  const { base, server } = await startServer();
  try {
    for (const signal of ['SIGINT', 'SIGKILL'] as const) {
      console.log(`\n${signal === 'SIGINT' ? '2. Ctrl-C (SIGINT) mid-job, then run again' : '3. SIGKILL mid-job, then started again'}`);
      await fetch(`${base}/reset`, { method: 'POST' });
      const folder = mkdtempSync(join(tmpdir(), 'bulk-import-'));
      try {
        const records = makeRecords(RECORDS_SHORT);
        writeFileSync(join(folder, 'records.csv'), records.csv);
        const begun = Date.now();
        const stopped = await runClient(base, folder, { stop: { signal, after: Math.floor(records.total / 3) } });
        // What the stopped client had on the wire is still answered, and counted, by the API within 60 ms.
        await sleep(200);
        const between = await stats(base);
        const checkpoint = existsSync(join(folder, 'checkpoint.json')) ? checkpointOf(folder) : undefined;
        if (signal === 'SIGINT') {
          const summary = summaryOf(stopped.stdout);
          const aborted = Number(/(\d+) requests aborted in flight/.exec(stopped.stdout)?.[1] ?? NaN);
          console.log(
            `  stopped: client ${summary.ended} ${stopped.exitMs} ms after SIGINT, ${summary.created} created, ${summary.left} left, ` +
              `${aborted} requests aborted in flight; server: ${between.created} created, ${between.aborted} requests gone before their answer`,
          );
          check(stopped.code === 130, `the cancelled client exited with 130 (${stopped.code})`);
          check(summary.ended === 'cancelled', `its summary says cancelled (${summary.ended})`);
          check(checkpoint?.ended === 'cancelled', `its checkpoint says cancelled (${checkpoint?.ended})`);
          // An answer already on its way is not an abort the server sees: only a few aborts make the check sure.
          if (aborted >= 3) check(between.aborted > 0, 'the server saw requests aborted');
        } else {
          console.log(`  killed: server ${between.created} created, checkpoint stored: ${checkpoint === undefined ? 'none' : 'yes'}`);
          check(stopped.signal === 'SIGKILL', `the client was killed (${stopped.signal})`);
          check(checkpoint?.ended === null, `its checkpoint has not ended (${checkpoint?.ended})`);
        }
        check(between.created < records.total - records.bad.length, 'the job was stopped mid-way');
        const resumed = await runClient(base, folder);
        check(resumed.code === 0, `the run that resumed it exited with 0 (${resumed.code})`);
        check(resumed.stdout.includes('resuming'), 'it said it resumed');
        await sleep(200);
        const final = await stats(base);
        checkEnd(summaryOf(resumed.stdout), final, records, Date.now() - begun);
        if (signal === 'SIGKILL') {
          const again = await runClient(base, folder);
          const after = await stats(base);
          const sent = (s: Stats) => Object.values(s.answered).reduce((sum, n) => sum + n, 0);
          check(again.code === 0 && again.stdout.includes('done already'), 'started once more, it says the job is done');
          check(sent(after) === sent(final), `and sends nothing (${sent(after) - sent(final)} requests)`);
          checkEnd(summaryOf(again.stdout), after, records, again.ms);
        }
      } finally {
        rmSync(folder, { recursive: true, force: true });
      }
    }
  } finally {
    server.kill('SIGTERM');
  }
  console.log(`\n${((Date.now() - started) / 1000).toFixed(1)} s in all`);
}

if (process.argv.includes('--demo')) {
  process.exitCode = await demo();
} else {
  await scenarios();
  if (failures > 0) {
    console.error(`bulk-import example: ${failures} check(s) failed`);
    process.exit(1);
  }
  console.log('bulk-import example: passed');
}
