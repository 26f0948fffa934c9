import type { TaskKey } from './events.js';
import type { TaskContext } from './types.js';

/** What a context is made from: the task's index, batch and attempt, and its signal made on first read. */
export interface ContextSource {
  readonly index: number;
  readonly batch: number;
  readonly attempt: number;
  readonly signal: AbortSignal;
}

/**
 * The key of a context's link to its task: a non-enumerable property, so that `{ ...context }`,
 * `Object.assign`, `Object.keys` and `console.log` do not see it. Being a property, not a private
 * field, it is read through a `Proxy` of the context and by an `Object.create` child, as `signal` is.
 */
const task = Symbol('rxjs-slow-start task');

/** What was assigned to the `signal` of a sealed context, which cannot turn its accessor into a value. */
const assigned = new WeakMap<ContextSource, unknown>();

/** The task behind the object `signal` is read or written on: the context, a `Proxy` of it or a child. */
function taskOf(receiver: object): ContextSource {
  const source = (receiver as { [task]?: ContextSource })[task];
  if (source === undefined) {
    throw new TypeError(
      "A task context's signal was read with a receiver that is not the context, a Proxy of it or an object made from it",
    );
  }
  return source;
}

/**
 * The `signal` of every context: one accessor for all of them, reading the task's own `signal`, which
 * makes its `AbortController` on first read (most tasks never read it, and one per task would cost
 * more than the rest of a task's bookkeeping). It is an own, enumerable property, so a copy made by
 * `{ ...context }` or `Object.assign({}, context)` reads it and keeps the task's signal. A getter made
 * for each context instead, a closure over its task, gave each context a shape of its own and cost
 * four times as much per context (`npx tsx bench/context-cost.mts`).
 *
 * An assignment does what it does to an ordinary object's data property: `signal` becomes a writable
 * data property of the object written to (through a `Proxy`, of its target; on an `Object.create`
 * child, of the child, the context keeping its task's). A sealed context keeps the value it is given
 * in its accessor's stead. A frozen one refuses the write with a `TypeError`, as a frozen object does
 * in strict code (a setter cannot tell strict code from sloppy, where the write would be ignored), and
 * so does a non-extensible object that inherits `signal` from a context.
 */
const signal: PropertyDescriptor = {
  get(this: object): unknown {
    const source = taskOf(this);
    return assigned.has(source) ? assigned.get(source) : source.signal;
  },
  set(this: object, value: unknown): void {
    const defined = Reflect.defineProperty(this, 'signal', {
      value,
      writable: true,
      enumerable: true,
      configurable: true,
    });
    if (defined) return;
    if (Object.isFrozen(this) || !Object.hasOwn(this, 'signal')) {
      throw new TypeError("Cannot assign to 'signal' of a task context that is frozen or not extensible");
    }
    assigned.set(taskOf(this), value);
  },
  enumerable: true,
  configurable: true,
};

/** The link itself: fixed, and hidden from every listing of the context's own enumerable properties. */
const link: PropertyDescriptor = { value: undefined, enumerable: false, writable: false, configurable: false };

/** A context's data fields, written before its link and `signal` are defined on it. */
interface ContextFields {
  index: number;
  batch: number;
  attempt: number;
  key: TaskKey;
  inDoubt: boolean;
}

/**
 * Makes a context's data fields, called with `new` for the room it gives. V8 makes an object literal
 * just big enough for the properties written in it, so the link, defined afterwards, went to a second
 * array of its own: 104 bytes a context where it now takes 72, for every task in flight, and one more
 * load for each read of `signal`. An object made by `new` has room to spare, and V8 fits the link in
 * it. Its prototype is `Object.prototype`, so a program finds an ordinary object as before; only a
 * debugger's label for it (`TaskContext { ... }`) tells that a function made it.
 */
const ContextObject = function TaskContext(this: ContextFields, source: ContextSource, key: TaskKey, inDoubt: boolean): void {
  this.index = source.index;
  this.batch = source.batch;
  this.attempt = source.attempt;
  this.key = key;
  this.inDoubt = inDoubt;
} as unknown as new (source: ContextSource, key: TaskKey, inDoubt: boolean) => ContextFields;
ContextObject.prototype = Object.prototype;

/**
 * Makes a task's context, with its `key` and whether it is `inDoubt`: an ordinary
 * `{ index, batch, attempt, key, inDoubt, signal }` whose prototype is
 * `Object.prototype`. It holds copies: what a factory writes to it, or a freeze or a seal, reaches
 * nothing of the runner's, and `signal` keeps reading the task.
 */
export function createContext(source: ContextSource, key: TaskKey, inDoubt: boolean): TaskContext {
  const context = new ContextObject(source, key, inDoubt);
  link.value = source;
  Object.defineProperty(context, task, link);
  link.value = undefined;
  Object.defineProperty(context, 'signal', signal);
  return context as TaskContext;
}
