// A bulk import: the records of a CSV file, POSTed to a rate-limited HTTP API in slow-start batches, with a
// live progress line. Ctrl-C cancels; a process stopped at any instant, killed even, takes up the job
// where it stood when started again. `API_URL=http://127.0.0.1:3000 RECORDS=records.csv npx tsx client.ts`
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { basename } from 'node:path';
import { auditTime, first, Subject } from 'rxjs';
import { httpStatus, readCheckpoint, slowStart, slowStartCheckpoint, slowStartState } from 'rxjs-slow-start';
import type { SlowStartEvent, TaskContext, TaskKey } from 'rxjs-slow-start';

const { API_URL = 'http://127.0.0.1:3000', RECORDS = 'records.csv', CHECKPOINT = `${RECORDS}.checkpoint.json` } = process.env;
// The job's name prefixes its Idempotency-Keys, so that another file's record 1 is another record.
const job = basename(RECORDS, '.csv');
// id,name,email: this file has no quoted fields.
const rows = readFileSync(RECORDS, 'utf8').trim().split('\n').slice(1);
const records = rows.map((row) => row.split(',')).map(([id, name, email]) => ({ id: Number(id), name, email }));

// The job's last checkpoint, if it ran before. One that completed sends nothing: a new job needs the file gone.
const resume = existsSync(CHECKPOINT) ? readCheckpoint(JSON.parse(readFileSync(CHECKPOINT, 'utf8'))) : undefined;
if (resume?.ended === 'completed') console.log(`${job}: done already, nothing to send (delete ${CHECKPOINT} to import again)`);
else if (resume !== undefined) console.log(`${job}: resuming (the last run ${resume.ended ?? 'was killed'})`);

const events = new Subject<SlowStartEvent<Response>>();
// Every checkpoint stored, written aside then renamed: a process killed mid-write leaves the last one whole.
events.pipe(slowStartCheckpoint()).subscribe((checkpoint) => {
  writeFileSync(`${CHECKPOINT}.tmp`, JSON.stringify(checkpoint));
  renameSync(`${CHECKPOINT}.tmp`, CHECKPOINT);
});

// Progress: on a terminal one line, rewritten 10 times a second; piped, a line a second.
const tty = process.stdout.isTTY;
const states = events.pipe(slowStartState());
const progress = states.pipe(auditTime(tty ? 100 : 1000)).subscribe(({ succeeded, itemFailed, inFlight, retrying, successRate = 0 }) => {
  const now = `${inFlight} in flight, ${retrying} to retry, ${Math.round(successRate)}/s`;
  const line = `${succeeded} created, ${itemFailed} refused, of ${records.length}; ${now}`;
  process.stdout.write(tty ? `\r${line}\x1b[K` : `${line}\n`);
});

// The summary: the state after the end, which counts what the runs this one resumes did too. Without
// an end (a checkpoint of another file refused before anything starts), the exit code stays 1.
process.exitCode = 1;
const reasons = new Map<TaskKey, string>();
events.subscribe((event) => {
  if (event.type === 'failed' && event.kind === 'item') reasons.set(event.key, (event.reason as Error).message);
});
states.pipe(first((state) => state.ended !== undefined)).subscribe((state) => {
  progress.unsubscribe(); // the summary says it all
  const refused = [...state.tasks].filter(([, status]) => status === 'itemFailed').map(([key]) => key);
  const left = records.length - state.succeeded - refused.length;
  console.log(`${tty ? '\n' : ''}${job} ${state.ended}: ${state.succeeded} created, ${refused.length} refused, ${left} left`);
  const byReason = new Map<string, TaskKey[]>();
  for (const key of refused) {
    const reason = reasons.get(key) ?? 'in an earlier run';
    byReason.set(reason, [...(byReason.get(reason) ?? []), key]);
  }
  for (const [reason, keys] of byReason) console.log(`  ${keys.length} refused, ${reason}: ${keys.join(', ')}`);
  if (state.ended === 'cancelled') console.log(`  ${state.cancelled} requests aborted in flight; run again to finish the job`);
  process.exitCode = state.ended === 'completed' ? 0 : state.ended === 'cancelled' ? 130 : 1;
});

// One task per record; its key (the record's id) makes the request's Idempotency-Key.
const tasks = records.map((record) => ({ key, signal }: TaskContext) => {
  const headers = { 'content-type': 'application/json', 'idempotency-key': `${job}-${key}` };
  return fetch(`${API_URL}/records`, { method: 'POST', headers, body: JSON.stringify(record), signal });
});
const run = slowStart(tasks, {
  keys: records.map((record) => record.id),
  // Window pacing: a request starts as soon as one ends, within the slow-start bound and what the API's
  // RateLimit headers allow (rateLimit), at most 32 at a time.
  pacing: 'window',
  rateLimit: true,
  maxBatchSize: 32,
  // 422 is the record's fault: it fails alone, and the job goes on (but 5 in a row stop it: then it is not the
  // records). The default does the rest: 429s and 503s are tried again, up to 5 tries a record; anything else,
  // or a record out of tries, stops the job (run it again once the cause is mended).
  retry: { when: (error) => (httpStatus(error) === 422 ? 'item' : undefined), maxAttempts: 5 },
  events,
  resume,
}).subscribe({ error: (error: unknown) => console.error(`stopped: ${String(error)}`) });
process.once('SIGINT', () => run.unsubscribe());
