import type { TaskContext } from './types.js';

/**
 * The context handed to a factory. Its `AbortController` is made on first read of `signal`: most
 * tasks never read it, and making one per task would cost more than the rest of a task's bookkeeping.
 */
export class LazyTaskContext {
  /** Made on first read of `signal`. */
  private controller: AbortController | undefined;
  /** Set once the task is torn down, so a signal read later is born aborted. */
  private tornDown = false;

  constructor(
    readonly index: number,
    readonly batch: number,
  ) {}

  get signal(): AbortSignal {
    if (this.controller === undefined) {
      this.controller = new AbortController();
      if (this.tornDown) this.controller.abort();
    }
    return this.controller.signal;
  }

  abort(): void {
    this.tornDown = true;
    this.controller?.abort();
  }
}

/** The properties a factory sees on its context. */
const contextKeys: ReadonlyArray<string | symbol> = ['index', 'batch', 'signal'];

/**
 * Shows a {@link LazyTaskContext} as a plain `{ index, batch, signal }`: `signal` lives in a getter on
 * the prototype, which `{ ...context }` and `Object.assign({}, context)` would not copy, and a copy
 * passed on to `fetch` could then not be cancelled. Reporting it as an own property makes every copy
 * read it; a getter defined on each context instead cost twice as much per task.
 */
export const contextView: ProxyHandler<LazyTaskContext> = {
  // Read on the context itself, so that the `signal` getter keeps its state there.
  get: (context, key) => context[key as keyof TaskContext],
  ownKeys: () => contextKeys.slice(),
  getOwnPropertyDescriptor: (context, key) =>
    contextKeys.includes(key)
      ? { value: context[key as keyof TaskContext], enumerable: true, configurable: true, writable: false }
      : undefined,
  // The context is read-only, as its type says.
  set: () => false,
  defineProperty: () => false,
  deleteProperty: () => false,
};
