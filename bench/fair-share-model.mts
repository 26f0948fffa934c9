/**
 * `npx tsx bench/fair-share-model.mts`: the announced pace of ten clients of one budget against the
 * fixed-window model of `spec/support/fixed-window-clients.ts` (virtual time, no RxJS), to try a change
 * to the pace in seconds before the real runs of `npm run bench -- many-workers real-limiters`. For 50
 * and 200 a second, jobs of 4 and 20 s of the budget's capacity, and windows on the clock or begun by a
 * first try (express-rate-limit's, as the real runs have), the medians over five seeds (`SEEDS=40` for
 * more) of the makespan, the spread of the clients' finish times and the tries refused. No figure of the
 * report comes from it.
 */
import { runFixedWindowModel } from '../spec/support/fixed-window-clients.js';
import { median } from './harness.mjs';

const CLIENTS = 10;
const SEEDS = Array.from({ length: Number(process.env.SEEDS ?? 5) }, (_, seed) => seed + 1);
console.log("| server's windows | rate | capacity | makespan | finish spread | refused |");
console.log('| --- | --- | --- | --- | --- | --- |');
for (const windowsBegin of ['on-the-clock', 'at-first-try'] as const)
  for (const seconds of [4, 20]) {
    for (const limit of [50, 200]) {
      const runs = SEEDS.map((seed) => {
        const tallies = runFixedWindowModel({
          limit,
          window: 1000,
          begins: Array<number>(CLIENTS).fill(0),
          until: 600_000,
          tasks: (limit * seconds) / CLIENTS,
          seed,
          windowsBegin,
        });
        const finished = tallies.map(({ finishedAt }) => finishedAt ?? Infinity);
        return {
          makespan: Math.max(...finished),
          spread: Math.max(...finished) - Math.min(...finished),
          refused: tallies.reduce((sum, { refused }) => sum + refused, 0),
        };
      });
      const med = (field: 'makespan' | 'spread' | 'refused') => median(runs.map((run) => run[field])).toFixed(0);
      console.log(`| ${windowsBegin} | ${limit}/s | ${seconds} s | ${med('makespan')} ms | ${med('spread')} ms | ${med('refused')} |`);
    }
  }
