/**
 * Edges that the generated scenarios of properties.spec.ts do not reach, found by mutation testing
 * (see MUTATION.md): lazy pulling from arrays, iterables and async iterables, closing iterators,
 * the scheduler option, and the error's cross-copy brand.
 */
import { VirtualTimeScheduler, of, throwError } from 'rxjs';
import {
  SlowStartBatchError,
  isSlowStartBatchError,
  slowStart,
  slowStartBatch,
  type SlowStartOptions,
  type TaskFactory,
} from '../src/index.js';

const ok =
  (value: number): TaskFactory<number> =>
  () =>
    of(value);
const failing: TaskFactory<number> = () => throwError(() => new Error('quota'));

/** Runs `slowStart` synchronously and reports what it emitted and how it ended. */
function runSync(tasks: Iterable<TaskFactory<number>> | AsyncIterable<TaskFactory<number>>, options?: SlowStartOptions) {
  const emitted: number[] = [];
  let error: unknown;
  let completed = false;
  const subscription = slowStart(tasks, options).subscribe({
    next: (r) => emitted.push(r.batch),
    error: (e: unknown) => (error = e),
    complete: () => (completed = true),
  });
  return { emitted, error, completed, subscription };
}

describe('slowStart pulls an array lazily (§8)', () => {
  it('reads no element beyond the batch that is running', () => {
    const factories = [ok(0), ok(1), ok(2), failing, ok(4), ok(5), ok(6), ok(7), ok(8), ok(9)];
    const read: number[] = [];
    const watched = new Proxy(factories, {
      get(target, key, receiver) {
        if (typeof key === 'string' && /^\d+$/.test(key)) read.push(Number(key));
        return Reflect.get(target, key, receiver) as unknown;
      },
    });
    const readBeforeEachEmission: number[] = [];
    let error: unknown;
    slowStart(watched).subscribe({
      next: () => readBeforeEachEmission.push(Math.max(...read)),
      error: (e: unknown) => (error = e),
    });
    // Batches 0..0, 1..2 ran; batch 3..6 failed. When a batch is emitted, nothing after it was read.
    expect(readBeforeEachEmission).toEqual([0, 2]);
    expect(isSlowStartBatchError(error)).toBe(true);
    expect((error as SlowStartBatchError).remaining).toEqual(factories.slice(7));
  });
});

describe('slowStart pulls an iterable lazily and closes it only when it stops early (§8)', () => {
  function countingIterable(factories: TaskFactory<number>[], options: { withReturn: boolean; throwAt?: number }) {
    const counts = { pulled: 0, returned: 0 };
    const iterable: Iterable<TaskFactory<number>> = {
      [Symbol.iterator]() {
        let next = 0;
        const iterator: Iterator<TaskFactory<number>> = {
          next() {
            if (next === options.throwAt) throw new Error('iterator broke');
            if (next >= factories.length) return { done: true, value: undefined };
            counts.pulled++;
            return { done: false, value: factories[next++] };
          },
        };
        if (options.withReturn) {
          iterator.return = () => {
            counts.returned++;
            return { done: true, value: undefined };
          };
        }
        return iterator;
      },
    };
    return { iterable, counts };
  }

  it('pulls no more than the batches need and calls return() once after a failure', () => {
    const { iterable, counts } = countingIterable([ok(0), ok(1), failing, ok(3), ok(4), ok(5), ok(6), ok(7), ok(8)], { withReturn: true });
    const run = runSync(iterable);
    expect(run.emitted).toEqual([0]);
    expect(counts.pulled).toBe(3); // 1, then the failing batch of 2
    expect((run.error as SlowStartBatchError).skipped).toBe(0);
    expect(counts.returned).toBe(1);
  });

  it('does not call return() when the iterable ran to its end', () => {
    const { iterable, counts } = countingIterable([ok(0), ok(1), ok(2)], { withReturn: true });
    const run = runSync(iterable);
    expect(run.completed).toBe(true);
    expect(counts.returned).toBe(0);
    run.subscription.unsubscribe();
    expect(counts.returned).toBe(0);
  });

  it('does not call return() on an iterator whose next() threw, and errors with what it threw', () => {
    const { iterable, counts } = countingIterable([ok(0), ok(1), ok(2)], { withReturn: true, throwAt: 1 });
    const run = runSync(iterable);
    expect(run.emitted).toEqual([0]);
    expect((run.error as Error).message).toBe('iterator broke');
    expect(counts.returned).toBe(0);
  });

  it('stops an iterator without a return() method quietly', () => {
    jest.useFakeTimers();
    try {
      const { iterable } = countingIterable([ok(0), failing, ok(2), ok(3)], { withReturn: false });
      const run = runSync(iterable);
      expect(isSlowStartBatchError(run.error)).toBe(true);
      expect(jest.getTimerCount()).toBe(0);
    } finally {
      jest.useRealTimers();
    }
  });

  it('reports an error thrown by return() instead of swallowing it', () => {
    jest.useFakeTimers();
    try {
      const broken = new Error('return() broke');
      const iterable: Iterable<TaskFactory<number>> = {
        [Symbol.iterator]: () => ({
          next: () => ({ done: false, value: failing }),
          return: () => {
            throw broken;
          },
        }),
      };
      const run = runSync(iterable);
      expect(isSlowStartBatchError(run.error)).toBe(true);
      expect(() => jest.runAllTimers()).toThrow(broken);
    } finally {
      jest.useRealTimers();
    }
  });
});

describe('slowStart pulls an async iterable lazily (§8)', () => {
  const flush = () => new Promise((resolve) => setImmediate(resolve));

  function asyncSource(factories: TaskFactory<number>[], throwAt?: number) {
    const counts = { pulled: 0, returned: 0 };
    const iterable: AsyncIterable<TaskFactory<number>> = {
      [Symbol.asyncIterator]() {
        let next = 0;
        return {
          next() {
            if (next === throwAt) return Promise.reject(new Error('page failed'));
            if (next >= factories.length) return Promise.resolve({ done: true, value: undefined });
            counts.pulled++;
            return Promise.resolve({ done: false, value: factories[next++] });
          },
          return() {
            counts.returned++;
            return Promise.resolve({ done: true, value: undefined });
          },
        };
      },
    };
    return { iterable, counts };
  }

  it('pulls only what each batch needs, runs every batch and completes without calling return()', async () => {
    const factories = Array.from({ length: 7 }, (_, i) => ok(i));
    const { iterable, counts } = asyncSource(factories);
    const pulledAtEmission: number[] = [];
    let completed = false;
    slowStart(iterable).subscribe({ next: () => pulledAtEmission.push(counts.pulled), complete: () => (completed = true) });
    await flush();
    expect(pulledAtEmission).toEqual([1, 3, 7]);
    expect(completed).toBe(true);
    expect(counts.returned).toBe(0);
  });

  it('stops pulling after a failure, lists only what it pulled, and calls return() once', async () => {
    const factories = [ok(0), failing, ok(2), ok(3), ok(4)];
    const { iterable, counts } = asyncSource(factories);
    let error: unknown;
    slowStart(iterable).subscribe({ error: (e: unknown) => (error = e) });
    await flush();
    expect(isSlowStartBatchError(error)).toBe(true);
    expect(counts.pulled).toBe(3);
    expect((error as SlowStartBatchError).remaining).toEqual([]);
    expect(counts.returned).toBe(1);
  });

  it('errors with the rejection of next() and does not call return()', async () => {
    const { iterable, counts } = asyncSource([ok(0), ok(1), ok(2)], 1);
    let error: unknown;
    slowStart(iterable).subscribe({ error: (e: unknown) => (error = e) });
    await flush();
    expect((error as Error).message).toBe('page failed');
    expect(counts.returned).toBe(0);
  });

  it('calls return() once when the consumer unsubscribes', async () => {
    const { iterable, counts } = asyncSource([ok(0), ok(1), ok(2)]);
    // The first batch wants 10 factories and the source has 3: the run is still pulling when it is left.
    const subscription = slowStart(iterable, { initialBatchSize: 10 }).subscribe();
    subscription.unsubscribe();
    subscription.unsubscribe();
    await flush();
    expect(counts.returned).toBe(1);
  });
});

describe('the scheduler option (§8)', () => {
  it.each([null, 42, {}, { schedule: () => undefined }, { now: () => 0 }])('rejects %p with a TypeError', (scheduler) => {
    expect(() => slowStartBatch({ scheduler: scheduler as never })).toThrow(TypeError);
    expect(() => slowStart([], { scheduler: scheduler as never })).toThrow(/`scheduler`/);
  });

  it('accepts a SchedulerLike', () => {
    const scheduler = new VirtualTimeScheduler();
    expect(() => slowStartBatch({ scheduler, flushAfter: 5 })).not.toThrow();
  });
});

describe('SlowStartBatchError', () => {
  it('has an enumerable sourceError when the source errored during the failing batch', () => {
    const error = new SlowStartBatchError({
      batch: 0,
      startIndex: 0,
      size: 1,
      successes: 0,
      results: [{ index: 0, status: 'rejected', reason: 'x' }],
      cause: 'x',
      remaining: [],
      sourceError: { error: 'source broke' },
    });
    expect(Object.keys(error)).toContain('sourceError');
    expect(error.sourceError).toBe('source broke');
  });

  it('is recognised by its registered brand, as a second copy of the package would make it', () => {
    const fromAnotherCopy = { [Symbol.for('rxjs-slow-start/SlowStartBatchError')]: true };
    expect(isSlowStartBatchError(fromAnotherCopy)).toBe(true);
    expect(isSlowStartBatchError({ [Symbol.for('')]: true })).toBe(false);
  });
});
