// A checkpoint read back from a store is checked before a run resumes it; its fingerprint ties it to its source.
import { fingerprintOf, readCheckpoint, type SlowStartCheckpoint } from '../../src/checkpoint/checkpoint';
import { CheckpointFold } from '../../src/checkpoint/checkpoint-fold';
import type { SlowStartEvent } from '../../src/events';

const valid: SlowStartCheckpoint = {
  version: 1,
  sequence: 3,
  fingerprint: 'tasks:3',
  savedAt: 1000,
  succeeded: [[0, 1]],
  failed: [],
  inDoubt: [2],
  pace: { limit: 2, threshold: null, perSecond: null, pausedUntil: null },
  ended: null,
};

describe('readCheckpoint', () => {
  it('returns a checkpoint as it is, after JSON', () => {
    expect(readCheckpoint(JSON.parse(JSON.stringify(valid)))).toEqual(valid);
  });

  it.each([
    [null, 'Expected `resume` to be a checkpoint made by slowStartCheckpoint() (a plain object), got null (null)'],
    [[], 'Expected `resume` to be a checkpoint made by slowStartCheckpoint() (a plain object), got an array of 0 (object)'],
    [
      { ...valid, version: 2 },
      'Expected `resume.version` to be 1 (the checkpoint format this version of rxjs-slow-start reads), got 2 (number)',
    ],
    [{ ...valid, sequence: -1 }, 'Expected `resume.sequence` to be a non-negative integer, got -1 (number)'],
    [{ ...valid, fingerprint: 3 }, 'Expected `resume.fingerprint` to be a string, got 3 (number)'],
    [{ ...valid, savedAt: 'now' }, 'Expected `resume.savedAt` to be a finite number, got "now" (string)'],
    [{ ...valid, succeeded: {} }, 'Expected `resume.succeeded` to be an array of keys and [first, last] runs, got an object (object)'],
    [
      { ...valid, failed: [[3, 1]] },
      'Expected `resume.failed[0]` to be a run [first, last] of two safe integers, first < last, got an array of 2 (object)',
    ],
    [
      { ...valid, inDoubt: [true] },
      'Expected `resume.inDoubt[0]` to be a string, a finite number or a [first, last] run, got true (boolean)',
    ],
    [{ ...valid, pace: null }, 'Expected `resume.pace` to be an object with limit, threshold, perSecond and pausedUntil, got null (null)'],
    [{ ...valid, pace: { ...valid.pace, limit: 0 } }, 'Expected `resume.pace.limit` to be a positive number, got 0 (number)'],
    [
      { ...valid, pace: { ...valid.pace, threshold: undefined } },
      'Expected `resume.pace.threshold` to be a positive number or null, got undefined (undefined)',
    ],
    [
      { ...valid, pace: { ...valid.pace, perSecond: 0 } },
      'Expected `resume.pace.perSecond` to be a positive number or null, got 0 (number)',
    ],
    [
      { ...valid, pace: { ...valid.pace, pausedUntil: Infinity } },
      'Expected `resume.pace.pausedUntil` to be a finite number or null, got Infinity (number)',
    ],
    [{ ...valid, ended: 'done' }, "Expected `resume.ended` to be 'completed', 'failed', 'cancelled' or null, got \"done\" (string)"],
  ])('refuses %j with a TypeError that names the field', (value, message) => {
    expect(() => readCheckpoint(value)).toThrow(new TypeError(message));
  });

  it.each([
    ['the first sequence', { sequence: 0 }],
    ['an empty fingerprint', { fingerprint: '' }],
    ['every key list empty', { succeeded: [], failed: [], inDoubt: [] }],
    ['negative integers in order', { succeeded: [-9, [-5, -3], 0] }],
    ['a number past the safe integers, which no run holds', { succeeded: [[0, 1], 1e300, 3] }],
    ['the least limit, threshold and rate', { pace: { limit: 1, threshold: 1, perSecond: 0.001, pausedUntil: -5 } }],
    ['a pace with every field set', { pace: { limit: 2.5, threshold: 7, perSecond: 20, pausedUntil: 1500 } }],
    ['a run that completed', { ended: 'completed' }],
    ['a run that failed', { ended: 'failed' }],
    ['a run that was cancelled', { ended: 'cancelled' }],
  ])('takes %s', (_, change) => {
    const checkpoint = { ...valid, ...change };
    expect(readCheckpoint(checkpoint)).toBe(checkpoint);
  });

  it.each([
    [{ version: '1' }, '`resume.version`'],
    [{ sequence: 1.5 }, '`resume.sequence`'],
    [{ sequence: 2 ** 53 }, '`resume.sequence`'],
    [{ savedAt: NaN }, '`resume.savedAt`'],
    [{ inDoubt: 'a' }, '`resume.inDoubt`'],
    [{ succeeded: [[1, 1]] }, '`resume.succeeded[0]`'],
    [{ succeeded: [[1, 2, 3]] }, '`resume.succeeded[0]`'],
    [{ succeeded: [[1]] }, '`resume.succeeded[0]`'],
    [{ succeeded: [[0.5, 2]] }, '`resume.succeeded[0]`'],
    [{ succeeded: [[0, 2 ** 53]] }, '`resume.succeeded[0]`'],
    [{ succeeded: [NaN] }, '`resume.succeeded[0]`'],
    [{ failed: [null] }, '`resume.failed[0]`'],
    [{ pace: 'fast' }, '`resume.pace`'],
    [{ pace: { ...valid.pace, limit: 0.5 } }, '`resume.pace.limit`'],
    [{ pace: { ...valid.pace, limit: '2' } }, '`resume.pace.limit`'],
    [{ pace: { ...valid.pace, threshold: 0.5 } }, '`resume.pace.threshold`'],
    [{ pace: { ...valid.pace, threshold: '2' } }, '`resume.pace.threshold`'],
    [{ pace: { ...valid.pace, perSecond: -1 } }, '`resume.pace.perSecond`'],
    [{ pace: { ...valid.pace, perSecond: '2' } }, '`resume.pace.perSecond`'],
    [{ pace: { ...valid.pace, pausedUntil: '5' } }, '`resume.pace.pausedUntil`'],
    [{ ended: undefined }, '`resume.ended`'],
  ])('refuses %j, naming %s', (change, name) => {
    expect(() => readCheckpoint({ ...valid, ...change })).toThrow(`Expected ${name} to be`);
  });

  it('names the fields from the name it is given', () => {
    expect(() => readCheckpoint({ ...valid, sequence: -1 }, 'resume.checkpoint')).toThrow(
      new TypeError('Expected `resume.checkpoint.sequence` to be a non-negative integer, got -1 (number)'),
    );
    expect(() => readCheckpoint('{}', 'stored')).toThrow(
      new TypeError('Expected `stored` to be a checkpoint made by slowStartCheckpoint() (a plain object), got "{}" (string)'),
    );
  });

  it('refuses a list whose integers are out of order or whose runs touch: each run is read whole', () => {
    expect(() => readCheckpoint({ ...valid, succeeded: [-1, 0] })).toThrow(RangeError);
    expect(() =>
      readCheckpoint({
        ...valid,
        succeeded: [
          [0, 2],
          [1, 5],
        ],
      }),
    ).toThrow(RangeError);
    expect(() => readCheckpoint({ ...valid, succeeded: [3, 3] })).toThrow(RangeError);
    expect(() => readCheckpoint({ ...valid, succeeded: [5, 3] })).toThrow(RangeError);
    expect(() => readCheckpoint({ ...valid, succeeded: [[0, 4], 5] })).toThrow(
      "Expected `resume.succeeded[1]` to be an integer after 5 (the list's integers in order, runs apart), got 5 (number)",
    );
    expect(readCheckpoint({ ...valid, succeeded: [[0, 4], 6, 'a', 1.5, [8, 9]] }).succeeded).toHaveLength(5);
  });
});

describe('fingerprintOf', () => {
  it('tells keys apart by value, type and order, and a source without keys by its length', () => {
    const a = fingerprintOf(['a', 'b', 1], 3);
    expect(a).toMatch(/^keys:3:[0-9a-f]{8}$/);
    expect(fingerprintOf(['a', 'b', 1], 3)).toBe(a);
    expect(new Set([a, fingerprintOf(['b', 'a', 1], 3), fingerprintOf(['a', 'b', '1'], 3), fingerprintOf(['a', 'b'], 2)]).size).toBe(4);
    expect([fingerprintOf(undefined, 5), fingerprintOf(undefined, undefined)]).toEqual(['tasks:5', '']);
  });

  it('hashes the keys with 32-bit FNV-1a, so that a checkpoint stored by one version matches its source in the next', () => {
    // Computed apart from the package: FNV-1a over each key's type letter, text and a NUL.
    expect(fingerprintOf([], 0)).toBe('keys:0:811c9dc5');
    expect(fingerprintOf(['a', 'b', 1], 3)).toBe('keys:3:b6285b45');
    expect(fingerprintOf([1], 1)).toBe('keys:1:a0c95400');
    expect(fingerprintOf(['1'], 1)).toBe('keys:1:e1a5e46b');
    // A hash below 0x10000000 keeps its eight digits.
    expect(fingerprintOf([22], 1)).toBe('keys:1:05315703');
  });
});

describe('CheckpointFold', () => {
  const tryOf = (key: number, time: number) => ({ key, index: key, batch: 0, attempt: 1, time });

  it('makes a checkpoint after every event of a try, of the pace and of the end, and none for a task received or a result', () => {
    const fold = new CheckpointFold();
    const events: SlowStartEvent[] = [
      { type: 'start', fingerprint: 'tasks:2', time: 0 },
      { type: 'received', key: 0, index: 0 },
      { type: 'started', ...tryOf(0, 1) },
      { type: 'retrying', ...tryOf(0, 2), kind: 'transient', reason: 'x', duration: 1, retryAt: 10 },
      { type: 'rate', perSecond: 4, time: 3 },
      { type: 'cancelled', ...tryOf(0, 4) },
      { type: 'abandoned', ...tryOf(1, 5), reason: 'y' },
      { type: 'skipped', key: 1, index: 1, time: 6 },
    ];
    const made = events.map((event) => fold.next(event)?.sequence);
    expect(made).toEqual([1, undefined, 2, 3, 4, 5, 6, undefined]);
  });

  it('keeps the rate `learnRate` reports in the pace, and the task whose try got no answer in doubt', () => {
    const fold = new CheckpointFold();
    fold.next({ type: 'start', fingerprint: 'tasks:1', time: 0 });
    fold.next({ type: 'started', ...tryOf(0, 1) });
    expect(fold.next({ type: 'rate', perSecond: 2.5, time: 2 })?.pace.perSecond).toBe(2.5);
    const last = fold.next({ type: 'cancelled', ...tryOf(0, 3) });
    expect([last?.inDoubt, last?.pace.perSecond, last?.savedAt]).toEqual([[0], 2.5, 3]);
  });

  it('keeps a pause only while it lasts: one that ends at the time of the checkpoint is over', () => {
    const fold = new CheckpointFold();
    fold.next({ type: 'start', fingerprint: 'tasks:1', time: 0 });
    expect(fold.next({ type: 'paused', until: 100, cause: 'throttle', time: 50 })?.pace.pausedUntil).toBe(100);
    expect(fold.next({ type: 'started', ...tryOf(0, 99) })?.pace.pausedUntil).toBe(100);
    expect(fold.next({ type: 'started', ...tryOf(1, 100) })?.pace.pausedUntil).toBeNull();
  });

  it("has no fingerprint for events that came without their run's start", () => {
    const fold = new CheckpointFold();
    expect(fold.next({ type: 'started', ...tryOf(0, 1) })).toMatchObject({ sequence: 1, fingerprint: '', inDoubt: [0] });
  });
});
