/**
 * Every `fetch` snippet of README.md and of the guides in docs/, run as written against a server on
 * 127.0.0.1 that answers as APIs do: a 422 for a bad record, a 429 with `Retry-After` and a 503 without,
 * each once for some requests, and a 415 for a body that does not say it is JSON. The snippets are read
 * from the documents each time and compiled as the README check compiles
 * them; a relative URL is resolved against the server, as a page's `fetch` resolves it against its
 * origin. Each test checks that the snippet does what its text says.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import * as rxjs from 'rxjs';
import ts from 'typescript';
import * as slowStart from '../../src/index';
import { tsSnippets } from '../support/docs';

/** The ```ts snippets of the documents that call `fetch`, each with its document and the URL it fetches first. */
function fetchSnippets(): { path: string; url: string | undefined; code: string }[] {
  return tsSnippets()
    .filter(({ code }) => code.includes('fetch('))
    .map(({ path, code }) => ({ path, url: /fetch\('([^']+)'|fetch\(`([^`]+)`|fetch\((\w+)/.exec(code)?.slice(1).find(Boolean), code }));
}

/** The code of the one fetch snippet of `path` that fetches `url` first. */
function snippet(path: string, url: string): string {
  const found = fetchSnippets().filter((candidate) => candidate.path === path && candidate.url === url);
  if (found.length !== 1) throw new Error(`${path} has ${found.length} fetch snippets of ${url}, not one`);
  return found[0].code;
}

/** What the server is told to answer, request by request, and what it did. */
interface Api {
  readonly base: string;
  /** Records created, by id: more than 1 would be a duplicate. */
  readonly created: Map<string, number>;
  /** Statuses answered, in order. */
  readonly answered: number[];
  close(): Promise<void>;
}

/** An id: the record's, or the URL's last segment. */
function idOf(url: string, body: string): string {
  try {
    const parsed = JSON.parse(body) as { id?: unknown; name?: unknown };
    if (typeof parsed.id === 'string') return parsed.id;
    if (typeof parsed.name === 'string') return parsed.name;
  } catch {
    // Not JSON: the URL names the record.
  }
  return url;
}

/**
 * A server that refuses `bad` ids with 422 every time, answers the first request of each id in
 * `throttled` with a 429 (`Retry-After: 1`) and of each in `unavailable` with a 503, and creates the rest.
 */
async function startApi(bad: Set<string>, throttled: Set<string>, unavailable: Set<string>): Promise<Api> {
  const created = new Map<string, number>();
  const answered: number[] = [];
  const seen = new Set<string>();
  const server: Server = createServer((request: IncomingMessage, response: ServerResponse) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString()));
    request.on('end', () => {
      // As an API behind `express.json()`: a body must say it is JSON, or it is not read.
      if (body !== '' && request.headers['content-type'] !== 'application/json') {
        answered.push(415);
        response.writeHead(415).end();
        return;
      }
      const id = idOf(request.url ?? '', body);
      const first = !seen.has(id);
      seen.add(id);
      const status = bad.has(id) ? 422 : first && throttled.has(id) ? 429 : first && unavailable.has(id) ? 503 : 201;
      answered.push(status);
      if (status === 201) created.set(id, (created.get(id) ?? 0) + 1);
      response.writeHead(status, status === 429 ? { 'Retry-After': '1' } : {});
      response.end(status === 201 ? JSON.stringify({ id }) : '');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    base: `http://127.0.0.1:${port}`,
    created,
    answered,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/**
 * Runs a snippet's code as a module, with `names` for what its snippet-context declares, `rxjs` and the
 * package for its imports, and a `fetch` that resolves a relative URL against `base`. Returns what it logged.
 */
function runSnippet(code: string, names: Record<string, unknown>, base: string): string[] {
  const logged: string[] = [];
  const { outputText } = ts.transpileModule(code, { compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022 } });
  const modules: Record<string, unknown> = { rxjs, 'rxjs-slow-start': slowStart };
  const require = (name: string): unknown => {
    if (!(name in modules)) throw new Error(`a snippet imports ${name}`);
    return modules[name];
  };
  const console = { log: (...parts: unknown[]) => logged.push(parts.map(String).join(' ')) };
  const fetchFrom = (url: string, init?: RequestInit) => fetch(new URL(url, base), init);
  const parameters = ['require', 'exports', 'console', 'fetch', ...Object.keys(names)];
  // eslint-disable-next-line @typescript-eslint/no-implied-eval -- the snippet is the document's own code
  const module = new Function(...parameters, outputText) as (...values: unknown[]) => void;
  module(require, {}, console, fetchFrom, ...Object.values(names));
  return logged;
}

/** Waits until `done()` holds, for at most `ms`; the snippets run on real timers against a real server. */
async function until(done: () => boolean, ms = 15_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!done()) {
    if (Date.now() > deadline) throw new Error('the snippet did not finish in time');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('the fetch snippets of the README and the guides, against a server on 127.0.0.1', () => {
  // Real timers: a 429 asks for 1 s, a 503 waits the default backoff of 0.5 to 1 s.
  jest.setTimeout(30_000);

  it('are the ones tested here, each found', () => {
    // The job that survives its process is run by the crash test (npm run crash-test), killed and
    // resumed; the README's bulk import is examples/node-bulk-import/client.ts (readme.spec.ts checks
    // it), run three ways against its server by `npm run example:bulk-import`.
    expect(fetchSnippets().map(({ path, url }) => `${path} ${url}`)).toEqual([
      'README.md ${API_URL}/records',
      'docs/durable-jobs.md http://127.0.0.1:3000/records',
      'docs/failures.md /api/records',
      'docs/rate-limit.md url',
    ]);
  });

  it.each(['docs/failures.md'])(
    'the retry example of %s: 429s and 503s retried, 422s failed alone, every other record created once',
    async (path) => {
      const records = Array.from({ length: 40 }, (_, i) => ({ id: `r${i}` }));
      const api = await startApi(new Set(['r3', 'r17']), new Set(['r5', 'r20']), new Set(['r8', 'r30']));
      try {
        const logged = runSnippet(snippet(path, '/api/records'), { records }, api.base);
        await until(() => logged.some((line) => line.startsWith('38 created')));
        const refused = logged.reduce((sum, line) => sum + Number(/, (\d+) refused here$/.exec(line)?.[1]), 0);
        expect(refused).toBe(2);
        expect(api.created.size).toBe(38);
        expect([...api.created.values()].every((count) => count === 1)).toBe(true);
        expect(api.answered.filter((status) => status === 429)).toHaveLength(2);
        expect(api.answered.filter((status) => status === 503)).toHaveLength(2);
      } finally {
        await api.close();
      }
    },
  );

  it('the rateLimit example of docs/rate-limit.md: every URL posted once in the end, the throttled ones again after their pause', async () => {
    const ids = Array.from({ length: 10 }, (_, i) => `/item/${i}`);
    const api = await startApi(new Set(), new Set(['/item/2']), new Set(['/item/6']));
    try {
      runSnippet(snippet('docs/rate-limit.md', 'url'), { urls: ids.map((id) => `${api.base}${id}`) }, api.base);
      await until(() => api.created.size === 10);
      expect([...api.created.values()].every((count) => count === 1)).toBe(true);
      expect(api.answered.filter((status) => status !== 201).sort()).toEqual([429, 503]);
    } finally {
      await api.close();
    }
  });
});
