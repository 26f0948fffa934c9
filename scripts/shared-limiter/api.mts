/**
 * The referee of `npm run shared-limiter-test`: an API on 127.0.0.1 behind rate-limiter-flexible's
 * in-memory limiter (LIMIT requests a second for every client together), answering 429 above it, and
 * announcing its policy and where its budget stands on every answer, and counting what it served and
 * refused in each of its windows. `GET /stats`. Prints `{"port":N}` once
 * listening; exits on SIGTERM, or after 5 minutes at the latest.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { RateLimiterMemory } from 'rate-limiter-flexible';

const limit = Number(process.argv[2]);
if (!(limit > 0)) throw new Error('usage: api.mts LIMIT');
const limiter = new RateLimiterMemory({ points: limit, duration: 1 });
let served = 0;
let refused = 0;

const server = createServer((request, response) => {
  if (request.url === '/stats') {
    response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ served, refused }));
    return;
  }
  // Where the budget stands, on every answer, as IETF draft 8 says it (express-rate-limit's `draft-8`):
  // the policy, LIMIT a window of 1 s, is what the clients' buckets take their rate from.
  const headers = (state: { remainingPoints: number; msBeforeNext: number }) => ({
    'ratelimit-policy': `"shared";q=${limit};w=1`,
    ratelimit: `"shared";r=${state.remainingPoints};t=${Math.ceil(state.msBeforeNext / 1000)}`,
  });
  limiter.consume('shared').then(
    (state) => {
      served++;
      setTimeout(() => response.writeHead(201, headers(state)).end('created'), 5 + Math.random() * 20);
    },
    (refusal: { remainingPoints: number; msBeforeNext: number }) => {
      refused++;
      response.writeHead(429, { ...headers(refusal), 'retry-after': String(Math.ceil(refusal.msBeforeNext / 1000)) }).end('too many');
    },
  );
});
server.listen(0, '127.0.0.1', () => process.stdout.write(`${JSON.stringify({ port: (server.address() as AddressInfo).port })}\n`));
process.once('SIGTERM', () => process.exit(0));
setTimeout(() => process.exit(0), 5 * 60_000).unref();
