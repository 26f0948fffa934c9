/**
 * The API of the `bulk-import` scenario, on 127.0.0.1: express 5 with express-rate-limit (a fixed window
 * of 1 s holding RATE requests, draft-8 `RateLimit` headers on every response, `Retry-After` on a 429)
 * in front of `POST /records`, which takes 20 to 60 ms, answers 422 to the ids in BAD, 503 (without
 * `Retry-After`) to the first request of the ids in FLAKY, and 201 to the rest, counting each record
 * created. `node --import tsx import-server.mts RATE BAD FLAKY` (ids comma-separated). `GET /stats` gives
 * the counts (not limited), `POST /reset` zeroes them and starts the limiter afresh. It prints
 * `{"port":N}` once listening, and exits on SIGTERM or after 15 minutes at the latest.
 *
 * It honours an `Idempotency-Key` header: a request whose key names a record created already is
 * answered 201 again, as the first one was, and creates nothing (counted in `replayed`).
 */
import express from 'express';
import { rateLimit } from 'express-rate-limit';

const [rateText, badText = '', flakyText = ''] = process.argv.slice(2);
const rate = Number(rateText);
if (!(rate > 0)) throw new Error('usage: import-server.mts RATE BAD_IDS FLAKY_IDS');
const bad = new Set(badText.split(',').filter(Boolean));
const flaky = new Set(flakyText.split(',').filter(Boolean));
const LIFETIME_MS = 15 * 60_000;

/** Created records by id (more than 1 is a duplicate), and the statuses answered. */
let created = new Map<string, number>();
/** Requests whose `Idempotency-Key` named a record created already: answered, not created again. */
let replayed = 0;
let answered: Record<number, number> = {};
/** The ids whose first request has come: a flaky record fails once. */
let seen = new Set<string>();

const count = (status: number) => (answered[status] = (answered[status] ?? 0) + 1);

const limiter = rateLimit({
  windowMs: 1000,
  limit: rate,
  standardHeaders: 'draft-8',
  legacyHeaders: false,
  keyGenerator: () => 'shared',
  handler: (_req, res, _next, options) => {
    count(429);
    res.status(options.statusCode).send('too many');
  },
});

const app = express();
app.get('/stats', (_req, res) => {
  res.json({ created: created.size, duplicates: [...created.values()].filter((n) => n > 1).length, replayed, answered });
});
app.post('/reset', (_req, res) => {
  created = new Map();
  replayed = 0;
  answered = {};
  seen = new Set();
  void limiter.resetKey('shared');
  res.json({ reset: true });
});
app.post('/records', limiter, express.json(), (req, res) => {
  const id = String((req.body as { id?: unknown }).id);
  const first = !seen.has(id);
  seen.add(id);
  setTimeout(
    () => {
      const status = bad.has(id) ? 422 : first && flaky.has(id) ? 503 : 201;
      count(status);
      const key = req.get('idempotency-key');
      if (status === 201 && key !== undefined && created.has(key)) replayed++;
      else if (status === 201) created.set(key ?? id, (created.get(key ?? id) ?? 0) + 1);
      res.status(status).json(status === 201 ? { id } : { error: status === 422 ? 'invalid record' : 'try again' });
    },
    20 + Math.random() * 40,
  );
});

const server = app.listen(0, '127.0.0.1', () => {
  const address = server.address();
  process.stdout.write(`${JSON.stringify({ port: typeof address === 'object' && address !== null ? address.port : 0 })}\n`);
});
const stop = () => server.close(() => process.exit(0));
process.on('SIGTERM', stop);
setTimeout(stop, LIFETIME_MS).unref();
