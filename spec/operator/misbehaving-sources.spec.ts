/**
 * Sources that break the iteration protocols (§11): the stream ends with an error, as RxJS's `from()`
 * would, and never hangs, crashes the process or leaves a rejection unhandled. What can be checked when
 * `slowStart()` is called is checked then.
 */
import { config, firstValueFrom, lastValueFrom, of, take, toArray } from 'rxjs';
import { isSlowStartBatchError, slowStart, type SlowStartBatchError, type TaskFactory } from '../../src/index';

const ok =
  (value: number): TaskFactory<number> =>
  () =>
    of(value);

/** Collects what reaches `config.onUnhandledError` while `body` runs and a few timer turns after. */
async function unhandledErrorsDuring(body: () => Promise<void> | void): Promise<unknown[]> {
  const reported: unknown[] = [];
  const previous = config.onUnhandledError;
  config.onUnhandledError = (error) => reported.push(error);
  const rejections: unknown[] = [];
  const onRejection = (reason: unknown) => rejections.push(reason);
  process.on('unhandledRejection', onRejection);
  try {
    await body();
    for (let turn = 0; turn < 3; turn++) await new Promise((resolve) => setTimeout(resolve, 1));
  } finally {
    config.onUnhandledError = previous;
    process.off('unhandledRejection', onRejection);
  }
  expect(rejections).toEqual([]);
  return reported;
}

/** The error the stream ends with; fails the test if it completes or hangs for more than a second. */
async function streamError(tasks: unknown): Promise<unknown> {
  const outcome = lastValueFrom(slowStart(tasks as TaskFactory<number>[]).pipe(toArray())).then(
    (values) => ({ completed: values }),
    (error: unknown) => ({ error }),
  );
  const hung = new Promise<{ hung: true }>((resolve) => setTimeout(() => resolve({ hung: true }), 1000).unref());
  const result = await Promise.race([outcome, hung]);
  if (!('error' in result)) throw new Error(`expected the stream to error, got ${JSON.stringify(result)}`);
  return result.error;
}

describe('an iterator that breaks the protocol ends the stream with a TypeError (§11)', () => {
  it.each([
    ['a number', 5],
    ['null', null],
    ['undefined', undefined],
  ])('async iterator whose next() resolves to %s', async (_, step) => {
    const reported = await unhandledErrorsDuring(async () => {
      const error = await streamError({ [Symbol.asyncIterator]: () => ({ next: () => Promise.resolve(step) }) });
      expect(error).toBeInstanceOf(TypeError);
      expect((error as TypeError).message).toMatch(/iterator result/);
    });
    expect(reported).toEqual([]);
  });

  it.each([
    ['a number', 5],
    ['null', null],
  ])('sync iterator whose next() returns %s', async (_, step) => {
    const error = await streamError({ [Symbol.iterator]: () => ({ next: () => step }) });
    expect(error).toBeInstanceOf(TypeError);
  });

  it('sync iterator whose next() returns a non-object when pulled after an asynchronous batch', async () => {
    let pulls = 0;
    const iterable = {
      [Symbol.iterator]: () => ({
        next: () => (pulls++ === 0 ? { done: false, value: () => Promise.resolve(1) } : null),
      }),
    };
    const reported = await unhandledErrorsDuring(async () => {
      const error = await streamError(iterable);
      expect(error).toBeInstanceOf(TypeError);
    });
    expect(pulls).toBe(2);
    expect(reported).toEqual([]);
  });

  it.each([
    ['Symbol.iterator', Symbol.iterator],
    ['Symbol.asyncIterator', Symbol.asyncIterator],
  ])('[%s]() that returns a non-object', async (_, key) => {
    for (const returned of [undefined, null, 42]) {
      const error = await streamError({ [key]: () => returned });
      expect(error).toBeInstanceOf(TypeError);
      expect((error as TypeError).message).toMatch(/iterator/);
    }
  });

  it.each([
    ['Symbol.iterator', Symbol.iterator],
    ['Symbol.asyncIterator', Symbol.asyncIterator],
  ])('a non-callable [%s] is a TypeError when slowStart() is called', (name, key) => {
    expect(() => slowStart({ [key]: 42 } as never)).toThrow(
      new TypeError(`Expected \`tasks[${name}]\` to be a function returning an iterator, got 42 (number)`),
    );
    // As in the language, a method that is null or undefined is no method at all.
    expect(() => slowStart({ [key]: undefined, [Symbol.iterator]: () => [ok(1)][Symbol.iterator]() } as never)).not.toThrow();
  });
});

describe('an error thrown while closing an iterator goes to config.onUnhandledError (§11)', () => {
  it('from a sync iterator return() that throws', async () => {
    const failure = new Error('return failed');
    const iterable = {
      [Symbol.iterator]: () => ({
        next: () => ({ done: false, value: ok(1) }),
        return: () => {
          throw failure;
        },
      }),
    };
    const reported = await unhandledErrorsDuring(async () => {
      await firstValueFrom(slowStart(iterable).pipe(take(1)));
    });
    expect(reported).toEqual([failure]);
  });

  it('from an async iterator return() that rejects', async () => {
    const failure = new Error('return rejected');
    const iterable = {
      [Symbol.asyncIterator]: () => ({
        next: () => Promise.resolve({ done: false, value: ok(1) }),
        return: () => Promise.reject(failure),
      }),
    };
    const reported = await unhandledErrorsDuring(async () => {
      await firstValueFrom(slowStart(iterable).pipe(take(1)));
    });
    expect(reported).toEqual([failure]);
  });
});

describe('a factory being pulled when a run fails is never dropped (§5, §11)', () => {
  it('the error waits for the pull, lists its factory in remaining, then closes the iterator', async () => {
    const events: string[] = [];
    const late: TaskFactory<number> = () => of(2);
    const failing: TaskFactory<number> = () => {
      throw new Error('quota');
    };
    let pulls = 0;
    const iterable = {
      [Symbol.asyncIterator]: () => ({
        next: () => {
          pulls++;
          if (pulls === 1) return Promise.resolve({ done: false, value: failing });
          events.push('second pull started');
          return new Promise<IteratorResult<TaskFactory<number>>>((resolve) =>
            setTimeout(() => {
              events.push('second pull resolved');
              resolve({ done: false, value: late });
            }, 20),
          );
        },
        return: () => {
          events.push('return');
          return Promise.resolve({ done: true as const, value: undefined });
        },
      }),
    };
    // A batch of two waits for its second factory; flushAfter starts the first alone while the second
    // is still being pulled, and that first task fails.
    const error = await lastValueFrom(slowStart(iterable, { initialBatchSize: 2, flushAfter: 0 })).catch((e: unknown) => {
      events.push('error');
      return e;
    });
    expect(isSlowStartBatchError(error)).toBe(true);
    expect((error as SlowStartBatchError<number>).remaining).toEqual([late]);
    expect((error as SlowStartBatchError<number>).skipped).toBe(1);
    expect(events).toEqual(['second pull started', 'second pull resolved', 'return', 'error']);
    expect(pulls).toBe(2);
  });

  it('a pull under way that ends the iterator or rejects adds nothing to remaining', async () => {
    for (const ending of ['done', 'reject'] as const) {
      let pulls = 0;
      const iterable = {
        [Symbol.asyncIterator]: () => ({
          next: () => {
            if (pulls++ === 0) return Promise.resolve({ done: false, value: () => Promise.reject(new Error('quota')) });
            return new Promise((resolve, reject) =>
              setTimeout(() => (ending === 'done' ? resolve({ done: true, value: undefined }) : reject(new Error('pull'))), 10),
            );
          },
        }),
      };
      const error = await lastValueFrom(
        slowStart(iterable as AsyncIterable<TaskFactory<number>>, { initialBatchSize: 2, flushAfter: 0 }),
      ).catch((e: unknown) => e);
      expect((error as SlowStartBatchError<number>).remaining).toEqual([]);
      expect((error as SlowStartBatchError<number>).cause).toEqual(new Error('quota'));
      // A pull that rejects is the source failing (§6): the error carries it, nothing is lost.
      if (ending === 'reject') expect((error as SlowStartBatchError<number>).sourceError).toEqual(new Error('pull'));
      else expect('sourceError' in (error as object)).toBe(false);
    }
  });

  it('unsubscribing while the error waits for the pull delivers nothing and closes the iterator', async () => {
    let closed = 0;
    let pulls = 0;
    const iterable = {
      [Symbol.asyncIterator]: () => ({
        next: () => {
          if (pulls++ === 0) return Promise.resolve({ done: false, value: () => Promise.reject(new Error('quota')) });
          return new Promise((resolve) => setTimeout(() => resolve({ done: false, value: ok(2) }), 30));
        },
        return: () => {
          closed++;
          return Promise.resolve({ done: true, value: undefined });
        },
      }),
    };
    const seen: string[] = [];
    const subscription = slowStart(iterable as AsyncIterable<TaskFactory<number>>, { initialBatchSize: 2, flushAfter: 0 }).subscribe({
      error: () => seen.push('error'),
      complete: () => seen.push('complete'),
    });
    await new Promise((resolve) => setTimeout(resolve, 10));
    subscription.unsubscribe();
    await new Promise((resolve) => setTimeout(resolve, 40));
    expect(seen).toEqual([]);
    expect(closed).toBe(1);
  });
});
