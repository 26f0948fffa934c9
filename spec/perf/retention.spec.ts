/**
 * The operator lets go of every factory once its task has run, and keeps feeding the right ones while
 * it compacts its queue. Uses V8's `gc()` (see spec/support/gc.ts).
 */
import { Observable, Subject, of, type Subscriber } from 'rxjs';
import { slowStartBatch, type BatchResult, type TaskFactory } from '../../src/index.js';
import { exposedGc } from '../support/gc.js';

const gc = exposedGc();
const collectGarbage = async () => {
  // A WeakRef keeps its target alive until the current job ends: collect in a later one.
  await new Promise((resolve) => setImmediate(resolve));
  gc();
};

describe('what the operator holds on to', () => {
  const TASKS = 5_000;

  it(`runs the right factories and keeps none of them after ${TASKS.toLocaleString('en')} tasks through an open Subject`, async () => {
    const source = new Subject<TaskFactory<number>>();
    const results: BatchResult<number>[] = [];
    const subscription = source.pipe(slowStartBatch({ initialBatchSize: 4, maxBatchSize: 4 })).subscribe((result) => results.push(result));
    const firstFactories: WeakRef<TaskFactory<number>>[] = [];
    // Built in a helper so that no local variable of this test keeps a factory alive.
    const pushAll = () => {
      for (let i = 0; i < TASKS; i++) {
        const factory: TaskFactory<number> = () => of(i);
        if (i < 100) firstFactories.push(new WeakRef(factory));
        source.next(factory);
      }
    };
    pushAll();

    // Every task ran, in batches of 4, each with its own value: nothing was run twice or skipped.
    expect(results).toHaveLength(TASKS / 4);
    results.forEach((result, k) => {
      expect(result.startIndex).toBe(4 * k);
      expect(result.values).toEqual([4 * k, 4 * k + 1, 4 * k + 2, 4 * k + 3]);
    });

    await collectGarbage();
    expect(firstFactories.filter((ref) => ref.deref() !== undefined)).toHaveLength(0);
    expect(subscription.closed).toBe(false);
    subscription.unsubscribe();
  });

  it('lets go of the factories of settled asynchronous tasks while one long task runs on', async () => {
    // Found by mutation testing: the runner keeps the tasks that did not settle as they subscribed, to
    // tear them down, and must drop the settled ones from that list as it grows.
    const source = new Subject<TaskFactory<number>>();
    const pending: Subscriber<number>[] = [];
    const later = () => new Observable<number>((subscriber) => void pending.push(subscriber));
    const subscription = source.pipe(slowStartBatch({ pacing: 'window', initialBatchSize: 4, maxBatchSize: 4 })).subscribe();
    const firstFactories: WeakRef<TaskFactory<number>>[] = [];
    const pushAll = () => {
      source.next(later);
      for (let i = 0; i < 1_000; i++) {
        const factory: TaskFactory<number> = () => later();
        if (i < 100) firstFactories.push(new WeakRef(factory));
        source.next(factory);
        // Each quick task settles once it has started; the first one, the long task, stays.
        while (pending.length > 1) pending.pop()!.complete();
      }
    };
    pushAll();
    expect(pending).toHaveLength(1);

    await collectGarbage();
    expect(firstFactories.filter((ref) => ref.deref() !== undefined)).toHaveLength(0);
    subscription.unsubscribe();
    expect(pending[0].closed).toBe(true);
  });

  it.each(['batch', 'window'] as const)(
    'lets go of the factory and the value of each settled task at once, the stream still open (%s pacing)',
    async (pacing) => {
      // An Angular root service keeps its Subject open for the life of the app: what the last tasks
      // returned must not stay referenced until more tasks come.
      const source = new Subject<TaskFactory<object>>();
      const pending: Subscriber<object>[] = [];
      const subscription = source.pipe(slowStartBatch({ pacing, initialBatchSize: 5 })).subscribe();
      const factories: WeakRef<TaskFactory<object>>[] = [];
      const values: WeakRef<object>[] = [];
      const runFive = () => {
        for (let i = 0; i < 5; i++) {
          const factory: TaskFactory<object> = () => new Observable<object>((subscriber) => void pending.push(subscriber));
          factories.push(new WeakRef(factory));
          source.next(factory);
        }
        for (const subscriber of pending.splice(0)) {
          const value = { response: new Array(1000).fill(0) };
          values.push(new WeakRef(value));
          subscriber.next(value);
          subscriber.complete();
        }
      };
      runFive();

      await collectGarbage();
      expect(factories.filter((ref) => ref.deref() !== undefined)).toHaveLength(0);
      expect(values.filter((ref) => ref.deref() !== undefined)).toHaveLength(0);
      expect(subscription.closed).toBe(false);
      subscription.unsubscribe();
    },
  );
});
