import { from, mergeMap, of, type Observable } from 'rxjs';
import { compare, drain, expectEqual, format, medianRatio, pairFigures, progress, type Scenario, type Side } from '../harness.mjs';
import { contextNote, contextSides } from '../context-sides.mjs';
import { slowStart, slowStartBatch } from '../subject.mjs';

const TASKS = 1_000_000;
const WINDOW_TARGET = 1.2;
/** What batch pacing cost before window pacing existed (issue 11): about 0.8 to 0.9 of `mergeMap`. */
const BATCH_BEFORE = '0.8 to 0.9';

/**
 * What window pacing costs per task when the tasks cost next to nothing, beside batch pacing and a plain
 * `mergeMap`, in the same interleaved rounds. Both `slowStartBatch()` and `slowStart()` run with window
 * pacing, since they take different ways in (an operator over `from(array)`, and the array pulled lazily).
 */
export const windowCost: Scenario = {
  name: 'window-cost',
  title: 'Window pacing, overhead with synchronous tasks',
  async run() {
    const factories: Array<() => Observable<number>> = Array.from({ length: TASKS }, (_, i) => () => of(i));
    const counted = (name: string, source: () => Observable<{ size: number }>): Side => ({
      name,
      run: async () => {
        let tasks = 0;
        await drain(source(), (result) => (tasks += result.size));
        expectEqual(tasks, TASKS, `tasks reported by ${name}`);
      },
    });

    const comparison = await compare(
      [
        counted('slowStartBatch window', () => from(factories).pipe(slowStartBatch({ pacing: 'window' }))),
        counted('slowStart window', () => slowStart(factories, { pacing: 'window' })),
        counted('slowStartBatch batch', () => from(factories).pipe(slowStartBatch())),
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

    const windowBatch = medianRatio(comparison, 'slowStartBatch window', 'mergeMap');
    const windowSlowStart = medianRatio(comparison, 'slowStart window', 'mergeMap');
    const batch = medianRatio(comparison, 'slowStartBatch batch', 'mergeMap');
    return {
      name: this.name,
      title: this.title,
      method:
        `${format.count(TASKS)} factories \`() => of(i)\` from one array, through ` +
        "`from(factories).pipe(slowStartBatch({ pacing: 'window' }))`, `slowStart(factories, { pacing: 'window' })`, " +
        '`from(factories).pipe(slowStartBatch())` (batch pacing) and `from(factories).pipe(mergeMap(f => f()))`. ' +
        '2 warm-up rounds, then 15 timed rounds; the sides alternate order from round to round. Each ratio is ' +
        'the median of the per-round ratios.',
      figures: [
        { label: 'slowStartBatch window / mergeMap', value: format.ratio(windowBatch) },
        { label: 'slowStart window / mergeMap', value: format.ratio(windowSlowStart) },
        { label: `slowStartBatch batch / mergeMap (before window pacing: ${BATCH_BEFORE})`, value: format.ratio(batch) },
        {
          label: 'CPU time ratios to mergeMap: slowStartBatch window, slowStart window, slowStartBatch batch',
          value: ['slowStartBatch window', 'slowStart window', 'slowStartBatch batch']
            .map((name) => format.ratio(medianRatio(comparison, name, 'mergeMap', { cpu: true })))
            .join(', '),
        },
        ...pairFigures(comparison, 'slowStartBatch window', 'mergeMap', TASKS),
        { label: 'slowStart window, median', value: format.ms(comparison.medians.get('slowStart window')!) },
        { label: 'slowStartBatch batch, median', value: format.ms(comparison.medians.get('slowStartBatch batch')!) },
        { label: 'slowStart window samples (ms)', value: format.samples(comparison.samples.get('slowStart window')!) },
        { label: 'slowStartBatch batch samples (ms)', value: format.samples(comparison.samples.get('slowStartBatch batch')!) },
      ],
      targets: [
        {
          description: `slowStartBatch({ pacing: 'window' }) / mergeMap time, ${format.count(TASKS)} synchronous tasks`,
          measured: format.ratio(windowBatch),
          limit: `<= ${WINDOW_TARGET}`,
          met: windowBatch <= WINDOW_TARGET,
          note: contextNote(comparison, 'slowStartBatch window', 'mergeMap', TASKS),
        },
        {
          description: `slowStart(tasks, { pacing: 'window' }) / mergeMap time, ${format.count(TASKS)} synchronous tasks`,
          measured: format.ratio(windowSlowStart),
          limit: `<= ${WINDOW_TARGET}`,
          met: windowSlowStart <= WINDOW_TARGET,
          note: contextNote(comparison, 'slowStart window', 'mergeMap', TASKS),
        },
      ],
    };
  },
};
