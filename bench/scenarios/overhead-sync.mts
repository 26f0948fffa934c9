import { from, mergeMap, of, type Observable } from 'rxjs';
import { compare, medianRatio, pairFigures, drain, expectEqual, format, progress, type Scenario } from '../harness.mjs';
import { contextNote, contextSides } from '../context-sides.mjs';
import { slowStartBatch } from '../subject.mjs';

const TASKS = 1_000_000;
const TARGET_RATIO = 1.5;

/**
 * What the operator costs per task when the tasks themselves cost next to nothing: the same synchronous
 * factories through `slowStartBatch()` and through a plain `mergeMap`, which is what most code uses today.
 * None of the factories reads its `TaskContext`, so whatever the operator spends on a task's signal shows
 * up here in full.
 */
export const overheadSync: Scenario = {
  name: 'overhead-sync',
  title: 'Overhead, synchronous tasks',
  async run() {
    const factories: Array<() => Observable<number>> = Array.from({ length: TASKS }, (_, i) => () => of(i));

    const comparison = await compare(
      [
        {
          name: 'slowStartBatch',
          run: async () => {
            let tasks = 0;
            await drain(from(factories).pipe(slowStartBatch()), (result) => (tasks += result.size));
            expectEqual(tasks, TASKS, 'tasks reported by slowStartBatch');
          },
        },
        {
          name: 'mergeMap',
          run: async () => {
            const values = await drain(from(factories).pipe(mergeMap((factory) => factory())));
            expectEqual(values, TASKS, 'values emitted by mergeMap');
          },
        },
        ...contextSides(TASKS),
      ],
      {
        warmupRounds: 2,
        rounds: 15,
        onSample: (side, round, ms) => progress(`${side.name} round ${round}: ${format.ms(ms)}`),
      },
    );

    const ratio = medianRatio(comparison, 'slowStartBatch', 'mergeMap');
    return {
      name: this.name,
      title: this.title,
      method:
        `${format.count(TASKS)} factories \`() => of(i)\` from one array, through ` +
        '`from(factories).pipe(slowStartBatch())` (default options) and through ' +
        '`from(factories).pipe(mergeMap(f => f()))`. 2 warm-up rounds, then 15 timed rounds; the two sides ' +
        'alternate within each round. The ratio is the median of the per-round ratios.',
      figures: pairFigures(comparison, 'slowStartBatch', 'mergeMap', TASKS),
      targets: [
        {
          description: `slowStartBatch / mergeMap time, ${format.count(TASKS)} synchronous tasks`,
          measured: format.ratio(ratio),
          limit: `<= ${TARGET_RATIO}`,
          met: ratio <= TARGET_RATIO,
          note: contextNote(comparison, 'slowStartBatch', 'mergeMap', TASKS),
        },
      ],
    };
  },
};
