// End-to-end: the built app (dist/, from `ng build`) served with the fake API (api-server.mjs), driven
// in headless Chromium by playwright-core. One user's story, checked on the page and on the server:
//   1. Create 32 items: the batches ramp 1, 2, 4, 6, 6, 6; the quota (19 requests) runs out in the
//      sixth batch, whose 6 requests are refused with 429 and Retry-After: 1. They show as retrying,
//      the run waits the second the server asked for and goes on by itself: the 6 go again in batches
//      of 1, 2, 3 (the pace dropped), then the next batch of 4. With it on the wire, Cancel: the server
//      sees those requests aborted, and no request after them.
//   2. Resume: a batch of 1 again; item-31 is refused with 500, a real failure: the run stops after
//      its batch and shows the error.
//   3. Resume again: item-31 goes first, the run completes, every item exists once.
//   4. Create the 32 items again, with the server's quota set to 1 request and a Retry-After of 3 s:
//      the first is a 409 (done), the next batch of 2 is refused. Cancel during the pause: the two
//      show as abandoned, not failed, and are not sent again.
//   5. Create the items again and reload the page mid-job: the page resumes the job from the checkpoint
//      it kept in localStorage, its counts carry on, only what was on the wire is sent again, and the
//      job completes with the page's counts equal to the server's.
// After each step, the page's counts are held against the server's own (how it answered each item's
// latest request). It saves a screenshot of the page after step 3 to ../../docs/angular-example.png,
// prints the timings, and stops by itself: everything is closed after the story or after 120 s,
// whichever comes first.
import assert from 'node:assert/strict';
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { chromium } from 'playwright-core';
import { chromiumArgs, chromiumPath } from '../scripts/chromium.mjs';
import { startApiServer } from './api-server.mjs';

const here = import.meta.dirname;
const app = join(here, '../dist/bulk-create/browser');
const screenshot = join(here, '../../../docs/angular-example.png');
const deadlineMs = 120_000;

if (!existsSync(join(app, 'index.html'))) {
  console.error('dist/bulk-create/browser/index.html is missing: run ng build first (npm run e2e does)');
  process.exit(1);
}

const started = Date.now();
const timings = [];
let phaseStart = started;
const phase = (name) => {
  const now = Date.now();
  timings.push(`${name} ${now - phaseStart} ms`);
  phaseStart = now;
};

const server = await startApiServer({ staticDir: app });
const browser = await chromium.launch({ executablePath: chromiumPath(), args: chromiumArgs, headless: true });
const deadline = setTimeout(() => {
  console.error(`e2e: still running after ${deadlineMs / 1000} s, stopping`);
  void Promise.allSettled([browser.close(), server.close()]).then(() => process.exit(1));
}, deadlineMs);

/** The integers from `first` to `last`. */
const range = (first, last) => Array.from({ length: last - first + 1 }, (_, at) => first + at);

/** Polls `condition` (on the server's side) every 5 ms until it holds. */
async function until(what, condition, timeoutMs = 10_000) {
  const end = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > end) throw new Error(`e2e: timed out waiting for ${what}`);
    await sleep(5);
  }
}

try {
  const context = await browser.newContext({ viewport: { width: 900, height: 560 }, deviceScaleFactor: 1 });
  const page = await context.newPage();
  const pageErrors = [];
  page.on('pageerror', (error) => pageErrors.push(error));
  await page.goto(server.url);
  console.log(`e2e: ${await browser.version()} (${chromiumPath()}) on ${server.url}`);

  const status = page.locator('[data-status]');
  const count = (name) => page.locator(`[data-count="${name}"]`);
  const rows = page.locator('.batches li');
  /** The request cells of every batch row, as their states. */
  const batchStates = () =>
    rows.evaluateAll((lis) => lis.map((li) => [...li.querySelectorAll('[data-state]')].map((cell) => cell.getAttribute('data-state'))));
  const expectText = (locator, text) => locator.filter({ hasText: text }).waitFor({ timeout: 10_000 });

  /**
   * Asserts that the page counts the items of the job as the server does, by the answer to each
   * item's latest request since the `since`-th request (where the job began): done is what the server
   * created or already had, failed what it failed (500), and each item it refused (429) is retrying
   * while the run goes on, abandoned once it stopped, never failed. Once stopped, skipped is what was
   * never sent or was aborted.
   */
  async function assertCountsMatchServer(step, since = 0) {
    assert.equal(server.stats().open, 0, `${step}: no request open while counting`);
    const number = async (name) => Number(await count(name).textContent());
    const [done, total] = ((await count('done').textContent()) ?? '').split(' / ').map(Number);
    const running = (await status.textContent()) === 'running';
    const items = server.itemCounts(since);
    assert.deepEqual(
      {
        done,
        failed: await number('failed'),
        retrying: await number('retrying'),
        abandoned: await number('abandoned'),
        skipped: await number('skipped'),
      },
      {
        done: items.created + items.conflicts,
        failed: items.failed,
        retrying: running ? items.refused : 0,
        abandoned: running ? 0 : items.refused,
        skipped: running ? 0 : total - items.items + items.aborted,
      },
      `${step}: the page's counts are the server's`,
    );
  }
  phase('start (server, browser, page)');

  // 1. Create: the ramp, the quota, the throttled requests retried after Retry-After, Cancel.
  await page.getByRole('button', { name: 'Create 32 items' }).click();
  await expectText(count('retrying'), '6');
  phase('run 1: ramp to the quota');
  assert.deepEqual(
    (await batchStates()).map((row) => row.length),
    [1, 2, 4, 6, 6, 6],
    'run 1 ramps 1, 2, 4, then 6 (maxBatchSize)',
  );
  assert.deepEqual((await batchStates()).at(-1), Array(6).fill('retrying'), 'the whole sixth batch is throttled');
  assert.equal(await status.textContent(), 'running', 'a throttle does not stop the run');
  assert.equal(await count('done').textContent(), '19 / 32');
  assert.equal(await count('failed').textContent(), '0');
  assert.equal(await page.getByRole('alert').count(), 0);
  assert.ok(await page.getByRole('button', { name: 'Resume' }).isDisabled(), 'nothing to resume');
  let stats = server.stats();
  assert.equal(stats.maxOpen, 6, 'at most 6 requests at once, and 6 reached');
  assert.deepEqual([stats.created, stats.conflicts, stats.refused, stats.aborted], [17, 2, 6, 0]);
  const fillsAt = stats.quotaFillsAt;
  assert.ok(fillsAt !== undefined);
  await assertCountsMatchServer('run 1, throttled');

  // No click: the run sends the 6 again (1, 2, 3), then the next batch of 4; Cancel with it on the wire.
  await until('the first batch after the throttle on the wire', () => server.stats().requests === 35 && server.stats().open === 4);
  phase('run 1: retries after Retry-After');
  stats = server.stats();
  const retries = stats.log.slice(25);
  assert.ok(
    retries.slice(0, 6).every((request) => request.at >= fillsAt),
    'no request before the time the server asked for',
  );
  assert.equal(stats.retried, 6, 'each throttled item sent again once');
  assert.deepEqual(
    (await batchStates()).slice(5).map((row) => row.length),
    [12, 4],
    'the retried requests join their batch, and the next batch is smaller: the pace dropped',
  );
  assert.deepEqual((await batchStates())[5].slice(6), Array(6).fill('created'), 'every throttled item created on its retry');
  const beforeCancel = server.stats().requests;
  await page.getByRole('button', { name: 'Cancel' }).click();
  await expectText(status, 'cancelled');
  await until('the server to see the aborts', () => server.stats().open === 0, 2_000);
  phase('run 1: cancel mid-batch');
  const cancelledCells = (await batchStates()).flat().filter((state) => state === 'cancelled').length;
  stats = server.stats();
  assert.ok(cancelledCells >= 1, 'Cancel caught requests in flight');
  assert.equal(stats.aborted, cancelledCells, 'the server saw every cancelled request aborted');
  assert.equal(stats.requests, beforeCancel, 'no request after Cancel');
  await sleep(200);
  assert.equal(server.stats().requests, beforeCancel, 'still no request after Cancel');
  await assertCountsMatchServer('run 1, cancelled mid-batch');

  // 2. Resume: slow start from 1 again, until a real failure stops the run.
  const rowsBefore = await rows.count();
  await page.getByRole('button', { name: 'Resume' }).click();
  await expectText(status, 'failed');
  phase('run 2: resume to a 500');
  assert.equal((await batchStates())[rowsBefore].length, 1, 'run 2 starts with a batch of 1');
  assert.match((await page.getByRole('alert').textContent()) ?? '', /^HTTP 500: item-31 could not be stored\.$/);
  assert.equal(await count('done').textContent(), '31 / 32');
  assert.equal(await count('failed').textContent(), '1');
  assert.equal(await count('retrying').textContent(), '0');
  await assertCountsMatchServer('run 2, failed');

  // 3. Resume again: the rest completes.
  await page.getByRole('button', { name: 'Resume' }).click();
  await expectText(status, 'completed');
  phase('run 3: resume to completion');
  assert.equal(await count('done').textContent(), '32 / 32');
  assert.equal(await count('failed').textContent(), '0');
  assert.equal(await count('skipped').textContent(), '0');
  assert.equal(await count('retrying').textContent(), '0');
  assert.equal(await page.getByRole('alert').count(), 0);
  stats = server.stats();
  const createdNames = stats.log.filter((request) => request.answer === 201).map((request) => request.name);
  assert.equal(new Set(createdNames).size, createdNames.length, 'no item was created twice');
  assert.equal(stats.items.size, 32, 'every item exists on the server');
  assert.equal(stats.refused, 6, 'the quota was hit once');
  assert.equal(stats.failed, 1, 'one real failure');
  await assertCountsMatchServer('run 3, completed');
  assert.deepEqual(pageErrors, []);

  mkdirSync(join(here, '../../../docs'), { recursive: true });
  await page.screenshot({ path: screenshot, fullPage: true });
  phase('screenshot');
  const rowSizes = (await batchStates()).map((row) => row.length).join(' ');

  // 4. A new job, and a retry abandoned: Cancel while the run waits for the server's Retry-After.
  const jobStart = stats.requests;
  server.limit({ remaining: 1, seconds: 3 });
  await page.getByRole('button', { name: 'Create 32 items' }).click();
  await expectText(count('retrying'), '2');
  await assertCountsMatchServer('job 2, throttled', jobStart);
  await page.getByRole('button', { name: 'Cancel' }).click();
  await expectText(status, 'cancelled');
  phase('job 2: cancel in a retry pause');
  assert.deepEqual((await batchStates()).slice(-2), [['existed'], ['abandoned', 'abandoned']], 'the refused requests show abandoned');
  assert.equal(await count('abandoned').textContent(), '2');
  assert.equal(await count('failed').textContent(), '0', 'a retry abandoned is not a failure');
  assert.equal(server.itemCounts(jobStart).failed, 0, 'the server failed nothing');
  await assertCountsMatchServer('job 2, cancelled in the pause', jobStart);
  const afterCancel = server.stats().requests;
  assert.equal(afterCancel, jobStart + 3, 'one 409 and two refusals, nothing after Cancel');
  assert.deepEqual(pageErrors, []);

  // 5. A job cut off by a reload: the page resumes it from the checkpoint it kept in localStorage.
  const reloadStart = server.stats().requests;
  server.limit({ remaining: 1000, seconds: 1 });
  await page.getByRole('button', { name: 'Create 32 items' }).click();
  await until('the fourth batch on the wire', () => server.stats().requests >= reloadStart + 8);
  const doneBefore = Number(((await count('done').textContent()) ?? '').split(' / ')[0]);
  // The checkpoint the reloaded page finds, read before the app does.
  await page.addInitScript(() => {
    globalThis.storedAtLoad = globalThis.localStorage.getItem('bulk-create:checkpoint');
  });
  await page.reload();
  const stored = JSON.parse(await page.evaluate(() => globalThis.storedAtLoad));
  await expectText(status, 'running');
  const doneAfter = Number(((await count('done').textContent()) ?? '').split(' / ')[0]);
  assert.ok(doneAfter >= doneBefore, `the counts carry on over the reload (${doneBefore} before, ${doneAfter} after)`);
  await expectText(status, 'completed');
  await until('every answer in', () => server.stats().open === 0, 2_000);
  phase('job 3: reload mid-job, resumed');
  assert.equal(await count('done').textContent(), '32 / 32');
  // Sent again: only the items the stored checkpoint had in doubt (a key is the item's position; item-01 is 0).
  const inDoubt = new Set(stored.inDoubt.flatMap((entry) => (Array.isArray(entry) ? range(entry[0], entry[1]) : [entry])));
  const onTheWire = inDoubt.size;
  const jobLog = server.stats().log.slice(reloadStart);
  const sentAgain = jobLog.length - new Set(jobLog.map((request) => request.name)).size;
  for (const [at, request] of jobLog.entries()) {
    const again = jobLog.slice(at + 1).some((later) => later.name === request.name);
    if (again) assert.ok(inDoubt.has(Number(request.name.slice('item-'.length)) - 1), `${request.name} was sent again: it was in doubt`);
  }
  assert.ok(sentAgain <= onTheWire, `only the requests in doubt at the reload were sent again (${sentAgain} of ${onTheWire})`);
  await assertCountsMatchServer('job 3, resumed after a reload', reloadStart);
  assert.deepEqual(pageErrors, []);
  const reloadFigures = `${doneBefore} done and ${onTheWire} in doubt at the reload, ${doneAfter} done as the page came back, ${sentAgain} sent again`;
  console.log(`e2e: passed in ${Date.now() - started} ms: ${timings.join(', ')}`);
  console.log(
    `e2e: for the first job the server saw ${stats.requests} requests: ${stats.created} created, ${stats.conflicts} conflicts (409), ` +
      `${stats.refused} refused (429), ${stats.retried} retried, ${stats.failed} failed (500), ${stats.aborted} aborted; ` +
      `batches ${rowSizes}; screenshot ${screenshot}`,
  );
  console.log(`e2e: the reload: ${reloadFigures}`);
} finally {
  clearTimeout(deadline);
  await browser.close();
  await server.close();
}
