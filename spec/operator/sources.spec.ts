import { firstValueFrom, lastValueFrom, materialize, of, Subject, take, throwError, timer, map, toArray, defer } from 'rxjs';
import { isSlowStartBatchError, slowStart, type BatchResult, type SlowStartBatchError, type TaskFactory } from '../../src/index';
import { errorsReportedLater } from '../support/helpers';

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

  it('errors with what the iterator throws, after the running batch', () => {
    function* factories() {
      yield succeed(0);
      throw new Error('iterator broke');
    }
    const run = collect(slowStart(factories()));
    expect(run.values.map((result) => result.size)).toEqual([1]);
    expect(run.error).toEqual(new Error('iterator broke'));
  });

  it('calls [Symbol.iterator]() once per subscription', () => {
    const tasks = new Set([succeed(0), succeed(1), succeed(2)]);
    const source = slowStart(tasks);
    expect(collect(source).values).toHaveLength(2);
    expect(collect(source).values).toHaveLength(2);
  });
});

describe('slowStart() over an async iterable', () => {
  it('pulls lazily and completes', async () => {
    const pulled: number[] = [];
    async function* factories() {
      for (let index = 0; index < 10; index++) {
        pulled.push(index);
        yield succeed(index);
      }
    }
    const results = await lastValueFrom(slowStart(factories()).pipe(toArray()));
    expect(results.map((result) => result.size)).toEqual([1, 2, 4, 3]);
    expect(results.flatMap((result) => result.values)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
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

  it('flushes a short batch after flushAfter when the iterable is slow', async () => {
    async function* factories() {
      yield succeed(0);
      yield succeed(1);
      await new Promise((resolve) => setTimeout(resolve, 200));
      yield succeed(2);
    }
    const results = await lastValueFrom(slowStart(factories(), { flushAfter: 20 }).pipe(toArray()));
    expect(results.map((result) => result.size)).toEqual([1, 1, 1]);
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
