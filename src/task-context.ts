import type { TaskContext } from './types.js';

/** What a context is made from: the task's index, batch and attempt, and its signal made on first read. */
export interface ContextSource {
  readonly index: number;
  readonly batch: number;
  readonly attempt: number;
  readonly signal: AbortSignal;
}

/**
 * A context's link to its task: a symbol of this module's own, on a property that is not enumerable,
 * so that `{ ...context }`, `Object.assign`, `Object.keys` and `console.log` leave it out.
 */
const task = Symbol();

/**
 * The `signal` of every context: one getter for all of them, reading the task's own `signal`, which
 * makes its `AbortController` on first read (most tasks never read it, and one per task would cost
 * more than the rest of a task's bookkeeping). It is an own, enumerable property, so a copy made by
 * `{ ...context }` or `Object.assign({}, context)` reads it and keeps the task's signal. A getter made
 * for each context instead gives each one a shape of its own, which cost twice as much per task.
 */
const signal = {
  get(this: { readonly [task]: ContextSource }): AbortSignal {
    return this[task].signal;
  },
  enumerable: true,
};

/**
 * Makes a task's context: a plain, frozen `{ index, batch, attempt, signal }` whose prototype is
 * `Object.prototype`. Frozen, it is read-only as its type says, and a factory that freezes or seals it
 * again changes nothing; `signal` still reads the task, which is not the context and stays writable.
 */
export function createContext(source: ContextSource): TaskContext {
  const context = { index: source.index, batch: source.batch, attempt: source.attempt };
  // The link before the getter: contexts then share a shape that starts with this module's own
  // symbol, which no other code's `signal` getter on an `{ index, batch, attempt }` can share and spoil.
  Object.defineProperty(context, task, { value: source });
  Object.defineProperty(context, 'signal', signal);
  return Object.freeze(context) as TaskContext;
}
