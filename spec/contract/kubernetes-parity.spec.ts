// The Kubernetes parity recipe of docs/pacing.md, run against Kubernetes' own cases.
import { catchError, defaultIfEmpty, lastValueFrom, map, of, throwError, timeout, TimeoutError, type ObservableInput } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import { isSlowStartBatchError, slowStart, type TaskFactory } from '../../src/index';
import { loadConformanceCases } from '../support/conformance-cases';

/** Kubernetes' `slowStartBatch(count, initialBatchSize, fn)`: the number of successes and the first error. */
async function kubernetesSlowStartBatch(
  count: number,
  initialBatchSize: number,
  fn: (index: number) => ObservableInput<unknown>,
): Promise<[number, unknown]> {
  const tasks = Array.from({ length: count }, (_, index) => () => fn(index));
  return lastValueFrom(
    slowStart(tasks, { initialBatchSize }).pipe(
      map((result): [number, unknown] => [result.successes, undefined]),
      catchError((error: unknown) =>
        isSlowStartBatchError(error) ? of<[number, unknown]>([error.successes, error.cause]) : throwError(() => error),
      ),
      defaultIfEmpty([0, undefined] as [number, unknown]),
    ),
  );
}

const cases = loadConformanceCases();

describe('the Kubernetes parity recipe', () => {
  it.each(cases.map((testCase) => [testCase.name, testCase] as const))(
    'returns (successes, first error) for %s',
    async (_name, testCase) => {
      let calls = 0;
      const [successes, firstError] = await kubernetesSlowStartBatch(testCase.count, testCase.initialBatchSize, async () => {
        calls++;
        if (calls > testCase.succeedFirst) throw new Error(`call ${calls} over the limit`);
        return calls;
      });
      expect(successes).toBe(testCase.expected.successes);
      expect(calls).toBe(testCase.expected.invoked);
      expect(firstError !== undefined).toBe(testCase.expected.errors);
      if (testCase.expected.errors) expect(firstError).toEqual(new Error(`call ${testCase.succeedFirst + 1} over the limit`));
    },
  );
});

describe("docs/pacing.md's timeout-as-success rule", () => {
  it('counts a timed-out task as a success and still fails on other errors', () => {
    new TestScheduler((actual, expected) => expect(actual).toEqual(expected)).run(({ cold, expectObservable }) => {
      const call =
        (response: ReturnType<typeof cold<string>>): TaskFactory<string | undefined> =>
        () =>
          response.pipe(
            timeout(5),
            catchError((error: unknown) => (error instanceof TimeoutError ? of(undefined) : throwError(() => error))),
          );
      const tasks = [call(cold('--a|')), call(cold('----------b|')), call(cold('-c|'))];
      expectObservable(slowStart(tasks).pipe(map((result) => result.values))).toBe('---x----(y|)', { x: ['a'], y: [undefined, 'c'] });
      const failing = [call(cold('-#', undefined, new Error('403')))];
      expectObservable(slowStart(failing).pipe(map((result) => result.values))).toBe('-#', undefined, expect.any(Error));
    });
  });
});
