import { drain, expectEqual, format, median, progress, type Scenario } from '../harness.mjs';
import { BATCHES, runOnce, TASK_MS, TASKS, type Round, type Runner } from '../idle-run.mjs';
import { slowStart } from '../subject.mjs';

const BOUND_MS = BATCHES * TASK_MS;
const WARMUP_ROUNDS = 2;
const ROUNDS = 9;
const TARGET_RATIO = 1.1;
const TARGET_GAP_MS = 0.1;

/** The operator under test. */
const ours: Runner = async (tasks) => {
  expectEqual(await drain(slowStart(tasks)), BATCHES, 'batches emitted');
};

/**
 * The shortest slow start one can write, as a reference for what the machine allows: a loop that
 * awaits `Promise.all` of each batch. It has no source, no options and no failure handling; it shows
 * how late the timers fire here, and what one `await` between batches costs.
 */
const plainLoop: Runner = async (tasks) => {
  const signal = new AbortController().signal;
  let batches = 0;
  for (let start = 0, size = 1; start < tasks.length; start += size, size *= 2, batches++) {
    const batch = batches;
    await Promise.all(
      tasks
        .slice(start, start + size)
        .map((task, k) => task({ index: start + k, batch, signal, attempt: 1, key: start + k, inDoubt: false })),
    );
  }
  expectEqual(batches, BATCHES, 'batches run by the plain loop');
};

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
    const rounds = { ours: [] as Round[], plain: [] as Round[] };
    for (let round = -WARMUP_ROUNDS; round < ROUNDS; round++) {
      // Alternating which runs first, as in every comparison of the suite.
      const order = round % 2 === 0 ? (['ours', 'plain'] as const) : (['plain', 'ours'] as const);
      for (const which of order) {
        const measured = await runOnce(which === 'ours' ? ours : plainLoop);
        progress(`${which} round ${round}: ${format.ms(measured.totalMs)}, largest gap ${format.us(Math.max(...measured.gapsMs))}`);
        if (round >= 0) rounds[which].push(measured);
      }
    }

    const summary = (measured: Round[]) => {
      const sum = (values: number[]): number => values.reduce((a, b) => a + b, 0);
      const gaps = measured.flatMap((r) => r.gapsMs);
      return {
        ratio: median(measured.map((r) => r.totalMs)) / BOUND_MS,
        totalMs: median(measured.map((r) => r.totalMs)),
        timersRatio: median(measured.map((r) => sum(r.batchSpansMs))) / BOUND_MS,
        outsideBatchesMs: median(measured.map((r) => r.totalMs - sum(r.batchSpansMs))),
        medianGapMs: median(gaps),
        largestGapMs: Math.max(...gaps),
      };
    };
    const ourSummary = summary(rounds.ours);
    const plainSummary = summary(rounds.plain);
    const ratioMet = ourSummary.ratio <= TARGET_RATIO;
    // The share of the bound spent outside batches: startup, gaps and completion, all of it the runner's.
    const ourShare = ourSummary.outsideBatchesMs / BOUND_MS;

    return {
      name: this.name,
      title: this.title,
      method:
        `${format.count(TASKS)} tasks, each a promise resolved by \`setTimeout(resolve, ${TASK_MS})\`, through ` +
        `\`slowStart(tasks)\` with the default options: ${BATCHES} batches of 1, 2, 4, ... 512. Bound: ` +
        `${BATCHES} x ${TASK_MS} ms = ${BOUND_MS} ms. As a reference for what the machine allows, the same tasks ` +
        'through the shortest slow start one can write: a loop awaiting `Promise.all` of each batch. ' +
        `${WARMUP_ROUNDS} warm-up rounds, then ${ROUNDS} timed rounds, the two alternating. A gap is measured ` +
        'from the last settlement of a batch (inside its timer callback) to the first invocation of the next ' +
        `batch's factory; ${BATCHES - 1} gaps per run. "Inside batches" is the sum, over the batches, of first ` +
        'invocation to last settlement: the timers and the invoking of the tasks.',
      figures: [
        { label: 'slowStart: total time, median', value: format.ms(ourSummary.totalMs) },
        { label: `slowStart: total time / ${BOUND_MS} ms bound`, value: format.ratio(ourSummary.ratio) },
        { label: `slowStart: time inside batches / ${BOUND_MS} ms`, value: format.ratio(ourSummary.timersRatio) },
        { label: 'slowStart: time outside batches per run, median', value: format.ms(ourSummary.outsideBatchesMs) },
        { label: 'slowStart: gap between batches, median', value: format.us(ourSummary.medianGapMs) },
        { label: 'slowStart: gap between batches, largest', value: format.us(ourSummary.largestGapMs) },
        { label: `plain loop: total time / ${BOUND_MS} ms bound`, value: format.ratio(plainSummary.ratio) },
        { label: `plain loop: time inside batches / ${BOUND_MS} ms`, value: format.ratio(plainSummary.timersRatio) },
        { label: 'plain loop: gap between batches, median', value: format.us(plainSummary.medianGapMs) },
      ],
      targets: [
        {
          description: `total time / ${BATCHES} x ${TASK_MS} ms`,
          measured: format.ratio(ourSummary.ratio),
          limit: `<= ${TARGET_RATIO.toFixed(2)}`,
          met: ratioMet,
          ...(ratioMet
            ? {}
            : {
                note:
                  `of the ${format.ratio(ourSummary.ratio)} x the bound, ${format.ratio(ourSummary.timersRatio)} was ` +
                  `spent inside batches (the timers firing, and the tasks being invoked) and ` +
                  `${format.ms(ourSummary.outsideBatchesMs)} per run (${format.ratio(ourShare)} of the bound) ` +
                  'outside them, which is all the time the operator could have wasted. The plain loop, in the ' +
                  `same rounds, took ${format.ratio(plainSummary.ratio)} x the bound.` +
                  (ourShare <= TARGET_RATIO - 1
                    ? ' The excess is the timers firing late on this shared machine, not time between batches.'
                    : ''),
              }),
        },
        {
          description: "gap from a batch's last settlement to the next batch's first invocation, median",
          measured: format.us(ourSummary.medianGapMs),
          limit: `< ${format.us(TARGET_GAP_MS)}`,
          met: ourSummary.medianGapMs < TARGET_GAP_MS,
        },
      ],
    };
  },
};
