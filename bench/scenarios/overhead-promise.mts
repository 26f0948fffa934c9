import pMap from 'p-map';
import { compare, medianRatio, pairFigures, drain, expectEqual, format, progress, type Scenario } from '../harness.mjs';
import { slowStart } from '../subject.mjs';

const TASKS = 100_000;
const TARGET_RATIO = 1.5;

/**
 * What the operator costs per task for promise-returning work, against `p-map`, the usual way to run an
 * array of async functions. The functions resolve at once, so nearly all of the time is bookkeeping.
 */
export const overheadPromise: Scenario = {
  name: 'overhead-promise',
  title: 'Overhead, promise tasks',
  async run() {
    const tasks: Array<() => Promise<number>> = Array.from({ length: TASKS }, (_, i) => async () => i);

    const comparison = await compare(
      [
        {
          name: 'slowStart',
          run: async () => {
            let done = 0;
            await drain(slowStart(tasks), (result) => (done += result.size));
            expectEqual(done, TASKS, 'tasks reported by slowStart');
          },
        },
        {
          name: 'p-map',
          run: async () => {
            const values = await pMap(tasks, (task) => task());
            expectEqual(values.length, TASKS, 'values returned by p-map');
          },
        },
      ],
      {
        warmupRounds: 2,
        rounds: 15,
        onSample: (side, round, ms) => progress(`${side.name} round ${round}: ${format.ms(ms)}`),
      },
    );

    const ratio = medianRatio(comparison, 'slowStart', 'p-map');
    return {
      name: this.name,
      title: this.title,
      method:
        `${format.count(TASKS)} functions \`async () => i\` from one array, through \`slowStart(tasks)\` ` +
        '(default options) and through `pMap(tasks, task => task())` (p-map 7, unbounded concurrency). ' +
        '2 warm-up rounds, then 15 timed rounds; the two sides alternate within each round. The ratio is the median of the per-round ratios.',
      figures: pairFigures(comparison, 'slowStart', 'p-map', TASKS),
      targets: [
        {
          description: `slowStart / p-map time, ${format.count(TASKS)} promise tasks`,
          measured: format.ratio(ratio),
          limit: `<= ${TARGET_RATIO}`,
          met: ratio <= TARGET_RATIO,
        },
      ],
    };
  },
};
