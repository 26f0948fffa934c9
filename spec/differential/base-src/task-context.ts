import type { TaskContext } from './types.js';

/** What a context view reads from: the task's index and batch, and its signal made on first read. */
export interface ContextSource {
  readonly index: number;
  readonly batch: number;
  readonly attempt: number;
  readonly signal: AbortSignal;
}

/** The properties a factory sees on its context. */
const contextKeys: ReadonlyArray<string | symbol> = ['index', 'batch', 'attempt', 'signal'];

/**
 * Shows a task as its context, a plain read-only `{ index, batch, attempt, signal }`. A task makes its signal's
 * `AbortController` on first read of `signal` (most tasks never read it, and one per task would cost
 * more than the rest of a task's bookkeeping), so `signal` is a getter; a getter on a prototype is not
 * copied by `{ ...context }` or `Object.assign({}, context)`, and a copy passed on to `fetch` could
 * then not be cancelled. This view reports them as own properties, so every copy reads them, and
 * hides the rest of the task. A getter defined on each context cost twice as much per task.
 */
export const contextView: ProxyHandler<ContextSource> = {
  get: (task, key) => (contextKeys.includes(key) ? task[key as keyof TaskContext] : undefined),
  has: (_, key) => contextKeys.includes(key),
  // Stryker disable next-line MethodExpression: the engine copies the list a trap returns before anyone sees it
  ownKeys: () => contextKeys.slice(),
  getOwnPropertyDescriptor: (task, key) =>
    contextKeys.includes(key)
      ? { value: task[key as keyof TaskContext], enumerable: true, configurable: true, writable: false }
      : undefined,
  // The context is read-only, as its type says.
  // Stryker disable ArrowFunction: a trap that answers undefined refuses the write as false does
  set: () => false,
  defineProperty: () => false,
  deleteProperty: () => false,
  // Stryker restore ArrowFunction
};
