// What a checkpoint holds, how one read back from a store is checked, and the fingerprint that
// ties it to its source.
import type { TaskKey } from '../events.js';
import { expected } from '../expected.js';
import type { KeyList } from './key-set.js';

/** The version of the checkpoint format this package writes and reads. */
export const CHECKPOINT_VERSION = 1;

/** The pace of a run when its checkpoint was made, with its times on the run's clock (the wall clock by default). */
export interface CheckpointPace {
  /** How many tasks the pace let be in flight: the next batch's size, in batch pacing. */
  readonly limit: number;
  /** Half of what was in flight at the last throttle, or `null` before any. */
  readonly threshold: number | null;
  /** The rate `retry.learnRate` had learned, in starts a second, or `null`. */
  readonly perSecond: number | null;
  /** When the pause under way ends (a throttle's, or the reset of a spent budget), or `null`. */
  readonly pausedUntil: number | null;
}

/**
 * A job's progress as plain JSON data: `JSON.stringify` writes it and `JSON.parse` reads it back whole.
 * Made by `slowStartCheckpoint()` from a run's events; a run resumes from it with the `resume` option.
 */
export interface SlowStartCheckpoint {
  /** The format's version: 1. */
  readonly version: typeof CHECKPOINT_VERSION;
  /** Counts up with each checkpoint, across the runs that resume one another: a store keeps the highest. */
  readonly sequence: number;
  /** What the source was: its keys (or its length) hashed. `''` when the run could not tell. */
  readonly fingerprint: string;
  /** When it was made, on the run's clock: `Date.now()` with the default scheduler. */
  readonly savedAt: number;
  /** The keys of the tasks that succeeded. */
  readonly succeeded: KeyList;
  /** The keys of the tasks that failed for good as items: not run again on resume. */
  readonly failed: KeyList;
  /**
   * The keys of the tasks that started and whose end is not known: they may have taken effect. A resumed
   * run invokes them again, with the same key, and a context whose `inDoubt` is `true`.
   */
  readonly inDoubt: KeyList;
  /** The run's pace, taken up by a run that resumes the checkpoint while it is fresh (`resume.freshFor`). */
  readonly pace: CheckpointPace;
  /** How the run ended, once it has: the last checkpoint of a run. */
  readonly ended: 'completed' | 'failed' | 'cancelled' | null;
}

/**
 * Checks that `value` is a checkpoint this package can resume from, as read back from a store, and
 * returns it. Throws a `TypeError` that names the first thing wrong (`resume.inDoubt[2]`, say).
 *
 * @param value What a store gave back: the parsed JSON of a checkpoint, say.
 * @param name What the messages call it, as the start of every field's name.
 * @return `value`, typed as a checkpoint.
 */
export function readCheckpoint(value: unknown, name = 'resume'): SlowStartCheckpoint {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new TypeError(expected(name, 'a checkpoint made by slowStartCheckpoint() (a plain object)', value));
  }
  const checkpoint = value as Record<string, unknown>;
  const field = checkField(checkpoint, name);
  field('version', `${CHECKPOINT_VERSION} (the checkpoint format this version of rxjs-slow-start reads)`, (v) => v === CHECKPOINT_VERSION);
  field('sequence', 'a non-negative integer', (v) => Number.isSafeInteger(v) && (v as number) >= 0);
  field('fingerprint', 'a string', (v) => typeof v === 'string');
  field('savedAt', 'a finite number', Number.isFinite);
  for (const list of ['succeeded', 'failed', 'inDoubt']) checkKeyList(checkpoint[list], `${name}.${list}`);
  field('pace', 'an object with limit, threshold, perSecond and pausedUntil', (v) => typeof v === 'object' && v !== null);
  const paceField = checkField(checkpoint.pace as Record<string, unknown>, `${name}.pace`);
  paceField('limit', 'a positive number', (v) => typeof v === 'number' && v >= 1);
  paceField('threshold', 'a positive number or null', (v) => v === null || (typeof v === 'number' && v >= 1));
  paceField('perSecond', 'a positive number or null', (v) => v === null || (typeof v === 'number' && v > 0));
  paceField('pausedUntil', 'a finite number or null', (v) => v === null || Number.isFinite(v));
  field(
    'ended',
    "'completed', 'failed', 'cancelled' or null",
    (v) => v === null || v === 'completed' || v === 'failed' || v === 'cancelled',
  );
  return value as SlowStartCheckpoint;
}

/** Checks a field of `object`, named `name.key` in the `TypeError` it throws when `ok` says no. */
function checkField(object: Record<string, unknown>, name: string) {
  return (key: string, rule: string, ok: (field: unknown) => boolean): void => {
    if (!ok(object[key])) throw new TypeError(expected(`${name}.${key}`, rule, object[key]));
  };
}

/**
 * A key list as `KeySet` writes one: strings, finite numbers, and integer runs `[first, last]`; the
 * integers (alone or in runs) in increasing order, none touching the next, so that each run is read whole.
 */
function checkKeyList(list: unknown, name: string): void {
  if (!Array.isArray(list)) throw new TypeError(expected(name, 'an array of keys and [first, last] runs', list));
  let lastInteger = -Infinity;
  (list as unknown[]).forEach((entry, position) => {
    let first: number;
    let last: number;
    if (Array.isArray(entry)) {
      [first, last] = entry as number[];
      if (entry.length !== 2 || !Number.isSafeInteger(first) || !Number.isSafeInteger(last) || first >= last) {
        throw new TypeError(expected(`${name}[${position}]`, 'a run [first, last] of two safe integers, first < last', entry));
      }
    } else if (typeof entry === 'string' || (typeof entry === 'number' && Number.isFinite(entry))) {
      if (!Number.isSafeInteger(entry)) return;
      first = last = entry as number;
    } else {
      throw new TypeError(expected(`${name}[${position}]`, 'a string, a finite number or a [first, last] run', entry));
    }
    if (first <= lastInteger + 1) {
      throw new RangeError(
        expected(`${name}[${position}]`, `an integer after ${lastInteger + 1} (the list's integers in order, runs apart)`, entry),
      );
    }
    lastInteger = last;
  });
}

/**
 * The fingerprint of a source: its keys hashed (FNV-1a, 32 bits), with their count, when the `keys`
 * option gives them; else its length, when the source says (an array); else `''`, which no check can use.
 */
export function fingerprintOf(keys: readonly TaskKey[] | undefined, total: number | undefined): string {
  if (keys === undefined) return total === undefined ? '' : `tasks:${total}`;
  let hash = 0x811c9dc5;
  for (const key of keys) {
    const text = `${typeof key === 'number' ? 'n' : 's'}${String(key)}\u0000`;
    for (let at = 0; at < text.length; at++) hash = Math.imul(hash ^ text.charCodeAt(at), 0x01000193);
  }
  return `keys:${keys.length}:${(hash >>> 0).toString(16).padStart(8, '0')}`;
}
