/**
 * What a failed try leads to under `retry` (src/retry/retry-policy.ts), alone: the pause, and each
 * answer of `when` or `delay` that makes the failure final instead.
 */
import { expected } from '../../src/expected';
import type { ResolvedRetry } from '../../src/retry/retry-options';
import { decideRetry } from '../../src/retry/retry-policy';
import type { TaskContext } from '../../src/types';

const context = (attempt: number): TaskContext => ({ index: 0, batch: 0, attempt, signal: new AbortController().signal });
const policy = (retry: Partial<ResolvedRetry>): ResolvedRetry => ({
  when: undefined,
  maxAttempts: 3,
  delay: 0,
  learnRate: false,
  ...retry,
});
const error = new Error('429');
const decide = (retry: Partial<ResolvedRetry>, attempt = 1) => decideRetry(policy(retry), error, attempt, context(attempt));
/** The longest pause: the longest delay a timer can have. */
const longestPause = 2 ** 31 - 1;

/** Answers that are not a number of milliseconds a timer can wait. */
const badAnswers: [string, unknown][] = [
  ['a negative number', -1],
  ['Infinity', Infinity],
  ['NaN', NaN],
  ['a string', '5'],
];

describe('decideRetry', () => {
  it('retries every failure when there is no `when`, after the delay', () => {
    expect(decide({ delay: 250 })).toEqual({ retry: true, pause: 250 });
  });

  it('uses the default backoff when there is no `delay`: 500 to 1,000 ms before the first retry', () => {
    const decision = decide({ delay: undefined });
    expect(decision.retry).toBe(true);
    const { pause } = decision as { pause: number };
    expect(pause).toBeGreaterThanOrEqual(500);
    expect(pause).toBeLessThanOrEqual(1_000);
  });

  it('waits the longer of what `when` asks and the delay, and no longer than the longest pause', () => {
    expect(decide({ when: () => 300, delay: 100 })).toEqual({ retry: true, pause: 300 });
    expect(decide({ when: () => 50, delay: 100 })).toEqual({ retry: true, pause: 100 });
    expect(decide({ when: () => longestPause + 1, delay: 100 })).toEqual({ retry: true, pause: longestPause });
    expect(decide({ delay: (attempt) => attempt * 10 }, 2)).toEqual({ retry: true, pause: 20 });
  });

  it('fails a task out of tries, or one `when` says is not transient, with the error itself', () => {
    expect(decide({ maxAttempts: 2 }, 2)).toEqual({ retry: false, reason: error });
    expect(decide({ when: () => false })).toEqual({ retry: false, reason: error });
  });

  it("counts tries by the attempt it is given, not by the context's, which a factory may have written to", () => {
    expect(decideRetry(policy({ maxAttempts: 2 }), error, 2, context(0))).toEqual({ retry: false, reason: error });
    expect(decideRetry(policy({ maxAttempts: 2 }), error, 1, context(5))).toEqual({ retry: true, pause: 0 });
    const attempts: number[] = [];
    decideRetry(policy({ delay: (attempt) => (attempts.push(attempt), 0) }), error, 2, context(7));
    expect(attempts).toEqual([2]);
  });

  it.each(badAnswers)('fails the task with a TypeError when `when` answers %s', (_, answer) => {
    const decision = decide({ when: () => answer as number });
    expect(decision).toEqual({
      retry: false,
      reason: new TypeError(expected('retry.when()', 'a boolean or a finite number of milliseconds >= 0', answer)),
    });
  });

  it.each(badAnswers)('fails the task with a TypeError when `delay` answers %s', (_, answer) => {
    const decision = decide({ delay: () => answer as number });
    expect(decision).toEqual({
      retry: false,
      reason: new TypeError(expected('retry.delay()', 'a finite number of milliseconds >= 0', answer)),
    });
    expect((decision as { reason: TypeError }).reason.message).toMatch(/^Expected `retry\.delay\(\)` to be a finite number/);
  });

  it('fails the task with what `when` or `delay` throws', () => {
    const thrown = new Error('policy bug');
    const throws = () => {
      throw thrown;
    };
    expect(decide({ when: throws })).toEqual({ retry: false, reason: thrown });
    expect(decide({ delay: throws })).toEqual({ retry: false, reason: thrown });
  });
});
