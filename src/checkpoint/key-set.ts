// A set of task keys that writes itself as compact plain data: runs of consecutive integers as
// `[first, last]` pairs, so that a million keys mostly in order take a few kilobytes.
import type { TaskKey } from '../events.js';

/**
 * Keys as a checkpoint lists them: an integer run `[first, last]` (both included), or one key. Numbers
 * in runs are safe integers; a string, or a number that is not an integer, is listed alone.
 */
export type KeyList = readonly (TaskKey | readonly [number, number])[];

export class KeySet {
  /** The integer keys, as sorted runs that neither overlap nor touch: `starts[i]` to `ends[i]`. */
  private readonly starts: number[] = [];
  private readonly ends: number[] = [];
  /** The other keys: strings, and numbers that are not safe integers. */
  private readonly others = new Set<TaskKey>();

  /**
   * The keys a checkpoint listed, as `readCheckpoint` has checked them: integer runs in order, apart
   * from one another, so that each is taken whole, whatever its length.
   */
  static from(list: KeyList): KeySet {
    const set = new KeySet();
    for (const entry of list) {
      if (typeof entry !== 'object') set.add(entry);
      else {
        set.starts.push(entry[0]);
        set.ends.push(entry[1]);
      }
    }
    return set;
  }

  /** How many keys it holds. */
  get size(): number {
    let size = this.others.size;
    for (let run = 0; run < this.starts.length; run++) size += this.ends[run] - this.starts[run] + 1;
    return size;
  }

  has(key: TaskKey): boolean {
    if (!isRunnable(key)) return this.others.has(key);
    const run = this.runAtOrBefore(key);
    return run >= 0 && key <= this.ends[run];
  }

  /** Adds `key`; returns whether it was not there. */
  add(key: TaskKey): boolean {
    if (!isRunnable(key)) return this.others.size !== this.others.add(key).size;
    const { starts, ends } = this;
    const run = this.runAtOrBefore(key);
    if (run >= 0 && key <= ends[run]) return false;
    const joinsBefore = run >= 0 && ends[run] === key - 1;
    const joinsAfter = run + 1 < starts.length && starts[run + 1] === key + 1;
    if (joinsBefore && joinsAfter) {
      ends[run] = ends[run + 1];
      starts.splice(run + 1, 1);
      ends.splice(run + 1, 1);
    } else if (joinsBefore) {
      ends[run] = key;
    } else if (joinsAfter) {
      starts[run + 1] = key;
    } else {
      starts.splice(run + 1, 0, key);
      ends.splice(run + 1, 0, key);
    }
    return true;
  }

  /** Removes `key`; returns whether it was there. */
  delete(key: TaskKey): boolean {
    if (!isRunnable(key)) return this.others.delete(key);
    const { starts, ends } = this;
    const run = this.runAtOrBefore(key);
    if (run < 0 || key > ends[run]) return false;
    const start = starts[run];
    const end = ends[run];
    if (start === end) {
      starts.splice(run, 1);
      ends.splice(run, 1);
    } else if (key === start) {
      starts[run] = key + 1;
    } else if (key === end) {
      ends[run] = key - 1;
    } else {
      ends[run] = key - 1;
      starts.splice(run + 1, 0, key + 1);
      ends.splice(run + 1, 0, end);
    }
    return true;
  }

  /** The keys as a checkpoint lists them: the integer runs in order, then the other keys as they came. */
  toList(): KeyList {
    const list: (TaskKey | readonly [number, number])[] = [];
    for (let run = 0; run < this.starts.length; run++) {
      const start = this.starts[run];
      const end = this.ends[run];
      list.push(start === end ? start : [start, end]);
    }
    for (const key of this.others) list.push(key);
    return list;
  }

  /**
   * The last run that starts at or before `key`, or -1. Keys mostly come in order, so the last run is
   * tried first; otherwise a binary search.
   */
  private runAtOrBefore(key: number): number {
    const { starts } = this;
    const last = starts.length - 1;
    if (last < 0 || starts[last] <= key) return last;
    let low = 0;
    let high = last - 1;
    while (low <= high) {
      const middle = (low + high) >>> 1;
      if (starts[middle] <= key) low = middle + 1;
      else high = middle - 1;
    }
    return high;
  }
}

/** Whether `key` can be part of a run: a safe integer, `-0` written as `0`. */
function isRunnable(key: TaskKey): key is number {
  return typeof key === 'number' && Number.isSafeInteger(key);
}
