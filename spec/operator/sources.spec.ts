// Where the factories come from: slowStart() over arrays, iterables, async iterables and other
// ObservableInputs, pulled lazily (§8); slowStartBatch() over sources that end, fail or never emit
// (§5, §6).
import {
  config,
  EMPTY,
  NEVER,
  firstValueFrom,
  lastValueFrom,
  materialize,
  of,
  Subject,
  take,
  throwError,
  timer,
  map,
  toArray,
  defer,
} from 'rxjs';
import {
  isSlowStartBatchError,
  slowStart,
  slowStartBatch,
  type BatchResult,
  type SlowStartBatchError,
  type SlowStartOptions,
  type TaskFactory,
} from '../../src/index';
import { batch, errorsReportedLater, summarizeError } from '../support/helpers';
import { createScheduler, factoriesFor } from '../support/marbles';

const succeed =
  (value: number): TaskFactory<number> =>
  () =>
    of(value);
const fail =
  (reason: unknown): TaskFactory<number> =>
  () =>
    throwError(() => reason);

function collect<T>(source: import('rxjs').Observable<T>) {
  const values: T[] = [];
  let error: unknown;
  let completed = false;
  const subscription = source.subscribe({
    next: (value) => values.push(value),
    error: (e: unknown) => (error = e),
    complete: () => (completed = true),
  });
  return {
    values,
    get error() {
      return error;
    },
    get completed() {
      return completed;
    },
    subscription,
  };
}

const failing: TaskFactory<number> = () => throwError(() => new Error('quota'));

/** Runs `slowStart` synchronously and reports the batches it emitted and how it ended. */
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

describe('slowStart() over an array', () => {
  it('hands back the whole unrun rest of the array as remaining', () => {
    const tasks = [succeed(0), succeed(1), fail('quota'), succeed(3), succeed(4), succeed(5)];
    const run = collect(slowStart(tasks));
    const error = run.error as SlowStartBatchError<number>;
    expect(isSlowStartBatchError(error)).toBe(true);
    expect(error.remaining).toEqual(tasks.slice(3));
    expect(error.skipped).toBe(3);
    expect(error.successes).toBe(2);
  });

  it('lets a caller resume from remaining', async () => {
    let quota = 3;
    const task =
      (value: number): TaskFactory<number> =>
      () =>
        quota-- > 0 ? of(value) : throwError(() => new Error('quota'));
    const tasks = Array.from({ length: 10 }, (_, index) => task(index));
    const first = await lastValueFrom(slowStart(tasks).pipe(materialize(), toArray()));
    const error = first.at(-1)?.error as SlowStartBatchError<number>;
    quota = Infinity;
    const retry = [
      ...error.results.filter((result) => result.status === 'rejected').map((result) => tasks[result.index]),
      ...error.remaining,
    ];
    const resumed = await lastValueFrom(slowStart(retry).pipe(toArray()));
    expect(resumed.flatMap((result) => result.values)).toEqual([3, 4, 5, 6, 7, 8, 9]);
  });
});

// Found by mutation testing (see MUTATION.md): edges that the generated scenarios of
// contract/properties.spec.ts do not reach.
describe('slowStart pulls an array lazily (§8)', () => {
  it('reads no element beyond the batch that is running', () => {
    const factories = [succeed(0), succeed(1), succeed(2), failing, succeed(4), succeed(5), succeed(6), succeed(7), succeed(8), succeed(9)];
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

describe('slowStart() over an iterable', () => {
  it('pulls only what the next batch needs, and nothing after a failure', () => {
    const pulled: number[] = [];
    let closed = false;
    function* factories() {
      try {
        for (let index = 0; index < 10_000_000; index++) {
          pulled.push(index);
          yield index === 1000 ? fail('quota') : succeed(index);
        }
      } finally {
        closed = true;
      }
    }
    const run = collect(slowStart(factories()));
    const error = run.error as SlowStartBatchError<number>;
    // Batches of 1, 2, ..., 512: index 1000 is in the tenth, which ends at index 1022.
    expect(error.batch).toBe(9);
    expect(pulled).toHaveLength(1023);
    expect(error.remaining).toEqual([]);
    expect(closed).toBe(true);
  });

  it('pulls nothing before a batch is due, and the next batch only after the last has settled', async () => {
    const pulled: number[] = [];
    function* factories() {
      for (let index = 0; index < 7; index++) {
        pulled.push(index);
        yield () => timer(1).pipe(map(() => index));
      }
    }
    const source = slowStart(factories());
    expect(pulled).toEqual([]);
    const sizesWhenEmitted: number[] = [];
    await lastValueFrom(source.pipe(map(() => sizesWhenEmitted.push(pulled.length))));
    expect(sizesWhenEmitted).toEqual([1, 3, 7]);
  });

  it("calls the iterator's return() when the consumer leaves early", () => {
    let closed = false;
    function* factories() {
      try {
        for (let index = 0; ; index++) yield succeed(index);
      } finally {
        closed = true;
      }
    }
    const sizes: number[] = [];
    slowStart(factories())
      .pipe(take(3))
      .subscribe((result) => sizes.push(result.size));
    expect(sizes).toEqual([1, 2, 4]);
    expect(closed).toBe(true);
  });

  it('calls [Symbol.iterator]() once per subscription', () => {
    const tasks = new Set([succeed(0), succeed(1), succeed(2)]);
    const source = slowStart(tasks);
    expect(collect(source).values).toHaveLength(2);
    expect(collect(source).values).toHaveLength(2);
  });

  it('reads an iterable whose [Symbol.asyncIterator] is null as an iterable, as the language does', () => {
    const tasks = { [Symbol.asyncIterator]: null, [Symbol.iterator]: () => [succeed(0), succeed(1), succeed(2)][Symbol.iterator]() };
    const run = collect(slowStart(tasks as never));
    expect([run.values.map((result) => result.values), run.completed]).toEqual([[[0], [1, 2]], true]);
  });
});

// Found by mutation testing (see MUTATION.md): edges that the generated scenarios of
// contract/properties.spec.ts do not reach.
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
    const { iterable, counts } = countingIterable(
      [succeed(0), succeed(1), failing, succeed(3), succeed(4), succeed(5), succeed(6), succeed(7), succeed(8)],
      { withReturn: true },
    );
    const run = runSync(iterable);
    expect(run.emitted).toEqual([0]);
    expect(counts.pulled).toBe(3); // 1, then the failing batch of 2
    expect((run.error as SlowStartBatchError).skipped).toBe(0);
    expect(counts.returned).toBe(1);
  });

  it('does not call return() when the iterable ran to its end', () => {
    const { iterable, counts } = countingIterable([succeed(0), succeed(1), succeed(2)], { withReturn: true });
    const run = runSync(iterable);
    expect(run.completed).toBe(true);
    expect(counts.returned).toBe(0);
    run.subscription.unsubscribe();
    expect(counts.returned).toBe(0);
  });

  it('does not call return() on an iterator whose next() threw, and errors with what it threw', () => {
    const { iterable, counts } = countingIterable([succeed(0), succeed(1), succeed(2)], { withReturn: true, throwAt: 1 });
    const run = runSync(iterable);
    expect(run.emitted).toEqual([0]);
    expect((run.error as Error).message).toBe('iterator broke');
    expect(counts.returned).toBe(0);
  });

  it('stops an iterator without a return() method quietly', () => {
    jest.useFakeTimers();
    try {
      const { iterable } = countingIterable([succeed(0), failing, succeed(2), succeed(3)], { withReturn: false });
      const run = runSync(iterable);
      expect(isSlowStartBatchError(run.error)).toBe(true);
      expect(jest.getTimerCount()).toBe(0);
    } finally {
      jest.useRealTimers();
    }
  });

  it('reports an error thrown by return() instead of swallowing it', () => {
    jest.useFakeTimers();
    // No handler, as RxJS has by default: the error is thrown from a timeout.
    config.onUnhandledError = null;
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

describe('slowStart() over an async iterable', () => {
  it('has pulled exactly the factories of the batches that ran each time a batch is emitted, and completes with every value', async () => {
    let pulled = 0;
    async function* factories() {
      for (let index = 0; index < 100; index++) {
        pulled++;
        await Promise.resolve();
        yield (() => of(index)) as TaskFactory<number>;
      }
    }
    const emitted = await lastValueFrom(
      slowStart(factories()).pipe(
        map((result) => ({ result, pulled })),
        toArray(),
      ),
    );
    expect(emitted.map((at) => at.pulled)).toEqual([1, 3, 7, 15, 31, 63, 100]);
    expect(emitted.map((at) => at.result.size)).toEqual([1, 2, 4, 8, 16, 32, 37]);
    expect(emitted.flatMap((at) => at.result.values)).toEqual(Array.from({ length: 100 }, (_, index) => index));
  });

  it('pulls nothing after a failing batch and calls return()', async () => {
    const pulled: number[] = [];
    let closed = false;
    async function* factories() {
      try {
        for (let index = 0; index < 1_000_000; index++) {
          pulled.push(index);
          yield index === 4 ? fail('quota') : succeed(index);
        }
      } finally {
        closed = true;
      }
    }
    const notifications = await lastValueFrom(slowStart(factories()).pipe(materialize(), toArray()));
    const error = notifications.at(-1)?.error as SlowStartBatchError<number>;
    expect(error.batch).toBe(2);
    expect(pulled).toEqual([0, 1, 2, 3, 4, 5, 6]);
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(closed).toBe(true);
  });

  it('errors with what the iterator rejects with', async () => {
    async function* factories() {
      yield succeed(0);
      throw new Error('stream broke');
    }
    const notifications = await lastValueFrom(slowStart(factories()).pipe(materialize(), toArray()));
    expect(notifications.map((notification) => notification.kind)).toEqual(['N', 'E']);
    expect(notifications[1].error).toEqual(new Error('stream broke'));
  });

  it('reports a rejection of return() as an uncaught error instead of losing it', async () => {
    const closingFailure = new Error('could not close');
    const iterable: AsyncIterable<TaskFactory<number>> = {
      [Symbol.asyncIterator]: () => ({
        next: () => Promise.resolve({ done: false, value: () => of(1) }),
        return: () => Promise.reject(closingFailure),
      }),
    };
    const reported = await errorsReportedLater(async () => {
      const results = await lastValueFrom(slowStart(iterable).pipe(take(2), toArray()));
      expect(results.map((result) => result.size)).toEqual([1, 2]);
    });
    expect(reported).toEqual([closingFailure]);
  });
});

// Found by mutation testing (see MUTATION.md): edges that the generated scenarios of
// contract/properties.spec.ts do not reach.
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
    const factories = Array.from({ length: 7 }, (_, i) => succeed(i));
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
    const factories = [succeed(0), failing, succeed(2), succeed(3), succeed(4)];
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
    const { iterable, counts } = asyncSource([succeed(0), succeed(1), succeed(2)], 1);
    let error: unknown;
    slowStart(iterable).subscribe({ error: (e: unknown) => (error = e) });
    await flush();
    expect((error as Error).message).toBe('page failed');
    expect(counts.returned).toBe(0);
  });

  it('calls return() once when the consumer unsubscribes', async () => {
    const { iterable, counts } = asyncSource([succeed(0), succeed(1), succeed(2)]);
    // The first batch wants 10 factories and the source has 3: the run is still pulling when it is left.
    const subscription = slowStart(iterable, { initialBatchSize: 10 }).subscribe();
    subscription.unsubscribe();
    subscription.unsubscribe();
    await flush();
    expect(counts.returned).toBe(1);
  });
});

describe('slowStart() over other ObservableInputs', () => {
  it('runs factories from an observable, a promise and a subject', async () => {
    expect((await firstValueFrom(slowStart(of(succeed(1))))).values).toEqual([1]);
    expect((await firstValueFrom(slowStart(Promise.resolve(succeed(2))))).values).toEqual([2]);
    const subject = new Subject<TaskFactory<number>>();
    const results: BatchResult<number>[] = [];
    slowStart(subject).subscribe((result) => results.push(result));
    subject.next(succeed(3));
    subject.next(succeed(4));
    subject.next(succeed(5));
    subject.complete();
    expect(results.map((result) => result.values)).toEqual([[3], [4, 5]]);
  });

  it('does not subscribe to the source before it is subscribed to', () => {
    let subscribed = 0;
    const tasks = defer(() => {
      subscribed++;
      return of(succeed(1));
    });
    const source = slowStart(tasks);
    expect(subscribed).toBe(0);
    source.subscribe();
    expect(subscribed).toBe(1);
  });
});

// Hand-written iterators need not have return(), and [Symbol.iterator]() may throw: neither may
// surface as an uncaught error.
describe.each([
  ['an iterable', Symbol.iterator, (next: () => IteratorResult<TaskFactory<number>>) => next],
  ['an async iterable', Symbol.asyncIterator, (next: () => IteratorResult<TaskFactory<number>>) => () => Promise.resolve(next())],
] as const)('slowStart() over %s', (_, symbol, wrapNext) => {
  it('stops early without complaint when the iterator has no return()', async () => {
    let position = 0;
    const iterable = { [symbol]: () => ({ next: wrapNext(() => ({ done: false, value: succeed(position++) })) }) };
    const reported = await errorsReportedLater(async () => {
      const results = await lastValueFrom(slowStart(iterable as unknown as Iterable<TaskFactory<number>>).pipe(take(2), toArray()));
      expect(results.map((result) => result.size)).toEqual([1, 2]);
    });
    expect(reported).toEqual([]);
  });

  it('errors with what the iterator method throws, and reports nothing else', async () => {
    const failure = new Error('cannot iterate');
    const iterable = {
      [symbol]: () => {
        throw failure;
      },
    };
    const reported = await errorsReportedLater(async () => {
      await expect(lastValueFrom(slowStart(iterable as unknown as Iterable<TaskFactory<number>>))).rejects.toBe(failure);
    });
    expect(reported).toEqual([]);
  });
});

describe('slowStartBatch() over sources that never emit, are empty or fail at once', () => {
  it('never emits for a source that never emits', () => {
    createScheduler().run(({ expectObservable }) => {
      expectObservable(NEVER.pipe(slowStartBatch())).toBe('-');
    });
  });

  it('completes without invoking anything for an empty source', () => {
    createScheduler().run(({ cold, expectObservable }) => {
      expectObservable(cold<TaskFactory<unknown>>('|').pipe(slowStartBatch())).toBe('|');
      expectObservable(EMPTY.pipe(slowStartBatch())).toBe('|');
    });
  });

  it('propagates an immediate source error', () => {
    createScheduler().run(({ cold, expectObservable }) => {
      expectObservable(cold<TaskFactory<unknown>>('#', undefined, 'boom').pipe(slowStartBatch())).toBe('#', undefined, 'boom');
    });
  });
});

describe('source errors (§6)', () => {
  it('lets the running batch settle and emit, then delivers the source error', () => {
    createScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const tasks = { a: cold('---A|'), b: cold('-B|') };
      const source = cold('ab#', factoriesFor(tasks), 'source failed');
      expectObservable(source.pipe(slowStartBatch())).toBe('----(x#)', { x: batch(0, 0, ['A'], 1) }, 'source failed');
      expectSubscriptions(tasks.a.subscriptions).toBe('^---!');
      // b was waiting for batch 1 when the source failed: it is skipped.
      expectSubscriptions(tasks.b.subscriptions).toBe([]);
    });
  });

  it('skips factories still waiting for a batch', () => {
    createScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const tasks = { a: cold('-A|'), b: cold('-B|') };
      const source = cold('---a-#', factoriesFor(tasks), 'source failed');
      expectObservable(source.pipe(slowStartBatch({ initialBatchSize: 2 }))).toBe('-----#', undefined, 'source failed');
      expectSubscriptions(tasks.a.subscriptions).toBe([]);
    });
  });

  it('carries the source error on the SlowStartBatchError when the running batch failed', () => {
    createScheduler().run(({ cold, expectObservable }) => {
      const source = cold('ab#', factoriesFor({ a: cold('---#', undefined, 'task failed'), b: cold('-B|') }), 'source failed');
      expectObservable(source.pipe(slowStartBatch(), summarizeError())).toBe('---(y|)', {
        y: expect.objectContaining({ cause: 'task failed', sourceError: 'source failed', skipped: 1 }),
      });
    });
  });
});
