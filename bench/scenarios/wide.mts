import { from, mergeMap } from 'rxjs';
import { compare, drain, expectEqual, format, progress, type Scenario, type Side } from '../harness.mjs';
import { slowStartBatch } from '../subject.mjs';

const SIZES = [10_000, 20_000, 40_000, 80_000, 160_000];
/** mergeMap's cost grows with the square of the pending inners; beyond this it would take minutes. */
const MERGE_MAP_MAX_SIZE = 80_000;
/** Above this, mergeMap takes seconds per run: three timed runs and no warm-up (it is warm by then). */
const MERGE_MAP_SLOW_SIZE = 20_000;
const TARGET_DOUBLING = 2.5;

/**
 * One batch of N promise tasks, all pending at once. After a few doublings this is what slow start runs,
 * so its cost must stay linear in N. `mergeMap` with N pending inners is not: each finished inner is
 * removed from an array of all the others (RxJS 7's `Subscription.remove`), which is quadratic.
 *
 * Every task waits on one gate promise that opens when the last task has been invoked, so all N are
 * pending at once whatever order the operator invokes them in; the gate then settles them all in one go.
 */
export const wide: Scenario = {
  name: 'wide',
  title: 'Wide batches',
  async run() {
    const ours = new Map<number, number>();
    const theirs = new Map<number, number>();
    for (const size of SIZES) {
      const tasks = gatedTasks(size);
      const sides: Side[] = [
        {
          name: 'slowStartBatch',
          run: async () => {
            tasks.reset();
            let done = 0;
            await drain(from(tasks.factories).pipe(slowStartBatch({ initialBatchSize: size })), (result) => {
              done += result.size;
            });
            expectEqual(done, size, 'tasks reported by slowStartBatch');
            expectEqual(tasks.invoked(), size, 'tasks invoked by slowStartBatch');
          },
        },
      ];
      if (size <= MERGE_MAP_MAX_SIZE) {
        const slow = size > MERGE_MAP_SLOW_SIZE;
        sides.push({
          name: 'mergeMap',
          ...(slow ? { rounds: 3, warmup: false } : {}),
          run: async () => {
            tasks.reset();
            const values = await drain(from(tasks.factories).pipe(mergeMap((factory) => factory())));
            expectEqual(values, size, 'values emitted by mergeMap');
          },
        });
      }
      const comparison = await compare(sides, {
        warmupRounds: 1,
        rounds: 5,
        onSample: (side, round, ms) => progress(`${format.count(size)} ${side.name} round ${round}: ${format.ms(ms)}`),
      });
      ours.set(size, comparison.medians.get('slowStartBatch')!);
      if (comparison.medians.has('mergeMap')) theirs.set(size, comparison.medians.get('mergeMap')!);
    }

    const figures = SIZES.map((size) => ({
      label: `N = ${format.count(size)}: slowStartBatch / mergeMap`,
      value: `${format.ms(ours.get(size)!)} / ${theirs.has(size) ? format.ms(theirs.get(size)!) : 'not run'}`,
    }));
    const doublings = SIZES.slice(1).map((size, i) => {
      const previous = SIZES[i]!;
      const growth = (times: Map<number, number>): number | undefined =>
        times.has(size) && times.has(previous) ? times.get(size)! / times.get(previous)! : undefined;
      return { previous, size, ours: growth(ours)!, theirs: growth(theirs) };
    });
    for (const { previous, size, ours: growth, theirs: theirGrowth } of doublings) {
      figures.push({
        label: `time growth ${format.count(previous)} -> ${format.count(size)}: slowStartBatch / mergeMap`,
        value: `${format.ratio(growth)}x / ${theirGrowth === undefined ? 'not run' : format.ratio(theirGrowth) + 'x'}`,
      });
    }

    return {
      name: this.name,
      title: this.title,
      method:
        'N factories, each returning a promise that waits on one gate which opens when the last task is ' +
        'invoked, so that all N are pending at once. `from(factories).pipe(slowStartBatch({ initialBatchSize: N }))` ' +
        '(one batch of N) beside `from(factories).pipe(mergeMap(f => f()))`. 1 warm-up round and 5 timed ' +
        `rounds per N, the sides alternating. mergeMap runs only up to N = ${format.count(MERGE_MAP_MAX_SIZE)}, ` +
        `and above N = ${format.count(MERGE_MAP_SLOW_SIZE)} only 3 timed rounds without warm-up: its time grows ` +
        'with the square of N, and at 160,000 one run would take most of the time budget of the whole suite.',
      figures,
      targets: doublings.map(({ previous, size, ours: growth }) => ({
        description: `slowStartBatch time growth, N = ${format.count(previous)} -> ${format.count(size)}`,
        measured: `${format.ratio(growth)}x`,
        limit: `<= ${TARGET_DOUBLING}x`,
        met: growth <= TARGET_DOUBLING,
      })),
    };
  },
};

/** N promise factories gated as described above; `reset()` before every run closes the gate again. */
function gatedTasks(size: number) {
  let invoked = 0;
  let open: () => void = () => {};
  let gate = Promise.resolve();
  const factories = Array.from({ length: size }, (_, i) => () => {
    if (++invoked === size) open();
    return gate.then(() => i);
  });
  return {
    factories,
    invoked: () => invoked,
    reset(): void {
      invoked = 0;
      gate = new Promise<void>((resolve) => (open = resolve));
    },
  };
}
