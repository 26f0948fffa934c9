// Kubernetes' own test cases for slowStartBatch, read from the vendored fixture (spec/fixtures/).
import { from, Observable, of, throwError } from 'rxjs';
import { isSlowStartBatchError, slowStart, slowStartBatch, type BatchResult, type TaskFactory } from '../../src/index';
import { loadConformanceCases, type ConformanceCase } from '../support/conformance-cases';

const cases = loadConformanceCases();

/** Runs a case's tasks, recording what a test needs to compare with Kubernetes. */
function runCase(testCase: ConformanceCase, run: (tasks: TaskFactory<number>[]) => Observable<BatchResult<number>>) {
  let invoked = 0;
  const tasks = Array.from({ length: testCase.count }, (): TaskFactory<number> => () => {
    invoked++;
    return invoked <= testCase.succeedFirst ? of(invoked) : throwError(() => new Error(`call ${invoked} over the limit`));
  });
  const emitted: BatchResult<number>[] = [];
  let error: unknown;
  let completed = false;
  run(tasks).subscribe({ next: (result) => emitted.push(result), error: (e: unknown) => (error = e), complete: () => (completed = true) });
  return { invoked, emitted, error, completed };
}

function ranBatchSizes(emitted: BatchResult<number>[], error: unknown): number[] {
  const sizes = emitted.map((result) => result.size);
  if (isSlowStartBatchError(error)) sizes.push(error.size);
  return sizes;
}

describe('Kubernetes conformance (fixtures/kubernetes-slow-start.json)', () => {
  it('has cases to run', () => {
    expect(cases.length).toBeGreaterThan(0);
  });

  describe.each(cases.map((testCase) => [testCase.name, testCase] as const))('%s', (_name, testCase) => {
    const { expected } = testCase;

    it('slowStart() over an array matches', () => {
      const { invoked, emitted, error, completed } = runCase(testCase, (tasks) =>
        slowStart(tasks, { initialBatchSize: testCase.initialBatchSize }),
      );
      expect(ranBatchSizes(emitted, error)).toEqual(expected.batchSizes);
      expect(invoked).toBe(expected.invoked);
      expect(completed).toBe(!expected.errors);
      expect(error !== undefined).toBe(expected.errors);
      const successes = isSlowStartBatchError(error) ? error.successes : (emitted.at(-1)?.successes ?? 0);
      expect(successes).toBe(expected.successes);
      expect(isSlowStartBatchError(error) ? error.skipped : 0).toBe(expected.skipped);
      if (isSlowStartBatchError(error)) {
        expect(error.remaining).toHaveLength(expected.skipped);
      }
    });

    it('from(tasks).pipe(slowStartBatch()) matches, with skipped counting only factories received', () => {
      const { invoked, emitted, error, completed } = runCase(testCase, (tasks) =>
        from(tasks).pipe(slowStartBatch({ initialBatchSize: testCase.initialBatchSize })),
      );
      expect(ranBatchSizes(emitted, error)).toEqual(expected.batchSizes);
      expect(invoked).toBe(expected.invoked);
      expect(completed).toBe(!expected.errors);
      const successes = isSlowStartBatchError(error) ? error.successes : (emitted.at(-1)?.successes ?? 0);
      expect(successes).toBe(expected.successes);
      if (isSlowStartBatchError(error)) {
        // A synchronous source with synchronous tasks fails as the batch's last factory arrives.
        expect(error.skipped).toBe(0);
        expect(error.remaining).toEqual([]);
      } else {
        expect(error).toBeUndefined();
      }
    });
  });
});
