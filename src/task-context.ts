import type { TaskContext } from './types.js';

/** What a context is made from: the task's index, batch and attempt, and its signal made on first read. */
export interface ContextSource {
  readonly index: number;
  readonly batch: number;
  readonly attempt: number;
  readonly signal: AbortSignal;
}

/** Makes `signal` a writable data property of `target` holding `value`; false if `target` cannot have it so. */
function redefine(target: object, value: unknown): boolean {
  return Reflect.defineProperty(target, 'signal', { value, writable: true, enumerable: true, configurable: true });
}

/**
 * Makes a task's context: a plain `{ index, batch, attempt, signal }` whose prototype is
 * `Object.prototype`. It holds copies: what a factory writes to it, or a freeze or a seal, reaches
 * nothing of the runner's.
 *
 * `signal` is an own, enumerable accessor, so that a copy made by `{ ...context }` or `Object.assign`
 * reads it and keeps the task's signal, and so that the task's `AbortController` is made on first read
 * (most tasks never read it, and one per task would cost more than the rest of a task's bookkeeping).
 * Its getter is this context's own, a closure over the task: it reads the task whatever `this` it is
 * called with, so that the context can be read through a `Proxy` (a reactive store's), as the prototype
 * of an `Object.create` child or by `Reflect.get` with another receiver, as an ordinary object can. One
 * getter shared by every context, finding the task from `this`, threw for every receiver but the
 * context itself; it cost less, as an accessor of each context's own gives each a shape of its own
 * (`npx tsx bench/context-cost.mts`).
 *
 * An assignment does what it does to an ordinary data property: `signal` becomes a writable data
 * property of the object written to, holding the value (through a `Proxy`, of its target; on an
 * `Object.create` child, of the child, the context keeping the task's). A sealed context cannot turn
 * its accessor into a data property, so it keeps the value written instead. A frozen one refuses the
 * write with a `TypeError`, as a frozen object does in strict code (a setter cannot tell strict code
 * from sloppy, where the write would be ignored), and so does a non-extensible object that inherits
 * `signal` from a context.
 */
export function createContext(source: ContextSource): TaskContext {
  /** What was written to a sealed context's `signal`, which it cannot redefine. */
  let written: { readonly value: unknown } | undefined;
  return {
    index: source.index,
    batch: source.batch,
    attempt: source.attempt,
    get signal(): AbortSignal {
      return written === undefined ? source.signal : (written.value as AbortSignal);
    },
    set signal(value: unknown) {
      if (redefine(this, value)) return;
      // Not frozen and holding `signal` itself: this context, sealed, or a Proxy of it. (Capturing the
      // context to compare with `this` made every context cost three times as much.)
      if (Object.isFrozen(this) || !Object.hasOwn(this, 'signal')) {
        throw new TypeError("Cannot assign to 'signal': the object is frozen, or not extensible");
      }
      written = { value };
    },
  };
}
