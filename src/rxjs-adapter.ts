// What the RxJS-free runner needs from RxJS: subscriptions to tasks and sources, the scheduler's clock
// and timers, and the subscriber to notify. Only RxJS's public API is used.
import { asyncScheduler, config, from, Observable, type ObservableInput, type SchedulerLike, type Subscriber } from 'rxjs';
import type { Cancellable, FactoryFeed, FactorySink, RunnerHost, TaskObserver } from './host.js';
import type { ResolvedOptions } from './resolve-options.js';
import { createRunner } from './runner.js';
import type { BatchResult } from './types.js';

/** An observable that runs slow-start batches over the factories of `createFeed`, one run per subscriber. */
export function batchedObservable<T>(createFeed: (sink: FactorySink) => FactoryFeed, options: ResolvedOptions): Observable<BatchResult<T>> {
  return new Observable<BatchResult<T>>((subscriber) => {
    const runner = createRunner(rxjsHost(subscriber, options.scheduler), createFeed, options);
    // Registered before the start: a synchronous source can make the subscriber unsubscribe
    // (say, `take(1)` downstream) before `start` returns, and the run must stop right then.
    subscriber.add(() => runner.stop());
    runner.start();
  });
}

function rxjsHost<T>(subscriber: Subscriber<BatchResult<T>>, scheduler: SchedulerLike = asyncScheduler): RunnerHost<T> {
  return {
    // `from` throws a TypeError for anything that is not an ObservableInput: the task fails with it.
    // An Observable, the most common task, is subscribed to as it is; `from` would return it unchanged.
    subscribeTask: (input, observer) =>
      input instanceof Observable
        ? input.subscribe(observer)
        : input instanceof Promise
          ? followPromise(input, observer)
          : from(input as ObservableInput<unknown>).subscribe(observer),
    now: () => scheduler.now(),
    schedule: (action, delay) => scheduler.schedule(action, delay),
    emit: (result) => subscriber.next(result),
    error: (error) => subscriber.error(error),
    complete: () => subscriber.complete(),
    reportUnhandled: reportUnhandledError,
  };
}

/**
 * Follows a native promise, the most common task (every `async` function returns one), the way `from()`
 * would: the same notifications, one microtask after it settles, and an error thrown back by the
 * observer reported as RxJS reports it. Done directly because `from()` makes an observable, two
 * subscriber objects and a second promise per task, and in a large batch of pending promises the
 * garbage collector spent most of its time copying them (BENCHMARKS.md, "Overhead, promise tasks").
 *
 * A promise cannot be cancelled, so its outcome may arrive after the task was torn down: the runner
 * ignores whatever a task reports once its run has closed.
 */
function followPromise(promise: Promise<unknown>, observer: TaskObserver): Cancellable {
  promise.then(
    (value) => {
      notify(observer, true, value);
    },
    (reason: unknown) => {
      notify(observer, false, reason);
    },
  );
  return uncancellable;
}

const uncancellable: Cancellable = { unsubscribe() {} };

/**
 * Tells `observer` how a promise settled. The runner reacts at once (it may start the next batch and
 * arm a timer on the scheduler), so a failure there, such as a scheduler that throws, comes back here.
 */
function notify(observer: TaskObserver, fulfilled: boolean, outcome: unknown): void {
  try {
    if (fulfilled) {
      observer.next(outcome);
      observer.complete();
    } else {
      observer.error(outcome);
    }
  } catch (error) {
    reportUnhandledError(error);
  }
}

/** What RxJS does with an error that has nowhere to go: `config.onUnhandledError`, or a throw in a timeout. */
export function reportUnhandledError(error: unknown): void {
  setTimeout(() => {
    const { onUnhandledError } = config;
    if (onUnhandledError) onUnhandledError(error);
    else throw error;
  });
}

/** A push-based feed: the source emits factories whenever it likes; they wait in the planner. */
export function observableFeed(source: ObservableInput<unknown>): (sink: FactorySink) => FactoryFeed {
  return (sink) => {
    /**
     * The subscriber the source emits to, held from before the source runs: unsubscribing it closes it,
     * and a synchronous source checks that between emissions, so it stops at once, even while still
     * inside `subscribe`. Handing the source this subscriber itself, rather than an observer, also
     * spares every factory a layer of wrapping.
     */
    let subscriber: Subscriber<unknown> | undefined;
    // The runner never starts a feed it has stopped, so nothing is subscribed to after a stop.
    const stop = () => subscriber?.unsubscribe();
    return {
      start() {
        new Observable<unknown>((held) => {
          subscriber = held;
          from(source).subscribe(held);
        }).subscribe({
          next: (factory) => sink.push(factory),
          error: (error: unknown) => sink.fail(error),
          complete: () => sink.end(),
        });
      },
      pushes: true,
      request() {},
      // A push-based source has nothing on its way that the runner has not been given.
      drain(done) {
        stop();
        done([]);
      },
      // Stopping twice does nothing more: the subscriber is closed already.
      stop,
    };
  };
}
