import { from, mergeMap, of, type Observable } from 'rxjs';
import { compare, drain, expectEqual, format, medianRatio, progress, type Scenario, type Side } from '../harness.mjs';
import { slowStartBatch } from '../subject.mjs';

const SMALL = 100_000;
const LARGE = 1_000_000;
const RATIO_RANGE = [8, 12] as const;

/**
 * Whether the cost per task stays flat as the input grows: the synchronous-overhead workload at two sizes
 * ten times apart. `mergeMap` runs beside it at both sizes: if it grows by more than ten times as well, the
 * extra cost is the platform's (garbage collection of a larger heap), not the operator's.
 */
export const scaling: Scenario = {
  name: 'scaling',
  title: 'Scaling',
  async run() {
    const factoriesFor = (count: number): Array<() => Observable<number>> => Array.from({ length: count }, (_, i) => () => of(i));
    const small = factoriesFor(SMALL);
    const large = factoriesFor(LARGE);

    const ours = (factories: Array<() => Observable<number>>): Side => ({
      name: `slowStartBatch ${factories.length}`,
      run: async () => {
        let tasks = 0;
        await drain(from(factories).pipe(slowStartBatch()), (result) => (tasks += result.size));
        expectEqual(tasks, factories.length, 'tasks reported by slowStartBatch');
      },
    });
    const theirs = (factories: Array<() => Observable<number>>): Side => ({
      name: `mergeMap ${factories.length}`,
      run: async () => {
        const values = await drain(from(factories).pipe(mergeMap((factory) => factory())));
        expectEqual(values, factories.length, 'values emitted by mergeMap');
      },
    });

    const comparison = await compare([ours(small), ours(large), theirs(small), theirs(large)], {
      warmupRounds: 2,
      rounds: 11,
      onSample: (side, round, ms) => progress(`${side.name} round ${round}: ${format.ms(ms)}`),
    });

    const median = (name: string): number => comparison.medians.get(name)!;
    const ourRatio = medianRatio(comparison, `slowStartBatch ${LARGE}`, `slowStartBatch ${SMALL}`);
    const theirRatio = medianRatio(comparison, `mergeMap ${LARGE}`, `mergeMap ${SMALL}`);
    const ourCpuRatio = medianRatio(comparison, `slowStartBatch ${LARGE}`, `slowStartBatch ${SMALL}`, { cpu: true });
    const theirCpuRatio = medianRatio(comparison, `mergeMap ${LARGE}`, `mergeMap ${SMALL}`, { cpu: true });
    const inRange = (ratio: number): boolean => ratio >= RATIO_RANGE[0] && ratio <= RATIO_RANGE[1];
    const met = inRange(ourRatio);
    return {
      name: this.name,
      title: this.title,
      method:
        `The overhead-sync workload (\`() => of(i)\` factories through \`slowStartBatch()\`) at ` +
        `${format.count(SMALL)} and ${format.count(LARGE)} tasks, with \`mergeMap\` over the same factories ` +
        'for reference. 2 warm-up rounds, then 11 timed rounds; all four runs alternate within each round. Each ratio is the median of the per-round ratios.',
      figures: [
        { label: `slowStartBatch, ${format.count(SMALL)} tasks`, value: format.ms(median(`slowStartBatch ${SMALL}`)) },
        { label: `slowStartBatch, ${format.count(LARGE)} tasks`, value: format.ms(median(`slowStartBatch ${LARGE}`)) },
        { label: `slowStartBatch, time ratio`, value: format.ratio(ourRatio) },
        { label: `mergeMap, ${format.count(SMALL)} tasks`, value: format.ms(median(`mergeMap ${SMALL}`)) },
        { label: `mergeMap, ${format.count(LARGE)} tasks`, value: format.ms(median(`mergeMap ${LARGE}`)) },
        { label: `mergeMap, time ratio (reference)`, value: format.ratio(theirRatio) },
        {
          label: 'CPU time ratio, slowStartBatch / mergeMap (second opinion)',
          value: `${format.ratio(ourCpuRatio)} / ${format.ratio(theirCpuRatio)}`,
        },
      ],
      targets: [
        {
          description: `slowStartBatch time at ${format.count(LARGE)} / at ${format.count(SMALL)} tasks`,
          measured: format.ratio(ourRatio),
          limit: `${RATIO_RANGE[0]} to ${RATIO_RANGE[1]}`,
          met,
          ...(met
            ? {}
            : {
                note:
                  `mergeMap's ratio over the same inputs, in the same rounds, was ${format.ratio(theirRatio)}; in CPU ` +
                  `time, which other processes taking the CPU away do not inflate, the ratios were ` +
                  `${format.ratio(ourCpuRatio)} (slowStartBatch) and ${format.ratio(theirCpuRatio)} (mergeMap). ` +
                  (!inRange(theirRatio)
                    ? 'mergeMap departs from linear growth as well, without the operator: the cause is the platform ' +
                      '(garbage collection of a larger heap, caches, a loaded machine), not slow start.'
                    : inRange(ourCpuRatio)
                      ? 'In CPU time the operator grows linearly: the wall-clock excess is time its longer runs spent ' +
                        'waiting for the CPU on this shared machine.'
                      : "mergeMap grows linearly here and the operator does not, also in CPU time: the departure is the operator's."),
              }),
        },
      ],
    };
  },
};
