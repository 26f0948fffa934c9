// The async-iterable feed's bookkeeping: how many factories it pulls, and what happens when closing it fails.
import { lastValueFrom, map, of, take, toArray } from 'rxjs';
import { slowStart, type TaskFactory } from '../src/index';
import { errorsReportedLater } from './support/helpers';

describe('slowStart() over an async iterable', () => {
  it('has pulled exactly the factories of the batches that ran each time a batch is emitted', async () => {
    let pulled = 0;
    async function* factories() {
      for (let index = 0; index < 100; index++) {
        pulled++;
        await Promise.resolve();
        yield (() => of(index)) as TaskFactory<number>;
      }
    }
    const pulledAtEachResult = await lastValueFrom(
      slowStart(factories()).pipe(
        map(() => pulled),
        toArray(),
      ),
    );
    expect(pulledAtEachResult).toEqual([1, 3, 7, 15, 31, 63, 100]);
  });

  it('reports a rejection of return() as an uncaught error instead of losing it', async () => {
    const closingFailure = new Error('could not close');
    const iterable: AsyncIterable<TaskFactory<number>> = {
      [Symbol.asyncIterator]: () => ({
        next: () => Promise.resolve({ done: false, value: () => of(1) }),
        return: () => Promise.reject(closingFailure),
      }),
    };
    const reported = await errorsReportedLater(async () => {
      const results = await lastValueFrom(slowStart(iterable).pipe(take(2), toArray()));
      expect(results.map((result) => result.size)).toEqual([1, 2]);
    });
    expect(reported).toEqual([closingFailure]);
  });
});
