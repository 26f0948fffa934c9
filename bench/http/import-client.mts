/**
 * One client of the `bulk-import` scenario: `node --import tsx import-client.mts BASE STRATEGY RECORDS`
 * posts RECORDS records (`{ id: 'r0' }`, ...) to `BASE/records` with real `fetch`, and prints
 * `{"makespan":ms,"created":N,"itemFailed":N,"error":null|"..."}`: what it counted itself.
 *
 * - `kinds`: the README's recipe, `slowStart` with window pacing, `rateLimit: true` and `retry` whose
 *   `when` says "422 is an item" and leaves the rest to the default; no `delay` of its own.
 * - `before-kinds`: the recipe before the kinds: every 429, 503 or dropped request a throttle (with its
 *   `Retry-After`, else the backoff), a 422 returned as a value and counted by hand, `rateLimit: true`.
 * - `p-queue`: p-queue 8 (32 at a time) and p-retry 6 (10 retries, 5 s apart at most), as a user writes them: a 429 pauses the
 *   queue for its `Retry-After`, a 503 or a dropped request is retried after p-retry's backoff, a 422
 *   is not retried.
 */
import PQueue from 'p-queue';
import pRetry, { AbortError } from 'p-retry';
import { httpStatus, retryAfter, slowStart, type TaskContext } from '../subject.mjs';

const [base, strategy, recordsText] = process.argv.slice(2);
const records = Array.from({ length: Number(recordsText) }, (_, i) => ({ id: `r${i}` }));
const url = `${base}/records`;
const post = (record: { id: string }, signal?: AbortSignal) =>
  fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(record), signal });

let created = 0;
let itemFailed = 0;

async function kinds(): Promise<void> {
  const create =
    (record: { id: string }) =>
    ({ signal }: TaskContext) =>
      post(record, signal);
  const run = slowStart(records.map(create), {
    pacing: 'window',
    maxBatchSize: 32,
    rateLimit: true,
    retry: { when: (error) => (httpStatus(error) === 422 ? 'item' : undefined), maxAttempts: 5 },
  });
  for await (const result of toIterable(run)) {
    created += result.size - result.itemFailures.length;
    itemFailed += result.itemFailures.length;
  }
}

async function beforeKinds(): Promise<void> {
  /** An HTTP failure, with what `retryAfter` reads. */
  class Failure extends Error {
    constructor(readonly response: Response) {
      super(`HTTP ${response.status}`);
    }
  }
  const create =
    (record: { id: string }) =>
    async ({ signal }: TaskContext): Promise<number> => {
      const response = await post(record, signal);
      await response.arrayBuffer();
      if (response.status === 422) return 422;
      if (!response.ok) throw new Failure(response);
      return response.status;
    };
  const throttled = (error: unknown) =>
    error instanceof TypeError || (error instanceof Failure && [429, 503].includes(error.response.status));
  const run = slowStart(records.map(create), {
    pacing: 'window',
    maxBatchSize: 32,
    rateLimit: true,
    httpErrors: false,
    retry: { when: (error) => (throttled(error) ? (retryAfter(error) ?? true) : false), maxAttempts: 5 },
  });
  for await (const result of toIterable(run)) {
    for (const status of result.values) {
      if (status === 422) itemFailed++;
      else created++;
    }
  }
}

async function pQueue(): Promise<void> {
  const queue = new PQueue({ concurrency: 32 });
  const pauseFor = (ms: number) => {
    queue.pause();
    setTimeout(() => queue.start(), ms);
  };
  const create = (record: { id: string }) =>
    pRetry(
      async () => {
        const response = await post(record);
        await response.arrayBuffer();
        if (response.status === 429) {
          const seconds = Number(response.headers.get('retry-after'));
          pauseFor(Number.isFinite(seconds) ? seconds * 1000 : 1000);
          throw new Error('429');
        }
        if (response.status === 422) throw new AbortError('422');
        if (!response.ok) throw new Error(String(response.status));
      },
      { retries: 10, minTimeout: 500, maxTimeout: 5_000 },
    ).then(
      () => created++,
      (error: unknown) => {
        if (error instanceof Error && error.message === '422') itemFailed++;
        else throw error;
      },
    );
  await Promise.all(records.map((record) => queue.add(() => create(record))));
}

/** The results of a run, one by one. */
async function* toIterable<T>(run: import('rxjs').Observable<T>): AsyncGenerator<T> {
  const results: T[] = [];
  let wake: (() => void) | undefined;
  let done = false;
  let failure: unknown;
  run.subscribe({
    next: (result) => (results.push(result), wake?.()),
    error: (error: unknown) => ((failure = error), (done = true), wake?.()),
    complete: () => ((done = true), wake?.()),
  });
  for (;;) {
    while (results.length > 0) yield results.shift() as T;
    if (done) break;
    await new Promise<void>((resolve) => (wake = resolve));
  }
  if (failure !== undefined) throw failure;
}

const strategies: Record<string, () => Promise<void>> = { kinds, 'before-kinds': beforeKinds, 'p-queue': pQueue };
const job = strategies[strategy];
if (job === undefined) throw new Error(`unknown strategy ${strategy}`);
const start = performance.now();
let error: string | null = null;
await job().catch((e: unknown) => (error = String(e)));
process.stdout.write(`${JSON.stringify({ makespan: performance.now() - start, created, itemFailed, error })}\n`);
