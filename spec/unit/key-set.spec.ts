// The set of keys a checkpoint writes: runs of consecutive integers, and the other keys one by one.
import { KeySet } from '../../src/checkpoint/key-set';

describe('KeySet', () => {
  it('writes nothing when empty', () => {
    const set = new KeySet();
    expect([set.toList(), set.size, set.has(0), set.delete(0)]).toEqual([[], 0, false, false]);
  });

  it('joins consecutive integers into one run, in any order', () => {
    const set = new KeySet();
    for (const key of [5, 3, 4, 9, 7, 8, 6]) expect(set.add(key)).toBe(true);
    expect(set.toList()).toEqual([[3, 9]]);
    expect([set.add(5), set.size, set.has(3), set.has(9), set.has(2), set.has(10)]).toEqual([false, 7, true, true, false, false]);
  });

  it('keeps runs apart that do not touch, and joins them when the gap fills', () => {
    const set = new KeySet();
    for (const key of [0, 1, 3, 4, 10]) set.add(key);
    expect(set.toList()).toEqual([[0, 1], [3, 4], 10]);
    set.add(2);
    expect(set.toList()).toEqual([[0, 4], 10]);
    set.add(-1);
    set.add(9);
    expect(set.toList()).toEqual([
      [-1, 4],
      [9, 10],
    ]);
  });

  it('splits a run when a key inside it leaves, and shortens it at either end', () => {
    const set = KeySet.from([[0, 9]]);
    expect(set.delete(5)).toBe(true);
    expect(set.toList()).toEqual([
      [0, 4],
      [6, 9],
    ]);
    expect([set.delete(0), set.delete(9), set.delete(5)]).toEqual([true, true, false]);
    expect(set.toList()).toEqual([
      [1, 4],
      [6, 8],
    ]);
    for (const key of [6, 7, 8]) set.delete(key);
    expect(set.toList()).toEqual([[1, 4]]);
  });

  it('lists strings and numbers that are not integers one by one, after the runs', () => {
    const set = new KeySet();
    for (const key of ['b', 1.5, 2, 'a', 3]) set.add(key);
    expect(set.toList()).toEqual([[2, 3], 'b', 1.5, 'a']);
    expect([set.has('a'), set.has('2'), set.add('a'), set.delete('b'), set.delete('b')]).toEqual([true, false, false, true, false]);
    expect(set.size).toBe(4);
  });

  it('reads back what it wrote, as JSON carries it', () => {
    const set = new KeySet();
    for (const key of [7, 1, 2, 'x', 5, 4]) set.add(key);
    const read = KeySet.from(JSON.parse(JSON.stringify(set.toList())) as ReturnType<KeySet['toList']>);
    expect(read.toList()).toEqual(set.toList());
    for (const key of [0, 1, 2, 3, 4, 5, 6, 7, 8, 'x', 'y']) expect([key, read.has(key)]).toEqual([key, set.has(key)]);
  });

  it('writes a million keys mostly in order in a few kilobytes', () => {
    const set = new KeySet();
    // In flight out of order: every 1000th key comes late, and 100 never come.
    for (let key = 0; key < 1_000_000; key++) if (key % 1000 !== 0) set.add(key);
    for (let key = 0; key < 1_000_000; key += 1000) if (key % 10_000 !== 0) set.add(key);
    const json = JSON.stringify(set.toList());
    expect(set.size).toBe(1_000_000 - 100);
    expect(json.length).toBeLessThan(4_000);
  });
});
