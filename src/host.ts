// What the runner needs from the reactive library it runs on, and from a source of factories. The
// RxJS adapter (rxjs-adapter.ts) and the pull-based feeds (pull-feeds.ts) supply them.
import type { BatchResult } from './types.js';

/** Something that can be cancelled: a task's subscription, a timer. */
export interface Cancellable {
  unsubscribe(): void;
}

/** Receives the notifications of one task. */
export interface TaskObserver {
  next(value: unknown): void;
  error(reason: unknown): void;
  complete(): void;
}

/** What the runner needs from the reactive library it runs on. */
export interface RunnerHost<T> {
  /** Subscribes `observer` to what a factory returned; throws if that is not an `ObservableInput`. */
  subscribeTask(input: unknown, observer: TaskObserver): Cancellable;
  /** The clock `flushAfter` is measured on. */
  now(): number;
  /** Runs `action` after `delay` milliseconds, unless cancelled. */
  schedule(action: () => void, delay: number): Cancellable;
  emit(result: BatchResult<T>): void;
  error(error: unknown): void;
  complete(): void;
  /** Reports an error that has nowhere to go, such as one thrown by a teardown (RxJS's `config.onUnhandledError`). */
  reportUnhandled(error: unknown): void;
}

/** Where a feed delivers factories. */
export interface FactorySink {
  push(factory: unknown): void;
  end(): void;
  fail(error: unknown): void;
  /** Takes an error that has nowhere to go, such as one thrown by an iterator's `return()`. */
  reportUnhandled(error: unknown): void;
}

/** A source of factories, push-based (an observable) or pull-based (an array or iterator). */
export interface FactoryFeed {
  /** Starts delivering to the sink. */
  start(): void;
  /**
   * Asks a pull-based feed to have `count` more factories on their way (replacing any earlier
   * request); push-based feeds deliver what they have regardless, and say so with `pushes`.
   */
  request(count: number): void;
  /** How many factories the source holds, when it says before it is read (an array); `undefined` otherwise. */
  readonly total?: number;
  /** Set on a push-based feed: `request` does nothing, so the runner need not work out what to ask. */
  readonly pushes?: boolean;
  /**
   * Stops delivering, waits for a delivery under way (an async iterator's pull), then releases the
   * source and calls `done` with the factories it held or was pulling, so that none is lost, and with
   * the source's error if that pull failed. A later `stop()` cancels the wait.
   */
  drain(done: (undelivered: unknown[], failure?: { error: unknown }) => void): void;
  /** Stops delivering and releases the source at once. Safe to call more than once. */
  stop(): void;
  /**
   * The factories the feed knows of and has not delivered, without pulling any: an array's unread
   * tail. Read when the subscriber leaves, for the run's end to report; a feed that cannot tell has none.
   */
  unread?(): unknown[];
}
