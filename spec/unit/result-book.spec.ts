// The result book alone: which tasks each result holds, when a result is ready, and what a failed
// run reports, driven the way the runner drives it.
import { ResultBook } from '../../src/result-book';

describe('ResultBook', () => {
  it('groups consecutive tasks into results, each starting where the last ended', () => {
    const book = new ResultBook<string>();
    const first = book.join(true, 1);
    book.closeLast();
    const second = book.join(true, 2);
    expect(book.join(false, 2)).toBe(second);
    const third = book.join(true, 4);
    expect([first.index, first.startIndex, first.joined]).toEqual([0, 0, 1]);
    expect([second.index, second.startIndex, second.joined]).toEqual([1, 1, 2]);
    expect([third.index, third.startIndex, third.joined]).toEqual([2, 3, 1]);
  });

  it('emits a result once it is closed and all its tasks have succeeded, with one value per task', () => {
    const book = new ResultBook<string>();
    const group = book.join(true, 4);
    book.join(false, 4);
    book.fulfil(group, 1, 'b');
    book.fulfil(group, 0, 'a');
    // Room for 4, but no one has said that no more will join.
    expect(book.takeReady()).toBeUndefined();
    book.closeLast();
    expect(book.takeReady()).toEqual({ batch: 0, startIndex: 0, size: 2, values: ['a', 'b'], successes: 2, itemFailures: [] });
    expect(book.takeReady()).toBeUndefined();
  });

  it('closes only the last result, and a closed result stays as it is', () => {
    const book = new ResultBook<number>();
    book.closeLast();
    const group = book.join(true, 3);
    book.closeLast();
    book.closeLast();
    expect([group.size, group.values.length]).toEqual([1, 1]);
  });

  it('emits results in order: a later one waits for an earlier one', () => {
    const book = new ResultBook<number>();
    const first = book.join(true, 1);
    book.closeLast();
    const second = book.join(true, 1);
    book.closeLast();
    book.fulfil(second, 0, 2);
    expect(book.takeReady()).toBeUndefined();
    book.fulfil(first, 0, 1);
    expect(book.takeReady()).toEqual({ batch: 0, startIndex: 0, size: 1, values: [1], successes: 1, itemFailures: [] });
    expect(book.takeReady()).toEqual({ batch: 1, startIndex: 1, size: 1, values: [2], successes: 2, itemFailures: [] });
  });

  it('counts a rejected task as settled, never emits its result, and reports every task not emitted', () => {
    const book = new ResultBook<string>();
    const first = book.join(true, 1);
    book.closeLast();
    book.fulfil(first, 0, 'a');
    expect(book.takeReady()).toBeDefined();
    const group = book.join(true, 2);
    book.join(false, 2);
    book.closeLast();
    const cause = new Error('task 2 failed');
    const factory = () => 'c';
    book.reject(group, 1, cause, factory);
    expect([book.failed, group.settled]).toEqual([true, 1]);
    book.fulfil(group, 0, 'b');
    expect(group.settled).toBe(group.size);
    expect(book.takeReady()).toBeUndefined();
    expect(book.failure()).toEqual({
      batch: 1,
      startIndex: 1,
      size: 2,
      successes: 2,
      results: [
        { index: 1, status: 'fulfilled', value: 'b' },
        { index: 2, status: 'rejected', reason: cause },
      ],
      cause,
      rejected: [factory],
    });
  });

  it('lists the failed items of a result in source order, by their source index, and runs them again first when the run fails', () => {
    const book = new ResultBook<string>();
    const first = book.join(true, 1);
    book.closeLast();
    book.fulfil(first, 0, 'a');
    expect(book.takeReady()?.itemFailures).toEqual([]);
    const group = book.join(true, 3);
    book.join(false, 3);
    book.join(false, 3);
    book.closeLast();
    const [late, early] = [() => 'd', () => 'b'];
    // The third task fails first, then the first; the second succeeds.
    book.failItem(group, 2, 'bad d', late);
    book.failItem(group, 0, 'bad b', early);
    book.fulfil(group, 1, 'c');
    const result = book.takeReady();
    expect(result?.itemFailures).toEqual([
      { index: 1, reason: 'bad b' },
      { index: 3, reason: 'bad d' },
    ]);
    expect([result?.values, result?.successes]).toEqual([[undefined, 'c', undefined], 2]);
    // A later task fails the run: the failed items come first among the tasks to run again.
    const last = book.join(true, 1);
    book.closeLast();
    const fatal = () => 'e';
    book.reject(last, 0, 'down', fatal);
    expect(book.failure().rejected).toEqual([early, late, fatal]);
    expect(book.unsucceeded().map((task) => task.index)).toEqual([1, 3, 4]);
  });

  it('gives every result without a failed item the one frozen empty list', () => {
    const book = new ResultBook<number>();
    for (const value of [1, 2]) {
      const group = book.join(true, 1);
      book.closeLast();
      book.fulfil(group, 0, value);
    }
    const [first, second] = [book.takeReady(), book.takeReady()];
    expect(first?.itemFailures).toBe(second?.itemFailures);
    expect(Object.isFrozen(first?.itemFailures)).toBe(true);
  });
});
