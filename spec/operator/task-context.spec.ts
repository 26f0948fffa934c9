/** The context a factory is given can be copied without losing what it holds (§1, §11). */
import { NEVER, of } from 'rxjs';
import { slowStart, type TaskContext } from '../../src/index';

describe('a copied TaskContext', () => {
  it.each([
    ['spread', (context: TaskContext): TaskContext => ({ ...context })],
    ['Object.assign', (context: TaskContext): TaskContext => Object.assign({}, context)],
  ])('keeps index, batch and a working signal when %s', (_, copy) => {
    const copies: TaskContext[] = [];
    const subscription = slowStart(
      [
        (context: TaskContext) => {
          copies.push(copy(context));
          return of(0);
        },
        (context: TaskContext) => {
          copies.push(copy(context));
          return NEVER;
        },
      ],
      { initialBatchSize: 2 },
    ).subscribe();
    expect(copies.map(({ index, batch }) => ({ index, batch }))).toEqual([
      { index: 0, batch: 0 },
      { index: 1, batch: 0 },
    ]);
    expect(copies.every((copied) => copied.signal instanceof AbortSignal)).toBe(true);
    expect(copies.map((copied) => copied.signal.aborted)).toEqual([false, false]);
    subscription.unsubscribe();
    // The still-running task's copy aborts with it; the settled task's is left alone.
    expect(copies.map((copied) => copied.signal.aborted)).toEqual([false, true]);
  });

  it('shows only the fields a context has', () => {
    let keys: string[] = [];
    slowStart([
      (context: TaskContext) => {
        keys = Object.keys(context).sort();
        return of(0);
      },
    ]).subscribe();
    expect(keys).toEqual(['attempt', 'batch', 'index', 'signal']);
  });
});
