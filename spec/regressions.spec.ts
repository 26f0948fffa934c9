/**
 * Bugs the generated scenarios of properties.spec.ts found, each kept as one plain example.
 */
import { from, of, take } from 'rxjs';
import { slowStart, slowStartBatch, type TaskFactory } from '../src/index.js';

describe('regressions found by the property tests', () => {
  // §7: "also when the consumer unsubscribes synchronously inside its next handler". The teardown was
  // only registered once `subscribe` returned, so a synchronous source kept feeding batches after it.
  const recordingFactories = (invoked: number[]): TaskFactory<number>[] =>
    [0, 1, 2, 3].map((i) => () => {
      invoked.push(i);
      return of(i);
    });

  it('slowStartBatch invokes nothing more when the consumer unsubscribes inside next during a synchronous source', () => {
    const invoked: number[] = [];
    const results: number[] = [];
    from(recordingFactories(invoked))
      .pipe(slowStartBatch(), take(1))
      .subscribe((result) => results.push(result.batch));
    expect(results).toEqual([0]);
    expect(invoked).toEqual([0]);
  });

  it('slowStart invokes nothing more when the consumer unsubscribes inside next over an array', () => {
    const invoked: number[] = [];
    slowStart(recordingFactories(invoked)).pipe(take(1)).subscribe();
    expect(invoked).toEqual([0]);
  });
});
