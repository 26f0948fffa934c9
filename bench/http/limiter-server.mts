/**
 * A real rate limiter in front of a handler that takes a log-normal latency, on 127.0.0.1, for the
 * `real-limiters` scenario. `node --import tsx limiter-server.mts KIND RATE [BURST]`:
 *
 * - `express`: express 5 with express-rate-limit, a fixed window of 1 s holding RATE requests, with
 *   draft-8 `RateLimit` headers on every response and `Retry-After` on a 429;
 * - `flexible`: rate-limiter-flexible's `BurstyRateLimiter` (RATE a second, and a burst of BURST, half
 *   as many by default, over 10 s), whose 429 carries only `Retry-After`;
 * - `flexible-429`: the same limiter with the headers of its README's recipe, `Retry-After` (seconds
 *   with a fraction) and `X-RateLimit-Limit`, `-Remaining` and `-Reset` (epoch seconds), on a 429 and
 *   on nothing else: a success announces nothing.
 *
 * Every client shares one key, so they all draw from one budget. `GET /task` is the work, `GET /stats`
 * the server's own counts (not limited), `POST /reset` zeroes them and starts the limiter afresh. It
 * prints `{"port":N}` once listening, and exits on SIGTERM or after 15 minutes at the latest.
 */
import express from 'express';
import { rateLimit, type RateLimitInfo } from 'express-rate-limit';
import { BurstyRateLimiter, RateLimiterMemory, type RateLimiterRes } from 'rate-limiter-flexible';

const [kind, rateText, burstText] = process.argv.slice(2);
const rate = Number(rateText);
const burst = burstText === undefined ? Math.ceil(rate / 2) : Number(burstText);
if ((kind !== 'express' && kind !== 'flexible' && kind !== 'flexible-429') || !(rate > 0) || !(burst >= 0)) {
  throw new Error('usage: limiter-server.mts express|flexible|flexible-429 RATE [BURST]');
}

const MEDIAN_MS = 30;
const SIGMA = 0.5;
const LIFETIME_MS = 15 * 60_000;

let served = 0;
let refused = 0;
/** When the first request since the last reset came: the run's first window is the second after it. */
let firstAt: number | undefined;
/** 429s in that first second, before a client can have learned anything of the budget. */
let refusedFirstSecond = 0;
/**
 * The limiter's windows since the last reset, as it counts them: when each began (ms after the first
 * request) and the requests it let through. Both limiters begin a window at the first request after
 * the last one ended, so time between windows is time no client asked.
 */
let windows: Array<{ start: number; accepted: number }> = [];

/** Counts a request the limiter let through; `opensWindow` when it is the first of a window. */
function accept(opensWindow: boolean): void {
  if (opensWindow) windows.push({ start: Date.now() - (firstAt ?? Date.now()), accepted: 0 });
  const current = windows.at(-1);
  if (current !== undefined) current.accepted++;
}

/** Counts a 429. */
function refuse(): void {
  refused++;
  if (firstAt !== undefined && Date.now() - firstAt < 1000) refusedFirstSecond++;
}

/** A log-normal latency with the given median (Box-Muller). */
function latency(): number {
  const normal = Math.sqrt(-2 * Math.log(1 - Math.random())) * Math.cos(2 * Math.PI * Math.random());
  return MEDIAN_MS * Math.exp(SIGMA * normal);
}

type Limiter = express.RequestHandler;

/** express-rate-limit wants its middleware made once, as the app starts: a reset empties its store instead. */
const expressMiddleware = rateLimit({
  windowMs: 1000,
  limit: rate,
  standardHeaders: 'draft-8',
  legacyHeaders: false,
  keyGenerator: () => 'shared',
  handler: (_req, res, _next, options) => {
    refuse();
    res.status(options.statusCode).send('too many');
  },
});

function expressLimiter(): Limiter {
  void expressMiddleware.resetKey('shared');
  return (req, res, next) =>
    expressMiddleware(req, res, () => {
      accept((req as typeof req & { rateLimit?: RateLimitInfo }).rateLimit?.used === 1);
      next();
    });
}

/** The headers rate-limiter-flexible's README recipe sets on a 429. */
function recipeHeaders(rejection: RateLimiterRes): Record<string, string> {
  return {
    'Retry-After': String(rejection.msBeforeNext / 1000),
    'X-RateLimit-Limit': String(rate),
    'X-RateLimit-Remaining': String(rejection.remainingPoints),
    'X-RateLimit-Reset': String(Math.ceil((Date.now() + rejection.msBeforeNext) / 1000)),
  };
}

/** rate-limiter-flexible, its 429 with `Retry-After` alone, or with the recipe's headers. */
function flexibleLimiter(recipe: boolean): Limiter {
  const limiter = new BurstyRateLimiter(
    new RateLimiterMemory({ points: rate, duration: 1 }),
    new RateLimiterMemory({ keyPrefix: 'burst', points: burst, duration: 10 }),
  );
  return (_req, res, next) => {
    limiter.consume('shared').then(
      (accepted: RateLimiterRes) => {
        accept(accepted.isFirstInDuration);
        next();
      },
      (rejection: RateLimiterRes) => {
        refuse();
        if (recipe) res.set(recipeHeaders(rejection));
        else res.set('Retry-After', String(Math.round(rejection.msBeforeNext / 1000) || 1));
        res.status(429).send('too many');
      },
    );
  };
}

const newLimiter = () => (kind === 'express' ? expressLimiter() : flexibleLimiter(kind === 'flexible-429'));
let limiter = newLimiter();

const app = express();
app.get('/stats', (_req, res) => {
  res.json({ served, refused, refusedFirstSecond, windows });
});
app.post('/reset', (_req, res) => {
  served = 0;
  refused = 0;
  firstAt = undefined;
  refusedFirstSecond = 0;
  windows = [];
  limiter = newLimiter();
  res.json({ served, refused, refusedFirstSecond, windows });
});
app.get(
  '/task',
  (req, res, next) => {
    firstAt ??= Date.now();
    limiter(req, res, next);
  },
  (_req, res) => {
    setTimeout(() => {
      served++;
      res.send('ok');
    }, latency());
  },
);

const server = app.listen(0, '127.0.0.1', () => {
  const address = server.address();
  process.stdout.write(`${JSON.stringify({ port: typeof address === 'object' && address !== null ? address.port : 0 })}\n`);
});
const stop = () => server.close(() => process.exit(0));
process.on('SIGTERM', stop);
setTimeout(stop, LIFETIME_MS).unref();
