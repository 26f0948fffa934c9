// What a task's value is and every way a task can fail (contract §4), each failure in a batch with a
// sibling that must still run to its end; what a failing batch does (§5), and its SlowStartBatchError.
import { defer, firstValueFrom, Observable, of, throwError, timer, map, materialize, toArray } from 'rxjs';
import { isSlowStartBatchError, slowStart, slowStartBatch, SlowStartBatchError, type TaskFactory } from '../../src/index';
import { batch, summarizeError } from '../support/helpers';
import { createScheduler, factoriesFor } from '../support/marbles';

/** Runs `failing` beside a slow sibling in one batch of two and returns the error. */
async function failureOf(failing: unknown): Promise<SlowStartBatchError<string>> {
  let siblingCompleted = false;
  const sibling: TaskFactory<string> = () =>
    timer(5).pipe(
      map(() => {
        siblingCompleted = true;
        return 'sibling';
      }),
    );
  const notifications = await firstValueFrom(
    slowStart([failing as TaskFactory<string>, sibling], { initialBatchSize: 2 }).pipe(materialize(), toArray()),
  );
  expect(notifications).toHaveLength(1);
  const error = notifications[0].error as unknown;
  expect(isSlowStartBatchError(error)).toBe(true);
  // The batch ran to its end before the error: the sibling was not cancelled.
  expect(siblingCompleted).toBe(true);
  const failure = error as SlowStartBatchError<string>;
  expect(failure.successes).toBe(1);
  expect(failure.results[1]).toEqual({ index: 1, status: 'fulfilled', value: 'sibling' });
  expect(failure.results[0]).toEqual({ index: 0, status: 'rejected', reason: failure.cause });
  return failure;
}

describe('a task fails when', () => {
  it('the item is not a function', async () => {
    const failure = await failureOf(42);
    expect(failure.cause).toBeInstanceOf(TypeError);
    expect((failure.cause as Error).message).toBe('Expected `tasks[0]` to be a function returning an ObservableInput, got 42 (number)');
  });

  it('the item is null', async () => {
    const failure = await failureOf(null);
    expect((failure.cause as Error).message).toBe('Expected `tasks[0]` to be a function returning an ObservableInput, got null (null)');
  });

  it('the factory throws', async () => {
    const thrown = new Error('factory threw');
    const failure = await failureOf(() => {
      throw thrown;
    });
    expect(failure.cause).toBe(thrown);
  });

  it.each([
    ['undefined', undefined],
    ['a number', 7],
    ['a plain object', { not: 'observable' }],
  ])('the factory returns %s, which is not an ObservableInput', async (_name, returned) => {
    const failure = await failureOf(() => returned);
    expect(failure.cause).toBeInstanceOf(TypeError);
  });

  it('its observable errors synchronously', async () => {
    const failure = await failureOf(() => throwError(() => 'sync error'));
    expect(failure.cause).toBe('sync error');
  });

  it('its observable errors later', async () => {
    const failure = await failureOf(() =>
      timer(1).pipe(
        map(() => {
          throw 'late error';
        }),
      ),
    );
    expect(failure.cause).toBe('late error');
  });

  it('its observable errors with undefined', async () => {
    const failure = await failureOf(() => new Observable((subscriber) => subscriber.error(undefined)));
    expect(failure.cause).toBeUndefined();
    expect(failure.results[0]).toEqual({ index: 0, status: 'rejected', reason: undefined });
  });

  it.each([
    ['an Error', new Error('rejected')],
    ['undefined', undefined],
    ['null', null],
    ['0', 0],
    ['an empty string', ''],
  ])('its promise rejects with %s', async (_name, reason) => {
    const failure = await failureOf(() => Promise.reject(reason));
    expect(failure.cause).toBe(reason);
  });

  it('its async function throws', async () => {
    const failure = await failureOf(async () => {
      await Promise.resolve();
      throw new RangeError('async throw');
    });
    expect(failure.cause).toBeInstanceOf(RangeError);
  });
});

describe('a task succeeds', () => {
  it('with the value of a resolved promise, the last value of an observable, or undefined', async () => {
    const tasks: TaskFactory<string | number>[] = [
      () => Promise.resolve('promise'),
      () => of(1, 2, 3),
      () => of(),
      async () => 'async',
      () => defer(() => of('deferred')),
      () => ['array', 'last'],
    ];
    const results = await firstValueFrom(slowStart(tasks, { initialBatchSize: tasks.length }));
    expect(results.values).toEqual(['promise', 3, undefined, 'async', 'deferred', 'last']);
  });
});

describe('a failing batch (§5)', () => {
  it('waits for the whole failing batch, then errors with every outcome, without invoking more', () => {
    createScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const quota = new Error('quota exceeded');
      const tasks = { a: cold('-A|'), b: cold('----B|'), c: cold('-#', undefined, quota), d: cold('-D|'), e: cold('-E|') };
      const factories = factoriesFor(tasks);
      const source = cold('a--b-c-de|', factories);
      expectObservable(source.pipe(slowStartBatch(), summarizeError())).toBe('--x-------(y|)', {
        x: batch(0, 0, ['A'], 1),
        y: {
          name: 'SlowStartBatchError',
          message: 'slowStartBatch: 1 of 2 tasks failed in batch 1; 2 tasks succeeded in all; 2 tasks skipped',
          batch: 1,
          startIndex: 1,
          size: 2,
          successes: 2,
          results: [
            { index: 1, status: 'fulfilled', value: 'B' },
            { index: 2, status: 'rejected', reason: quota },
          ],
          cause: quota,
          skipped: 2,
          remaining: [factories.d, factories.e],
        },
      });
      // c failed at frame 6, but b runs to its end: a failure never cancels a sibling.
      expectSubscriptions(tasks.b.subscriptions).toBe('-----^----!');
      expectSubscriptions(tasks.c.subscriptions).toBe('-----^!');
      expectSubscriptions(tasks.d.subscriptions).toBe([]);
      expectSubscriptions(tasks.e.subscriptions).toBe([]);
      expectSubscriptions(source.subscriptions).toBe('^--------!');
    });
  });

  it('reports as cause the failure that happened first in time, not first in order', () => {
    createScheduler().run(({ cold, expectObservable }) => {
      const late = new Error('late');
      const early = new Error('early');
      const source = cold('(ab|)', factoriesFor({ a: cold('---#', undefined, late), b: cold('-#', undefined, early) }));
      const causes = source.pipe(slowStartBatch({ initialBatchSize: 2 }), summarizeError());
      expectObservable(causes).toBe('---(y|)', {
        y: expect.objectContaining({
          cause: early,
          successes: 0,
          results: [expect.objectContaining({ reason: late }), expect.objectContaining({ reason: early })],
        }),
      });
    });
  });
});

describe('SlowStartBatchError', () => {
  it('states the counts in its message, with singulars where they belong', async () => {
    const error = await firstValueFrom(slowStart([() => Promise.reject(new Error('x')), () => of(1)]).pipe(materialize())).then(
      (n) => n.error as SlowStartBatchError,
    );
    expect(error.name).toBe('SlowStartBatchError');
    expect(error.message).toBe('slowStartBatch: 1 of 1 task failed in batch 0; 0 tasks succeeded in all; 1 task skipped');
    expect(error).toBeInstanceOf(SlowStartBatchError);
    expect(error).toBeInstanceOf(Error);
    expect('sourceError' in error).toBe(false);
  });

  it('is recognised by isSlowStartBatchError across two loaded copies of the package', () => {
    let otherCopy: typeof import('../../src/index') | undefined;
    jest.isolateModules(() => {
      // eslint-disable-next-line @typescript-eslint/no-require-imports -- jest.isolateModules needs a synchronous require
      otherCopy = require('../../src/index') as typeof import('../../src/index');
    });
    expect(otherCopy?.SlowStartBatchError).not.toBe(SlowStartBatchError);
    const foreign = new otherCopy!.SlowStartBatchError({
      batch: 0,
      startIndex: 0,
      size: 1,
      successes: 0,
      results: [],
      cause: 'x',
      remaining: [],
    });
    expect(foreign instanceof SlowStartBatchError).toBe(false);
    expect(isSlowStartBatchError(foreign)).toBe(true);
    expect(
      otherCopy!.isSlowStartBatchError(
        new SlowStartBatchError({ batch: 0, startIndex: 0, size: 1, successes: 0, results: [], cause: 'x', remaining: [] }),
      ),
    ).toBe(true);
  });

  it.each([new Error('plain'), { name: 'SlowStartBatchError' }, null, undefined, 'SlowStartBatchError'])(
    'is not claimed for %p',
    (value) => {
      expect(isSlowStartBatchError(value)).toBe(false);
    },
  );

  // Found by mutation testing (see MUTATION.md), as was the next test.
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
