import { catchError, config, map, of, type Observable, type OperatorFunction } from 'rxjs';
import { isSlowStartBatchError, type BatchResult } from '../../src/index';

/** A `BatchResult` literal, for readable expectations. */
export function batch<T>(index: number, startIndex: number, values: T[], successes: number): BatchResult<T> {
  return { batch: index, startIndex, size: values.length, values, successes, itemFailures: [] };
}

/** The fields of a SlowStartBatchError worth comparing, as a plain object a marble can hold. */
export function errorSummary(error: unknown) {
  if (!isSlowStartBatchError(error)) return { notASlowStartBatchError: error };
  const summary: Record<string, unknown> = {
    name: error.name,
    message: error.message,
    batch: error.batch,
    startIndex: error.startIndex,
    size: error.size,
    successes: error.successes,
    results: error.results,
    cause: error.cause,
    skipped: error.skipped,
    remaining: error.remaining,
  };
  if ('sourceError' in error) summary.sourceError = error.sourceError;
  return summary;
}

/** Turns the stream's error into a last value, so that marble diagrams can show its fields. */
export function summarizeError<T>(): OperatorFunction<T, T | ReturnType<typeof errorSummary>> {
  return (source: Observable<T>) => source.pipe(catchError((error: unknown) => of(error).pipe(map(errorSummary))));
}

/**
 * Runs `body` with `setTimeout` replaced by one that runs its callback at once and collects what it
 * throws: how this package (like RxJS) reports an error that has no subscriber to go to.
 */
export async function errorsReportedLater(body: () => Promise<void>): Promise<unknown[]> {
  const reported: unknown[] = [];
  // No handler, as RxJS has by default: the error is thrown.
  const handler = config.onUnhandledError;
  config.onUnhandledError = null;
  const setTimeoutSpy = jest.spyOn(globalThis, 'setTimeout').mockImplementation(((callback: () => void) => {
    try {
      callback();
    } catch (error) {
      reported.push(error);
    }
    return 0;
  }) as unknown as typeof setTimeout);
  try {
    await body();
    // Let promise callbacks still queued run while the replacement is in place.
    for (let turn = 0; turn < 5; turn++) await Promise.resolve();
  } finally {
    setTimeoutSpy.mockRestore();
    config.onUnhandledError = handler;
  }
  return reported;
}

/**
 * Counts the `AbortController`s made while `body` runs: `globalThis.AbortController` is replaced by a
 * spy that makes real ones, so that the code under test works as it would.
 */
export function abortControllersMade(body: () => void): number {
  const Original = globalThis.AbortController;
  const spy = jest.spyOn(globalThis, 'AbortController').mockImplementation(() => new Original());
  try {
    body();
    return spy.mock.calls.length;
  } finally {
    spy.mockRestore();
  }
}
