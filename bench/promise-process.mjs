/**
 * `node bench/promise-process.mjs PACKAGE_DIR`: the promise workloads as one whole process, for timing
 * a build from outside (`/usr/bin/time -v`, or two builds run in turn): the build in PACKAGE_DIR/dist/cjs,
 * with the rxjs PACKAGE_DIR installed, runs 80,000 pending promise tasks in one batch
 * (`slowStart(tasks, { initialBatchSize: 80000 })`), then 100,000 promise tasks with the default options,
 * checks that every task was reported, and exits. Plain JavaScript, so that no compiler's start-up is timed.
 */
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { resolve } from 'node:path';

const WIDE_TASKS = 80_000;
const PROMISE_TASKS = 100_000;

const directory = process.argv[2];
if (!directory) {
  console.error('usage: node bench/promise-process.mjs PACKAGE_DIR (a checkout whose dist/ is built)');
  process.exit(2);
}
const entry = resolve(directory, 'dist/cjs/index.js');
if (!existsSync(entry)) {
  console.error(`${entry} does not exist: build that checkout first (npm ci && npm run build)`);
  process.exit(2);
}
const { slowStart } = createRequire(resolve(directory, 'package.json'))(entry);

/** Resolves with the number of tasks the results reported, rejects on the run's error. */
function tasksReported(source) {
  return new Promise((resolvePromise, reject) => {
    let tasks = 0;
    source.subscribe({
      next: (result) => (tasks += result.size),
      error: reject,
      complete: () => resolvePromise(tasks),
    });
  });
}

function expectTasks(actual, expected, what) {
  if (actual !== expected) throw new Error(`${what}: ${actual} tasks reported, expected ${expected}`);
}

// 80,000 tasks pending at once: each waits on one gate, which opens when the last of them is invoked.
let invoked = 0;
let openGate = () => {};
const gate = new Promise((resolveGate) => (openGate = resolveGate));
const wide = Array.from({ length: WIDE_TASKS }, (_, i) => () => {
  if (++invoked === WIDE_TASKS) openGate();
  return gate.then(() => i);
});
expectTasks(await tasksReported(slowStart(wide, { initialBatchSize: WIDE_TASKS })), WIDE_TASKS, 'one batch of pending tasks');

const tasks = Array.from({ length: PROMISE_TASKS }, (_, i) => async () => i);
expectTasks(await tasksReported(slowStart(tasks)), PROMISE_TASKS, 'promise tasks with the default options');
