/**
 * The API the bulk import talks to, as a stand-in for a real one, on 127.0.0.1 only: express 5 behind
 * express-rate-limit (a fixed window of 1 s holding RATE requests, shared by every client, draft-8
 * `RateLimit` and `RateLimit-Policy` headers on every answer, `Retry-After` on a 429).
 *
 * `POST /records` takes `{ id, name, email }` and answers after 20 to 60 ms:
 * - 422 to a record whose data is bad (no name, an email that is not an address), every time; the
 *   reason is its status text, and its JSON body;
 * - 503 (no `Retry-After`) to the first try of FAIL of the records (2 %), chosen by a hash of the
 *   record's id and SEED: the same records every run;
 * - 201 to the rest, creating the record.
 * It honours `Idempotency-Key`: a key it answered 201 or 422 before gets that answer again, counted as
 * a replay, and creates nothing. The record is created (or refused) as its request arrives: a client
 * that goes away before the answer (Ctrl-C, a kill) has still created it, as with a real API.
 *
 * `GET /stats` gives the counts: records created (by id), created twice, refused, replays, requests the
 * client went away from, and answers by status. `POST /reset` forgets everything, keys included.
 *
 * `PORT=0 RATE=100 FAIL=0.02 SEED=1 npx tsx server.ts` (these are the defaults; port 0 is a free one).
 * It prints `{"port":N}` on stdout once listening, and stops on SIGTERM or SIGINT.
 */
import express from 'express';
import { rateLimit } from 'express-rate-limit';

const { PORT = '0', RATE = '100', FAIL = '0.02', SEED = '1' } = process.env;

interface Answer {
  status: number;
  reason: string;
  body: object;
}

/** How many times each record was created, by id: more than once is a duplicate. */
let created = new Map<string, number>();
/** The ids of the records refused with a 422. */
let refused = new Set<string>();
/** The ids whose first try has come: a flaky record fails only then. */
let tried = new Set<string>();
/** The answer given to each `Idempotency-Key`, given again when the key comes back. */
let answers = new Map<string, Answer>();
let replays = 0;
let aborted = 0;
let answered: Record<number, number> = {};

const count = (status: number) => (answered[status] = (answered[status] ?? 0) + 1);

/** A number in [0, 1) from a text, the same every run (FNV-1a). */
function hash(text: string): number {
  let h = 0x811c9dc5;
  for (let at = 0; at < text.length; at++) h = Math.imul(h ^ text.charCodeAt(at), 0x01000193);
  return (h >>> 0) / 2 ** 32;
}

/** What is wrong with a record, or undefined. */
function invalid(record: { name?: unknown; email?: unknown }): string | undefined {
  if (typeof record.name !== 'string' || record.name.trim() === '') return 'name is missing';
  if (typeof record.email !== 'string' || !/^[^@\s]+@[^@\s]+\.[^@\s]+$/.test(record.email)) return 'email is not an address';
  return undefined;
}

/** What a request for `record` gets, and what it does: a record is created or refused as its request arrives. */
function handle(record: { id?: unknown; name?: unknown; email?: unknown }): Answer {
  const id = String(record.id);
  const first = !tried.has(id);
  tried.add(id);
  const problem = invalid(record);
  if (problem !== undefined) {
    refused.add(id);
    return { status: 422, reason: problem, body: { id, error: problem } };
  }
  if (first && hash(`${SEED}:${id}`) < Number(FAIL)) return { status: 503, reason: 'Service Unavailable', body: { error: 'try again' } };
  created.set(id, (created.get(id) ?? 0) + 1);
  return { status: 201, reason: 'Created', body: { id } };
}

const limiter = rateLimit({
  windowMs: 1000,
  limit: Number(RATE),
  standardHeaders: 'draft-8',
  legacyHeaders: false,
  // One budget for every client, as an API key's would be.
  keyGenerator: () => 'everyone',
  handler: (_req, res, _next, options) => {
    count(429);
    res.status(options.statusCode).json({ error: 'too many requests' });
  },
});

const app = express();
app.get('/stats', (_req, res) => {
  res.json({
    created: created.size,
    duplicates: [...created.values()].filter((times) => times > 1).length,
    refused: refused.size,
    refusedIds: [...refused].sort((a, b) => Number(a) - Number(b)),
    replays,
    aborted,
    answered,
  });
});
app.post('/reset', (_req, res) => {
  created = new Map();
  refused = new Set();
  tried = new Set();
  answers = new Map();
  replays = 0;
  aborted = 0;
  answered = {};
  limiter.resetKey('everyone');
  res.json({ reset: true });
});
app.post('/records', limiter, express.json(), (req, res) => {
  res.on('close', () => {
    if (!res.writableFinished) aborted++;
  });
  const key = req.get('idempotency-key');
  const stored = key === undefined ? undefined : answers.get(key);
  if (stored !== undefined) replays++;
  const answer = stored ?? handle(req.body as { id?: unknown });
  // A 503 took no effect: the key may be tried again.
  if (key !== undefined && stored === undefined && answer.status !== 503) answers.set(key, answer);
  setTimeout(
    () => {
      if (res.destroyed) return;
      count(answer.status);
      res.statusMessage = answer.reason;
      res.status(answer.status).json(answer.body);
    },
    20 + Math.random() * 40,
  );
});

const server = app.listen(Number(PORT), '127.0.0.1', () => {
  const address = server.address();
  console.log(JSON.stringify({ port: typeof address === 'object' && address !== null ? address.port : null }));
});
const stop = () => server.close(() => process.exit(0));
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
