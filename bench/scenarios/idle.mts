import { performance } from 'node:perf_hooks';
import { drain, expectEqual, format, median, progress, type Scenario } from '../harness.mjs';
import { slowStart, type TaskContext } from '../subject.mjs';

const TASKS = 1023; // 1 + 2 + 4 + ... + 512: exactly ten full batches with the default options
const BATCHES = 10;
const TASK_MS = 10;
const BOUND_MS = BATCHES * TASK_MS;
const WARMUP_ROUNDS = 2;
const ROUNDS = 7;
const TARGET_RATIO = 1.1;
const TARGET_GAP_MS = 0.1;

interface Round {
  totalMs: number;
  /** From each batch's last settlement to the next batch's first invocation. */
  gapsMs: number[];
  /** From each batch's first invocation to its last settlement: the timers' own share of the time. */
  batchSpansMs: number[];
}

/**
 * Whether slow start wastes time between batches. Each task is a real 10 ms timer, so a run can not take
 * less than ten batches of 10 ms; everything above that is either the timers firing late (the platform) or
 * time between batches (the operator). The gaps are measured directly: from the moment the last task of a
 * batch settles to the moment the first task of the next batch is invoked.
 */
export const idle: Scenario = {
  name: 'idle',
  title: 'No idle time between batches',
  async run() {
    const rounds: Round[] = [];
    for (let round = -WARMUP_ROUNDS; round < ROUNDS; round++) {
      const measured = await runOnce();
      progress(`round ${round}: ${format.ms(measured.totalMs)}, largest gap ${format.ms(Math.max(...measured.gapsMs))}`);
      if (round >= 0) rounds.push(measured);
    }

    const ratio = median(rounds.map((r) => r.totalMs)) / BOUND_MS;
    const gaps = rounds.flatMap((r) => r.gapsMs);
    const medianGap = median(gaps);
    const timersRatio = median(rounds.map((r) => r.batchSpansMs.reduce((a, b) => a + b, 0))) / BOUND_MS;
    const outsideBatches = median(rounds.map((r) => r.totalMs - r.batchSpansMs.reduce((a, b) => a + b, 0)));
    const ratioMet = ratio <= TARGET_RATIO;

    return {
      name: this.name,
      title: this.title,
      method:
        `${format.count(TASKS)} tasks, each a promise resolved by \`setTimeout(resolve, ${TASK_MS})\`, through ` +
        `\`slowStart(tasks)\` with the default options: ${BATCHES} batches of 1, 2, 4, ... 512. Bound: ` +
        `${BATCHES} x ${TASK_MS} ms = ${BOUND_MS} ms. ${WARMUP_ROUNDS} warm-up rounds, then ${ROUNDS} timed ` +
        'rounds. A gap is measured from the last settlement of a batch (inside its timer callback) to the ' +
        `first invocation of the next batch's factory; ${BATCHES - 1} gaps per round.`,
      figures: [
        { label: 'total time, median', value: format.ms(median(rounds.map((r) => r.totalMs))) },
        { label: `total time / ${BOUND_MS} ms bound`, value: format.ratio(ratio) },
        { label: `time inside batches / ${BOUND_MS} ms (timers alone)`, value: format.ratio(timersRatio) },
        { label: 'time outside batches, median per run', value: format.ms(outsideBatches) },
        { label: 'gap between batches, median', value: format.us(medianGap) },
        { label: 'gap between batches, largest', value: format.us(Math.max(...gaps)) },
      ],
      targets: [
        {
          description: `total time / ${BATCHES} x ${TASK_MS} ms`,
          measured: format.ratio(ratio),
          limit: `<= ${TARGET_RATIO.toFixed(2)}`,
          met: ratioMet,
          ...(ratioMet
            ? {}
            : {
                note:
                  `The timers alone, from each batch's first invocation to its last settlement, took ` +
                  `${format.ratio(timersRatio)} x the bound; the time outside batches was ` +
                  `${format.ms(outsideBatches)} per run in all.` +
                  (timersRatio > TARGET_RATIO
                    ? " The excess is the timers firing late on this machine, which no operator can avoid."
                    : ''),
              }),
        },
        {
          description: "gap from a batch's last settlement to the next batch's first invocation, median",
          measured: format.us(medianGap),
          limit: `< ${format.us(TARGET_GAP_MS)}`,
          met: medianGap < TARGET_GAP_MS,
        },
      ],
    };
  },
};

async function runOnce(): Promise<Round> {
  const firstInvocation = new Array<number>(BATCHES).fill(Infinity);
  const lastSettlement = new Array<number>(BATCHES).fill(-Infinity);
  const tasks = Array.from(
    { length: TASKS },
    (_, i) =>
      ({ batch }: TaskContext) =>
        new Promise<number>((resolve) => {
          firstInvocation[batch] = Math.min(firstInvocation[batch]!, performance.now());
          setTimeout(() => {
            lastSettlement[batch] = Math.max(lastSettlement[batch]!, performance.now());
            resolve(i);
          }, TASK_MS);
        }),
  );

  const start = performance.now();
  const batches = await drain(slowStart(tasks));
  const totalMs = performance.now() - start;
  expectEqual(batches, BATCHES, 'batches emitted');

  const gapsMs: number[] = [];
  const batchSpansMs: number[] = [];
  for (let batch = 0; batch < BATCHES; batch++) {
    batchSpansMs.push(lastSettlement[batch]! - firstInvocation[batch]!);
    if (batch + 1 < BATCHES) gapsMs.push(firstInvocation[batch + 1]! - lastSettlement[batch]!);
  }
  return { totalMs, gapsMs, batchSpansMs };
}
