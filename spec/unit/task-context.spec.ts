/**
 * What a factory is told about its task (src/task-context.ts), alone and as a task makes it: an
 * ordinary object that shows its four fields and nothing of the task, can be copied without
 * losing its signal, and makes no AbortController that nobody asked for.
 */
import { inspect } from 'node:util';
import { ResultBook } from '../../src/result-book';
import { createContext } from '../../src/task-context';
import { TaskRun } from '../../src/task-run';
import type { TaskContext } from '../../src/types';
import { abortControllersMade } from '../support/helpers';

describe('createContext', () => {
  it("copies index, batch and attempt when made, and reads its source's signal each time its own is read", () => {
    const signal = new AbortController().signal;
    let reads = 0;
    const source = {
      index: 3,
      batch: 1,
      attempt: 2,
      get signal() {
        reads++;
        return signal;
      },
    };
    const context = createContext(source);
    void inspect(context);
    expect([reads, Object.getOwnPropertyDescriptor(context, 'index')]).toEqual([
      0,
      { value: 3, writable: true, enumerable: true, configurable: true },
    ]);
    expect([context.signal, { ...context }.signal, reads]).toEqual([signal, signal, 2]);
    expect(Object.getOwnPropertyDescriptor(context, 'signal')).toEqual({
      get: expect.any(Function),
      set: expect.any(Function),
      enumerable: true,
      configurable: true,
    });
  });
});

/** A task alone, as the runner makes it, and the context its factory would be given. */
function task() {
  const book = new ResultBook<string>();
  book.join(true, 1);
  // The second result, from source index 1: the task at its position 2 has index 3 and batch 1.
  const run = new TaskRun<string>(
    book.join(true, 4),
    2,
    () => undefined,
    2,
    0,
    3,
    () => undefined,
  );
  return { run, context: run.context };
}

/** Names that belong to the runner's task, not to what its factory is told. */
const internalNames = [
  'TaskRun',
  'group',
  'position',
  'factory',
  'dropsAtStart',
  'onSettle',
  'settled',
  'subscription',
  'controller',
  'tornDown',
];

/** The context as a factory's own code may treat it: an object whose `signal` it writes. */
const writing = (context: TaskContext) => context as { signal: unknown };

describe("a task's context, read and written as any ordinary object is (this file is a module: strict code)", () => {
  it("reads the task's signal through a Proxy, as the prototype of another object, and for any receiver", () => {
    const { run, context } = task();
    const other = task();
    const reads: unknown[] = [
      new Proxy(context, {}).signal,
      // A handler that forwards the receiver, as reactive stores' proxies do.
      new Proxy(context, { get: (target, key, receiver) => Reflect.get(target, key, receiver) as unknown }).signal,
      (Object.create(context) as TaskContext).signal,
      Reflect.get(context, 'signal', {}),
      Reflect.get(context, 'signal', other.context),
      { ...new Proxy(context, {}) }.signal,
    ];
    expect(reads.map((read) => read === run.signal)).toEqual([true, true, true, true, true, true]);
    expect(other.context.signal === run.signal).toBe(false);
    run.tearDown(() => undefined);
    expect([new Proxy(context, {}).signal.aborted, (Object.create(context) as TaskContext).signal.aborted]).toEqual([true, true]);
  });

  it('takes an assignment to signal: the context then holds what was written, as an ordinary property, and the task keeps its own', () => {
    const { run, context } = task();
    const written = new AbortController().signal;
    writing(context).signal = written;
    expect([context.signal === written, { ...context }.signal === written, Object.assign({}, context).signal === written]).toEqual([
      true,
      true,
      true,
    ]);
    expect(Object.getOwnPropertyDescriptor(context, 'signal')).toEqual({
      value: written,
      writable: true,
      enumerable: true,
      configurable: true,
    });
    expect(Object.keys(context)).toEqual(['index', 'batch', 'attempt', 'signal']);
    run.tearDown(() => undefined);
    expect([run.signal.aborted, written.aborted]).toEqual([true, false]);
    // Written again, and deleted, as any property can be.
    expect([Reflect.set(context, 'signal', null), context.signal]).toEqual([true, null]);
    expect([Reflect.deleteProperty(context, 'signal'), 'signal' in context]).toEqual([true, false]);
  });

  it('takes an assignment through a Proxy onto the context, and one to an object made with Object.create onto that object', () => {
    const { context } = task();
    const first = new AbortController().signal;
    writing(new Proxy(context, {})).signal = first;
    expect(context.signal === first).toBe(true);

    const { run, context: parent } = task();
    const child = Object.create(parent) as TaskContext;
    const second = new AbortController().signal;
    writing(child).signal = second;
    expect([child.signal === second, Object.hasOwn(child, 'signal'), parent.signal === run.signal]).toEqual([true, true, true]);
    // Reflect.set with another receiver writes to that receiver, as it does past an ordinary property.
    const receiver: { signal?: unknown } = {};
    expect(Reflect.set(parent, 'signal', second, receiver)).toBe(true);
    expect([receiver.signal === second, parent.signal === run.signal]).toEqual([true, true]);
  });

  it('takes an assignment once sealed or made non-extensible, as an ordinary object does', () => {
    for (const lock of [Object.seal, Object.preventExtensions]) {
      const { run, context } = task();
      lock(context);
      const written = new AbortController().signal;
      writing(context).signal = written;
      expect([context.signal === written, { ...context }.signal === written, run.signal === written]).toEqual([true, true, false]);
    }
  });

  it('refuses an assignment once frozen, with a TypeError as a frozen object does in strict code; signal still reads the task', () => {
    const { run, context } = task();
    Object.freeze(context);
    expect(() => {
      writing(context).signal = null;
    }).toThrow(TypeError);
    expect(() => {
      writing(new Proxy(context, {})).signal = null;
    }).toThrow(TypeError);
    expect([context.signal === run.signal, { ...context }.signal === run.signal]).toEqual([true, true]);
  });
});

describe("a task's context", () => {
  it('is an ordinary object with exactly index, batch, attempt and signal as its own enumerable properties', () => {
    const { context } = task();
    expect(Object.getPrototypeOf(context)).toBe(Object.prototype);
    expect(Object.keys(context)).toEqual(['index', 'batch', 'attempt', 'signal']);
    expect(Object.getOwnPropertyNames(context)).toEqual(['index', 'batch', 'attempt', 'signal']);
    // What links it to its task is not shown: no enumerable symbol, nothing a copy would carry.
    expect(Object.getOwnPropertySymbols(context).filter((key) => Object.prototype.propertyIsEnumerable.call(context, key))).toEqual([]);
    expect([context.index, context.batch, context.attempt]).toEqual([3, 1, 2]);
    expect(context.signal).toBeInstanceOf(AbortSignal);
  });

  it("answers Object.prototype's methods as any object does", () => {
    const { context } = task();
    // What user code does with any object, which lint rules would steer it away from.
    /* eslint-disable no-prototype-builtins, @typescript-eslint/no-base-to-string, @typescript-eslint/no-unnecessary-template-expression */
    expect(['index', 'batch', 'attempt', 'signal', 'factory'].map((key) => context.hasOwnProperty(key))).toEqual([
      true,
      true,
      true,
      true,
      false,
    ]);
    expect(Object.hasOwn(context, 'signal')).toBe(true);
    expect(context.toString()).toBe('[object Object]');
    expect(String(context)).toBe('[object Object]');
    expect(`${context as unknown as string}`).toBe('[object Object]');
    /* eslint-enable no-prototype-builtins, @typescript-eslint/no-base-to-string, @typescript-eslint/no-unnecessary-template-expression */
    expect(context.valueOf()).toBe(context);
    expect(Object.prototype.isPrototypeOf.call(Object.prototype, context)).toBe(true);
  });

  it('shows only its four fields when inspected, nothing of the task behind it', () => {
    const { context } = task();
    const shown = inspect(context);
    expect(shown).toBe('{ index: 3, batch: 1, attempt: 2, signal: [Getter/Setter] }');
    for (const name of internalNames) expect([name, shown.includes(name)]).toEqual([name, false]);
  });

  it('can be frozen, sealed or made non-extensible without touching its task; its signal still works', () => {
    for (const lock of [Object.freeze, Object.seal, Object.preventExtensions]) {
      const { run, context } = task();
      lock(context);
      // The runner still writes to its task.
      run.subscription = { unsubscribe: () => undefined };
      expect(Object.isExtensible(run)).toBe(true);
      const { signal } = context;
      expect(signal.aborted).toBe(false);
      run.tearDown(() => undefined);
      expect([signal.aborted, context.signal]).toEqual([true, signal]);
    }
  });

  it("holds copies, so that nothing written to it or deleted from it reaches the runner or the task's signal", () => {
    const { run, context } = task();
    const writable = context as unknown as Record<string, unknown>;
    writable.index = 9;
    writable.attempt = 1;
    expect(Reflect.set(writable, 'signal', null)).toBe(true);
    expect(Reflect.deleteProperty(writable, 'signal')).toBe(true);
    expect([run.index, run.batch, run.attempt, run.signal]).toEqual([3, 1, 2, expect.any(AbortSignal)]);
    run.tearDown(() => undefined);
    expect(run.signal.aborted).toBe(true);
  });

  it('keeps a working signal in copies made with spread or Object.assign, even before signal was read', () => {
    const { run, context } = task();
    const copies = [{ ...context }, Object.assign({}, context)];
    expect(copies.map((copy) => copy.signal)).toEqual([context.signal, context.signal]);
    run.tearDown(() => undefined);
    expect(copies.map((copy) => copy.signal.aborted)).toEqual([true, true]);
  });

  it('makes no AbortController until signal is read, and one however often it is read or copied', () => {
    let context: TaskContext | undefined;
    const seen: unknown[] = [];
    expect(
      abortControllersMade(() => {
        context = task().context;
        seen.push(
          context.index,
          context.batch,
          context.attempt,
          Object.keys(context),
          inspect(context),
          Object.prototype.toString.call(context),
        );
        Object.freeze(context);
      }),
    ).toBe(0);
    expect(
      abortControllersMade(() => {
        const read = context!;
        seen.push(read.signal, read.signal, { ...read }.signal, Object.assign({}, read).signal, read.signal);
      }),
    ).toBe(1);
    expect(new Set(seen.slice(6)).size).toBe(1);
  });
});
