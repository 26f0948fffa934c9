/**
 * The `retry` option (src/retry/retry-options.ts), alone: what it accepts, the defaults it fills in,
 * and the error, class and message, of every value it refuses. The longest delay is the timer limit,
 * 2^31 - 1 ms.
 */
import { resolveRetry } from '../../src/retry/retry-options';

const resolve = (retry: unknown) => resolveRetry(retry);
const longestDelay = 2 ** 31 - 1;
const itemRule = 'an integer >= 1, or Infinity';
const delayRule = 'a number of milliseconds from 0 to 2147483647, or a function returning one';

describe('resolveRetry (contract §10)', () => {
  it('gives undefined for no retry option: every failure stops the run', () => {
    expect(resolve(undefined)).toBeUndefined();
  });

  it('fills in the defaults', () => {
    expect(resolve({})).toEqual({
      when: undefined,
      maxAttempts: 3,
      delay: undefined,
      learnRate: false,
      maxConsecutiveItemFailures: 5,
      outOfTries: 'fatal',
    });
  });

  it('keeps what it is given', () => {
    const when = () => true;
    const delay = () => 5;
    expect(resolve({ when, maxAttempts: 1, delay, learnRate: true, maxConsecutiveItemFailures: Infinity, outOfTries: 'item' })).toEqual({
      when,
      maxAttempts: 1,
      delay,
      learnRate: true,
      maxConsecutiveItemFailures: Infinity,
      outOfTries: 'item',
    });
    expect(resolve({ delay: 0 })?.delay).toBe(0);
  });

  it('accepts maxConsecutiveItemFailures from 1, and Infinity', () => {
    expect(resolve({ maxConsecutiveItemFailures: 1 })?.maxConsecutiveItemFailures).toBe(1);
    expect(resolve({ maxConsecutiveItemFailures: Infinity })?.maxConsecutiveItemFailures).toBe(Infinity);
  });

  it('accepts a delay up to the longest one, and not a millisecond more', () => {
    expect(resolve({ delay: longestDelay })?.delay).toBe(longestDelay);
    expect(() => resolve({ delay: longestDelay + 1 })).toThrow(
      new RangeError(`Expected \`retry.delay\` to be ${delayRule}, got 2147483648 (number)`),
    );
  });

  // Found by mutation testing: each refusal says which option, what it must be, and what it got.
  it.each([
    [null, new TypeError('Expected `retry` to be an object or undefined, got null (null)')],
    [true, new TypeError('Expected `retry` to be an object or undefined, got true (boolean)')],
    [[], new TypeError('Expected `retry` to be an object or undefined, got an array of 0 (object)')],
    [
      { tries: 3 },
      new TypeError(
        'Unknown option `retry.tries`: expected one of `when`, `maxAttempts`, `delay`, `learnRate`, `maxConsecutiveItemFailures`, `outOfTries`',
      ),
    ],
    [{ when: true }, new TypeError('Expected `retry.when` to be a function or undefined, got true (boolean)')],
    [{ maxAttempts: '3' }, new TypeError('Expected `retry.maxAttempts` to be an integer >= 1, got "3" (string)')],
    [{ maxAttempts: 0 }, new RangeError('Expected `retry.maxAttempts` to be an integer >= 1, got 0 (number)')],
    [{ maxAttempts: 2.5 }, new RangeError('Expected `retry.maxAttempts` to be an integer >= 1, got 2.5 (number)')],
    [{ delay: '5' }, new TypeError(`Expected \`retry.delay\` to be ${delayRule}, got "5" (string)`)],
    [{ delay: null }, new TypeError(`Expected \`retry.delay\` to be ${delayRule}, got null (null)`)],
    [{ delay: -1 }, new RangeError(`Expected \`retry.delay\` to be ${delayRule}, got -1 (number)`)],
    [{ delay: NaN }, new RangeError(`Expected \`retry.delay\` to be ${delayRule}, got NaN (number)`)],
    [{ learnRate: 1 }, new TypeError('Expected `retry.learnRate` to be a boolean or undefined, got 1 (number)')],
    [
      { maxConsecutiveItemFailures: '5' },
      new TypeError(`Expected \`retry.maxConsecutiveItemFailures\` to be ${itemRule}, got "5" (string)`),
    ],
    [{ maxConsecutiveItemFailures: 0 }, new RangeError(`Expected \`retry.maxConsecutiveItemFailures\` to be ${itemRule}, got 0 (number)`)],
    [
      { maxConsecutiveItemFailures: 1.5 },
      new RangeError(`Expected \`retry.maxConsecutiveItemFailures\` to be ${itemRule}, got 1.5 (number)`),
    ],
    [
      { maxConsecutiveItemFailures: NaN },
      new RangeError(`Expected \`retry.maxConsecutiveItemFailures\` to be ${itemRule}, got NaN (number)`),
    ],
    [
      { maxConsecutiveItemFailures: -Infinity },
      new RangeError(`Expected \`retry.maxConsecutiveItemFailures\` to be ${itemRule}, got -Infinity (number)`),
    ],
    [{ outOfTries: 'skip' }, new TypeError(`Expected \`retry.outOfTries\` to be 'fatal', 'item' or undefined, got "skip" (string)`)],
  ])('refuses %p', (retry, error) => {
    expect(() => resolve(retry)).toThrow(error);
    expect(() => resolve(retry)).toThrow(error.constructor as typeof Error);
  });
});
