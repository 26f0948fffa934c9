// A fake of the items API for the end-to-end test and for `ng serve` (npm run api), on plain node:http,
// bound to the loopback interface only. POST /api/items answers after some latency:
//   201 Created    with { id, name }, the first time an item is created;
//   409 Conflict   for an item that exists (some exist before the first request);
//   429 Too Many Requests with Retry-After, once the quota of requests is used up. The quota fills
//                  again Retry-After seconds after the first refusal.
//   500 Internal Server Error, the first time an item of `failing` is asked for (a real failure).
// Every request is recorded, including those the browser aborts before the answer (Cancel): the
// test reads `server.stats()`, and `server.itemCounts()` to hold the page's counts against the
// server's. Anything else is served from `staticDir` (the built app), if given.
import { createServer } from 'node:http';
import { readFile } from 'node:fs/promises';
import { extname, join, normalize } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

const contentTypes = {
  '.html': 'text/html',
  '.js': 'text/javascript',
  '.css': 'text/css',
  '.ico': 'image/x-icon',
  '.json': 'application/json',
};

/**
 * @param {object} [options]
 * @param {number} [options.port] 0 (the default) picks a free port
 * @param {string} [options.staticDir] folder of the built app; without it only /api is served
 * @param {number} [options.quota] requests accepted before the first 429
 * @param {number} [options.retryAfterSeconds] how long the quota stays used up after the first 429
 * @param {[number, number]} [options.latencyMs] each answer takes between these many ms
 * @param {string[]} [options.existing] names of items that exist before the first request
 * @param {string[]} [options.failing] names of items whose first request is answered with 500
 */
export async function startApiServer({
  port = 0,
  staticDir,
  quota = 19,
  retryAfterSeconds = 1,
  latencyMs = [120, 260],
  existing = ['item-05', 'item-12'],
  failing = ['item-31'],
} = {}) {
  const failOnce = new Set(failing);
  /** name -> id */
  const items = new Map(existing.map((name, i) => [name, `existing-${i + 1}`]));
  let tokens = quota;
  /** When the used-up quota fills again (ms since the epoch), or undefined while there is quota. */
  let refillAt;
  let open = 0;
  let maxOpen = 0;
  /** @type {{ name: string, at: number, answer: number | 'aborted' }[]} */
  const requests = [];

  async function createItem(request, response) {
    const at = Date.now();
    const { name } = JSON.parse(await readBody(request));
    const record = { name, at, answer: /** @type {number | 'aborted'} */ ('aborted') };
    requests.push(record);
    if (refillAt !== undefined && at >= refillAt) {
      tokens = quota;
      refillAt = undefined;
    }
    if (tokens === 0) {
      refillAt ??= at + retryAfterSeconds * 1000;
      record.answer = 429;
      const retryAfter = String(Math.max(1, Math.ceil((refillAt - at) / 1000)));
      return send(response, 429, { message: `Quota of ${quota} requests used up` }, { 'Retry-After': retryAfter });
    }
    tokens--;
    open++;
    maxOpen = Math.max(maxOpen, open);
    const aborted = new AbortController();
    response.on('close', () => {
      if (!response.writableFinished) aborted.abort();
    });
    try {
      await sleep(latencyMs[0] + Math.random() * (latencyMs[1] - latencyMs[0]), undefined, { signal: aborted.signal });
    } catch {
      return; // the client went away: nothing is created, the record says 'aborted'
    } finally {
      open--;
    }
    if (failOnce.delete(name)) {
      record.answer = 500;
      return send(response, 500, { message: `${name} could not be stored` });
    }
    if (items.has(name)) {
      record.answer = 409;
      return send(response, 409, { message: `${name} exists` });
    }
    const id = `id-${items.size + 1}`;
    items.set(name, id);
    record.answer = 201;
    send(response, 201, { id, name });
  }

  async function serveStatic(request, response) {
    if (!staticDir) return send(response, 404, { message: 'no such route' });
    const path = normalize(decodeURIComponent(new URL(request.url ?? '/', 'http://localhost').pathname)).replace(/^(\.\.[/\\])+/, '');
    const file = join(staticDir, path);
    const body = await readFile(file).catch(() => readFile(join(staticDir, 'index.html'))); // the app routes the rest
    const type = contentTypes[extname(file)] ?? 'text/html';
    response.writeHead(200, { 'Content-Type': type, 'Content-Length': body.length });
    response.end(body);
  }

  const server = createServer((request, response) => {
    const handle = request.method === 'POST' && request.url === '/api/items' ? createItem : serveStatic;
    handle(request, response).catch((error) => send(response, 500, { message: String(error) }));
  });
  await new Promise((resolve) => server.listen(port, '127.0.0.1', () => resolve(undefined)));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('the server has no port');

  return {
    url: `http://127.0.0.1:${address.port}`,
    /** What the server has seen so far. */
    stats() {
      const count = (answer) => requests.filter((request) => request.answer === answer).length;
      const refusedBefore = (request, index) =>
        requests.slice(0, index).some((earlier) => earlier.name === request.name && earlier.answer === 429);
      return {
        requests: requests.length,
        open,
        maxOpen,
        created: count(201),
        conflicts: count(409),
        refused: count(429),
        /** Requests for an item that was refused (429) before: the client's retries. */
        retried: requests.filter(refusedBefore).length,
        failed: count(500),
        aborted: count('aborted') - open, // the open ones are not aborted (yet)
        quotaFillsAt: refillAt,
        log: requests.map((request) => ({ ...request })),
        items: new Map(items),
      };
    },
    /**
     * The items of the requests from the `since`-th on, counted by the answer to each item's latest
     * request: what the page's counts should say of the same items. A request still open reads
     * 'aborted' until it is answered, so count when none is open.
     */
    itemCounts(since = 0) {
      const latest = new Map(requests.slice(since).map((request) => [request.name, request.answer]));
      const count = (answer) => [...latest.values()].filter((each) => each === answer).length;
      return {
        items: latest.size,
        created: count(201),
        conflicts: count(409),
        refused: count(429),
        failed: count(500),
        aborted: count('aborted'),
      };
    },
    /** From now on, accepts `remaining` more requests, then refuses them (429) for `seconds`. */
    limit({ remaining, seconds }) {
      tokens = remaining;
      refillAt = undefined;
      retryAfterSeconds = seconds;
    },
    /** Stops at once: open connections are closed too. */
    close() {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve(undefined)));
    },
  };
}

function readBody(request) {
  return new Promise((resolve, reject) => {
    let body = '';
    request.setEncoding('utf8');
    request.on('data', (chunk) => (body += chunk));
    request.on('end', () => resolve(body));
    request.on('error', reject);
  });
}

function send(response, status, body, headers = {}) {
  if (response.destroyed) return;
  const text = JSON.stringify(body);
  response.writeHead(status, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(text), ...headers });
  response.end(text);
}

// `node e2e/api-server.mjs [port] [minutes]`: the API alone, for `ng serve` (its proxy sends /api here).
// It stops by itself after `minutes` (default 30), or on Ctrl-C.
if (import.meta.filename === process.argv[1]) {
  const port = Number(process.argv[2] ?? 4300);
  const minutes = Number(process.argv[3] ?? 30);
  const server = await startApiServer({ port });
  console.log(
    `fake items API on ${server.url}/api/items for ${minutes} minutes (quota 19 requests, then 429 for 1 s; 500 once for item-31)`,
  );
  await sleep(minutes * 60_000);
  await server.close();
}
