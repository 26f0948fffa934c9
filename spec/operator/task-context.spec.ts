/**
 * The context a factory is given: an ordinary object that can be copied without losing what it holds
 * (§1, §11), inspected without showing the runner, and frozen without breaking the run.
 */
import { inspect } from 'node:util';
import { lastValueFrom, NEVER, of, throwError, type Observable } from 'rxjs';
import { slowStart, type TaskContext } from '../../src/index';
import { abortControllersMade, batch, errorSummary } from '../support/helpers';

describe('a copied TaskContext', () => {
  it.each([
    ['spread', (context: TaskContext): TaskContext => ({ ...context })],
    ['Object.assign', (context: TaskContext): TaskContext => Object.assign({}, context)],
  ])('keeps index, batch and a working signal when %s', (_, copy) => {
    const copies: TaskContext[] = [];
    const subscription = slowStart(
      [
        (context: TaskContext) => {
          copies.push(copy(context));
          return of(0);
        },
        (context: TaskContext) => {
          copies.push(copy(context));
          return NEVER;
        },
      ],
      { initialBatchSize: 2 },
    ).subscribe();
    expect(copies.map(({ index, batch }) => ({ index, batch }))).toEqual([
      { index: 0, batch: 0 },
      { index: 1, batch: 0 },
    ]);
    expect(copies.every((copied) => copied.signal instanceof AbortSignal)).toBe(true);
    expect(copies.map((copied) => copied.signal.aborted)).toEqual([false, false]);
    subscription.unsubscribe();
    // The still-running task's copy aborts with it; the settled task's is left alone.
    expect(copies.map((copied) => copied.signal.aborted)).toEqual([false, true]);
  });

  it('shows only the fields a context has', () => {
    let keys: string[] = [];
    slowStart([
      (context: TaskContext) => {
        keys = Object.keys(context).sort();
        return of(0);
      },
    ]).subscribe();
    expect(keys).toEqual(['attempt', 'batch', 'inDoubt', 'index', 'key', 'signal']);
  });
});

/** Names that belong to the runner's task, not to what its factory is told. */
const internalNames = ['TaskRun', 'group', 'position', 'factory', 'dropsAtStart', 'onSettle', 'settled', 'subscription', 'values'];

describe('the TaskContext a factory is given', () => {
  it('is an ordinary object: its prototype is Object.prototype and its methods work', () => {
    const seen: unknown[] = [];
    let error: unknown;
    slowStart([
      (context: TaskContext) => {
        // What user code does with any object, which lint rules would steer it away from.
        /* eslint-disable no-prototype-builtins, @typescript-eslint/no-base-to-string, @typescript-eslint/no-unnecessary-template-expression */
        seen.push(
          Object.getPrototypeOf(context) === Object.prototype,
          Object.getOwnPropertyNames(context),
          context.hasOwnProperty('signal'),
          context.toString(),
          String(context),
          `${context as unknown as string}`,
        );
        /* eslint-enable no-prototype-builtins, @typescript-eslint/no-base-to-string, @typescript-eslint/no-unnecessary-template-expression */
        return of(0);
      },
    ]).subscribe({ error: (reason: unknown) => (error = reason) });
    expect(error).toBeUndefined();
    expect(seen).toEqual([
      true,
      ['index', 'batch', 'attempt', 'key', 'inDoubt', 'signal'],
      true,
      '[object Object]',
      '[object Object]',
      '[object Object]',
    ]);
  });

  it('shows its six fields when inspected or logged, and nothing of the runner or of other tasks', () => {
    let shown = '';
    slowStart(
      [
        () => of('a value of another task'),
        (context: TaskContext) => {
          shown = inspect(context);
          return of(1);
        },
      ],
      { initialBatchSize: 2 },
    ).subscribe();
    expect(shown).toBe('{\n  index: 1,\n  batch: 0,\n  attempt: 1,\n  key: 1,\n  inDoubt: false,\n  signal: [Getter/Setter]\n}');
    for (const name of [...internalNames, 'another task']) expect([name, shown.includes(name)]).toEqual([name, false]);
  });

  describe.each([
    ['Object.freeze', Object.freeze],
    ['Object.seal', Object.seal],
    ['Object.preventExtensions', Object.preventExtensions],
  ])('given to %s in a factory', (_, lock: (context: TaskContext) => unknown) => {
    const locking =
      (fail?: number) =>
      (context: TaskContext): Observable<number> => {
        lock(context);
        return context.index === fail ? throwError(() => 'broke') : of(context.index);
      };

    it('leaves the run to end as it would', () => {
      const results: unknown[] = [];
      let completed = false;
      slowStart([0, 1, 2, 3].map(() => locking())).subscribe({
        next: (result) => results.push(result),
        complete: () => (completed = true),
      });
      expect(results).toEqual([batch(0, 0, [0], 1), batch(1, 1, [1, 2], 3), batch(2, 3, [3], 4)]);
      expect(completed).toBe(true);
    });

    it('leaves a failing task to end the run with a SlowStartBatchError', () => {
      let error: unknown;
      slowStart([0, 1, 2, 3].map(() => locking(2))).subscribe({ error: (reason: unknown) => (error = reason) });
      expect(errorSummary(error)).toMatchObject({ name: 'SlowStartBatchError', batch: 1, successes: 2, cause: 'broke', skipped: 1 });
    });

    it('leaves its signal working: read after the call, it aborts when the task is torn down', () => {
      const contexts: TaskContext[] = [];
      const subscription = slowStart([
        (context: TaskContext) => {
          lock(context);
          contexts.push(context);
          return NEVER;
        },
      ]).subscribe();
      const { signal } = contexts[0];
      expect(signal.aborted).toBe(false);
      subscription.unsubscribe();
      expect(signal.aborted).toBe(true);
    });
  });

  it('holds copies: a factory that changes its attempt is still tried no more than maxAttempts times', async () => {
    let calls = 0;
    const failing = (context: TaskContext): Observable<number> => {
      calls++;
      Reflect.set(context, 'attempt', 0);
      // Were the write to count, the task would be tried again and again: its fifth try ends the run.
      return calls === 5 ? of(0) : throwError(() => 'throttled');
    };
    const error = await lastValueFrom(slowStart([failing], { retry: { when: () => true, maxAttempts: 2, delay: 0 } })).catch(
      (reason: unknown) => reason,
    );
    expect([calls, errorSummary(error).cause]).toEqual([2, 'throttled']);
  });

  it('makes no AbortController for a task that never reads signal', () => {
    const seen: unknown[] = [];
    let done = 0;
    const made = abortControllersMade(() => {
      const tasks = Array.from({ length: 10 }, () => (context: TaskContext) => {
        seen.push([context.index, context.batch, context.attempt, Object.keys(context).length, inspect(context), Object.freeze(context)]);
        return of(0);
      });
      slowStart(tasks).subscribe({ next: (result) => (done += result.size) });
    });
    expect([made, done, seen.length]).toEqual([0, 10, 10]);
  });

  it('makes one AbortController per task that reads signal, however often and in however many copies', () => {
    const signals: AbortSignal[][] = [];
    const made = abortControllersMade(() => {
      const tasks = Array.from({ length: 6 }, () => (context: TaskContext) => {
        signals.push([context.signal, context.signal, { ...context }.signal, Object.assign({}, context).signal]);
        return of(0);
      });
      slowStart(tasks).subscribe();
    });
    expect(made).toBe(6);
    expect(signals.map((read) => new Set(read).size)).toEqual([1, 1, 1, 1, 1, 1]);
  });
});
