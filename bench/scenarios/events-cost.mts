import { from, of, type Observable } from 'rxjs';
import { compare, drain, expectEqual, format, medianRatio, pairFigures, progress, type Scenario, type TargetResult } from '../harness.mjs';
import { slowStart, slowStartBatch, type SlowStartEvent } from '../subject.mjs';

const SYNC_TASKS = 1_000_000;
const PROMISE_TASKS = 100_000;
const TARGET_RATIO = 1.3;

/**
 * What listening to a run costs (§12): the same tasks with and without an `events` listener, in turn in
 * one process. The listener only counts the events, so what shows is what the run spends to report
 * them: an event object per thing it does, a clock read per event, the listener's call. Without a
 * listener the run reports nothing; BENCHMARKS.md's other per-task figures are that side.
 */
export const eventsCost: Scenario = {
  name: 'events-cost',
  title: 'Events: the cost of listening',
  async run() {
    let events = 0;
    const listener = (event: SlowStartEvent) => {
      if (event.type !== 'end') events++;
    };
    const syncFactories: Array<() => Observable<number>> = Array.from({ length: SYNC_TASKS }, (_, i) => () => of(i));
    const promiseFactories = Array.from({ length: PROMISE_TASKS }, (_, i) => async () => i);
    const counted = (expected: number, what: string, output: () => Observable<{ size: number }>) => async () => {
      let tasks = 0;
      await drain(output(), (result) => (tasks += result.size));
      expectEqual(tasks, expected, what);
    };

    const comparison = await compare(
      [
        { name: 'sync, no listener', run: counted(SYNC_TASKS, 'sync tasks', () => from(syncFactories).pipe(slowStartBatch())) },
        {
          name: 'sync, listener',
          run: counted(SYNC_TASKS, 'sync tasks', () => from(syncFactories).pipe(slowStartBatch({ events: listener }))),
        },
        {
          name: 'sync window, no listener',
          run: counted(SYNC_TASKS, 'sync tasks', () => from(syncFactories).pipe(slowStartBatch({ pacing: 'window' }))),
        },
        {
          name: 'sync window, listener',
          run: counted(SYNC_TASKS, 'sync tasks', () => from(syncFactories).pipe(slowStartBatch({ pacing: 'window', events: listener }))),
        },
        { name: 'promise, no listener', run: counted(PROMISE_TASKS, 'promise tasks', () => slowStart(promiseFactories)) },
        {
          name: 'promise, listener',
          run: counted(PROMISE_TASKS, 'promise tasks', () => slowStart(promiseFactories, { events: listener })),
        },
      ],
      {
        warmupRounds: 2,
        rounds: 21,
        onSample: (side, round, ms) => progress(`${side.name} round ${round}: ${format.ms(ms)}`),
      },
    );
    if (events === 0) throw new Error('events-cost: the listener heard nothing');

    const pairs = [
      ['sync', SYNC_TASKS, `${format.count(SYNC_TASKS)} synchronous tasks, batch pacing`],
      ['sync window', SYNC_TASKS, `${format.count(SYNC_TASKS)} synchronous tasks, window pacing`],
      ['promise', PROMISE_TASKS, `${format.count(PROMISE_TASKS)} promise tasks, slowStart()`],
    ] as const;
    const targets: TargetResult[] = pairs.map(([name, , what]) => {
      const ratio = medianRatio(comparison, `${name}, listener`, `${name}, no listener`);
      return {
        description: `with a listener / without, ${what}`,
        measured: format.ratio(ratio),
        limit: `<= ${TARGET_RATIO}`,
        met: ratio <= TARGET_RATIO,
      };
    });
    return {
      name: this.name,
      title: this.title,
      method:
        `${format.count(SYNC_TASKS)} factories \`() => of(i)\` through \`from(factories).pipe(slowStartBatch(options))\` in ` +
        `both pacings, and ${format.count(PROMISE_TASKS)} \`async () => i\` through \`slowStart(tasks, options)\`, each without ` +
        'and with `events: listener`, a function that counts the events. 2 warm-up rounds, then 21 timed rounds; the six ' +
        'sides alternate within each round. Each ratio is the median of the per-round ratios.',
      figures: pairs.flatMap(([name, tasks]) => pairFigures(comparison, `${name}, listener`, `${name}, no listener`, tasks)),
      targets,
    };
  },
};
