/**
 * What a factory is told about its task (src/task-context.ts), alone and as a task makes it: an
 * ordinary object that shows its six fields and nothing of the task, can be copied without
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
    const context = createContext(source, 3, false);
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
    'k3',
    false,
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

describe("a task's context", () => {
  it('is an ordinary object with exactly index, batch, attempt, key, inDoubt and signal as its own enumerable properties', () => {
    const { context } = task();
    expect(Object.getPrototypeOf(context)).toBe(Object.prototype);
    expect(Object.keys(context)).toEqual(['index', 'batch', 'attempt', 'key', 'inDoubt', 'signal']);
    expect(Object.getOwnPropertyNames(context)).toEqual(['index', 'batch', 'attempt', 'key', 'inDoubt', 'signal']);
    // What links it to its task is not shown: no enumerable symbol, nothing a copy would carry.
    expect(Object.getOwnPropertySymbols(context).filter((key) => Object.prototype.propertyIsEnumerable.call(context, key))).toEqual([]);
    expect([context.index, context.batch, context.attempt, context.key, context.inDoubt]).toEqual([3, 1, 2, 'k3', false]);
    expect(context.signal).toBeInstanceOf(AbortSignal);
  });

  it('holds its link to its task fixed: a program that finds its symbol can neither rewrite nor delete it', () => {
    const { context, run } = task();
    const [link] = Object.getOwnPropertySymbols(context);
    expect(Object.getOwnPropertyDescriptor(context, link)).toEqual({ value: run, writable: false, enumerable: false, configurable: false });
    expect([Reflect.set(context, link, {}), Reflect.deleteProperty(context, link)]).toEqual([false, false]);
    expect(context.signal).toBe(run.signal);
    expect(context.constructor).toBe(Object);
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

  it('shows only its six fields when inspected, nothing of the task behind it', () => {
    const { context } = task();
    const shown = inspect(context);
    expect(shown).toBe("{\n  index: 3,\n  batch: 1,\n  attempt: 2,\n  key: 'k3',\n  inDoubt: false,\n  signal: [Getter/Setter]\n}");
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

  it('holds copies, so that nothing written to it reaches the runner or the signal', () => {
    const { run, context } = task();
    const writable = context as unknown as Record<string, unknown>;
    writable.index = 9;
    writable.attempt = 1;
    writable.signal = null;
    expect([run.index, run.batch, run.attempt, context.signal]).toEqual([3, 1, 2, null]);
    expect(run.signal).toBeInstanceOf(AbortSignal);
  });

  it('takes an assignment to signal as an ordinary object does, and a delete too', () => {
    const replacement = new AbortController().signal;
    const { context } = task();
    const write = (target: object, value: unknown): void => {
      'use strict';
      (target as Record<string, unknown>).signal = value;
    };
    write(context, replacement);
    expect(Object.getOwnPropertyDescriptor(context, 'signal')).toEqual({
      value: replacement,
      writable: true,
      enumerable: true,
      configurable: true,
    });
    expect(Reflect.deleteProperty(context, 'signal')).toBe(true);
    expect('signal' in context).toBe(false);
  });

  it('reads and takes writes through a Proxy, as the prototype of a child, and by Reflect.get with either', () => {
    const { run, context } = task();
    const proxy = new Proxy(context, {});
    const child = Object.create(context) as TaskContext;
    expect([proxy.signal, child.signal]).toEqual([run.signal, run.signal]);
    expect([Reflect.get(context, 'signal', proxy), Reflect.get(context, 'signal', child)]).toEqual([run.signal, run.signal]);
    // A store's reactive Proxy forwards with itself as the receiver.
    const store = new Proxy(context, { get: (target, key, receiver) => Reflect.get(target, key, receiver) as unknown });
    expect(store.signal).toBe(run.signal);
    (child as { signal: unknown }).signal = 'child';
    expect([child.signal, context.signal]).toEqual(['child', run.signal]);
    (proxy as { signal: unknown }).signal = 'through the proxy';
    expect([Object.getOwnPropertyDescriptor(context, 'signal')?.value, proxy.signal]).toEqual(['through the proxy', 'through the proxy']);
  });

  it('refuses, with a TypeError naming it, a read of signal with a receiver unrelated to the context', () => {
    const { context } = task();
    expect(() => Reflect.get(context, 'signal', {})).toThrow(
      new TypeError("A task context's signal was read with a receiver that is not the context, a Proxy of it or an object made from it"),
    );
  });

  it('keeps what is written to a sealed context; refuses a frozen one, or a non-extensible child, as strict code does', () => {
    const sealed = task();
    Object.seal(sealed.context);
    (sealed.context as { signal: unknown }).signal = 'kept';
    expect([sealed.context.signal, new Proxy(sealed.context, {}).signal]).toEqual(['kept', 'kept']);
    expect(sealed.run.signal).toBeInstanceOf(AbortSignal);
    const refusal = new TypeError("Cannot assign to 'signal' of a task context that is frozen or not extensible");
    const frozen = Object.freeze(task().context);
    expect(() => ((frozen as { signal: unknown }).signal = 'no')).toThrow(refusal);
    expect(frozen.signal).toBeInstanceOf(AbortSignal);
    const child = Object.preventExtensions(Object.create(task().context) as TaskContext);
    expect(() => ((child as { signal: unknown }).signal = 'no')).toThrow(refusal);
    expect(child.signal).toBeInstanceOf(AbortSignal);
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
