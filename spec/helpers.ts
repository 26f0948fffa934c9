import { catchError, map, of, type Observable, type OperatorFunction } from 'rxjs';
import { isSlowStartBatchError, type BatchResult } from '../src/index';

/** A `BatchResult` literal, for readable expectations. */
export function batch<T>(index: number, startIndex: number, values: T[], successes: number): BatchResult<T> {
  return { batch: index, startIndex, size: values.length, values, successes };
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
