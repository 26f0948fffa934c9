import type { TaskContext } from './types.js';

/** What a context is made from: the task's index, batch and attempt, and its signal made on first read. */
export interface ContextSource {
  readonly index: number;
  readonly batch: number;
  readonly attempt: number;
  readonly signal: AbortSignal;
}

/** A base class whose constructor returns the object it is given, so that a subclass adds its fields to it. */
// eslint-disable-next-line @typescript-eslint/no-extraneous-class -- the constructor's return is the point
class Extend {
  constructor(target: object) {
    return target;
  }
}

/**
 * A context's link to its task: a private field that `ContextLink`'s constructor adds to the context
 * (through `Extend`), not a property. `{ ...context }`, `Object.assign`, `Reflect.ownKeys` and
 * `console.log` cannot see it, and adding it costs what a plain property costs. A symbol-keyed property
 * hidden with `Object.defineProperty` cost as much again as the rest of the context.
 */
class ContextLink extends Extend {
  readonly #source: ContextSource;

  private constructor(context: object, source: ContextSource) {
    super(context);
    this.#source = source;
  }

  static link(context: object, source: ContextSource): void {
    new ContextLink(context, source);
  }

  /** The signal of the task linked to `context`. */
  static signal(context: object): AbortSignal {
    return (context as ContextLink).#source.signal;
  }
}

/**
 * The `signal` of every context: one getter for all of them, reading the task's own `signal`, which
 * makes its `AbortController` on first read (most tasks never read it, and one per task would cost
 * more than the rest of a task's bookkeeping). It is an own, enumerable property, so a copy made by
 * `{ ...context }` or `Object.assign({}, context)` reads it and keeps the task's signal. A getter made
 * for each context instead gives each one a shape of its own, which cost twice as much per task.
 */
const signal = {
  get(this: object): AbortSignal {
    return ContextLink.signal(this);
  },
  enumerable: true,
};

/**
 * Makes a task's context: a plain `{ index, batch, attempt, signal }` whose prototype is
 * `Object.prototype`. It holds copies: what a factory writes to it, or a freeze or a seal, reaches
 * nothing of the runner's, and `signal` keeps reading the task.
 */
export function createContext(source: ContextSource): TaskContext {
  const context = { index: source.index, batch: source.batch, attempt: source.attempt };
  ContextLink.link(context, source);
  Object.defineProperty(context, 'signal', signal);
  return context as TaskContext;
}
