// A checkpoint read back from a store is checked before a run resumes it; its fingerprint ties it to its source.
import { fingerprintOf, readCheckpoint, type SlowStartCheckpoint } from '../../src/checkpoint/checkpoint';

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

  it('refuses a list whose integers are out of order or whose runs touch: each run is read whole', () => {
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
});
