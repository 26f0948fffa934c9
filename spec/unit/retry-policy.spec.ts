/**
 * What a failed try means under `retry` (src/retry/retry-policy.ts), alone: which of §14's four kinds it
 * is, how long a try again waits, and what a policy that breaks its rules costs the task.
 */
import { expected } from '../../src/expected';
import type { ResolvedRetry } from '../../src/retry/retry-options';
import { decideRetry } from '../../src/retry/retry-policy';
import type { TaskContext } from '../../src/types';

const context = (attempt: number): TaskContext => ({
  index: 0,
  batch: 0,
  attempt,
  key: 0,
  inDoubt: false,
  signal: new AbortController().signal,
});
const policy = (retry: Partial<ResolvedRetry>): ResolvedRetry => ({
  when: () => true,
  maxAttempts: 3,
  delay: 0,
  learnRate: false,
  maxConsecutiveItemFailures: 5,
  outOfTries: 'fatal',
  ...retry,
});
const error = new Error('429');
const decide = (retry: Partial<ResolvedRetry>, attempt = 1) => decideRetry(policy(retry), error, attempt, context(attempt));
/** The longest pause: the longest delay a timer can have. */
const longestPause = 2 ** 31 - 1;
/** A failure as fetch would give it, with its status and headers. */
const response = (status: number, headers: Record<string, string> = {}) => ({ status, ok: false, headers: new Headers(headers) });
const whenRule = 'a failure kind, { kind, retryAfter }, a boolean, a finite number of milliseconds >= 0, or undefined';

/** Answers that are not a number of milliseconds a timer can wait. */
const badWaits: [string, unknown][] = [
  ['a negative number', -1],
  ['Infinity', Infinity],
  ['NaN', NaN],
  ['a string', '5'],
];

describe('decideRetry', () => {
  it('tries a throttle again after the delay', () => {
    expect(decide({ delay: 250 })).toEqual({ kind: 'throttle', pause: 250 });
  });

  it('uses the default backoff when there is no `delay`: 500 to 1,000 ms before the first retry', () => {
    const decision = decide({ delay: undefined });
    expect(decision.kind).toBe('throttle');
    const { pause } = decision as { pause: number };
    expect(pause).toBeGreaterThanOrEqual(500);
    expect(pause).toBeLessThanOrEqual(1_000);
  });

  it("takes the server's pushback as the whole pause when the user set no delay, whatever the attempt", () => {
    expect(decide({ when: () => 300, delay: undefined }, 2)).toEqual({ kind: 'throttle', pause: 300 });
    expect(decide({ when: () => ({ kind: 'throttle', retryAfter: 40 }), delay: undefined })).toEqual({ kind: 'throttle', pause: 40 });
    expect(decide({ when: () => ({ kind: 'transient', retryAfter: 0 }), delay: undefined })).toEqual({ kind: 'transient', pause: 0 });
    // A kind without a pushback waits the delay, or the backoff.
    expect(decide({ when: () => ({ kind: 'throttle' }), delay: 120 })).toEqual({ kind: 'throttle', pause: 120 });
    expect(decide({ when: () => ({ kind: 'transient', retryAfter: undefined }), delay: 80 })).toEqual({ kind: 'transient', pause: 80 });
  });

  it("keeps the user's own delay as the least pause, and no longer than the longest pause", () => {
    expect(decide({ when: () => 300, delay: 100 })).toEqual({ kind: 'throttle', pause: 300 });
    expect(decide({ when: () => 50, delay: 100 })).toEqual({ kind: 'throttle', pause: 100 });
    expect(decide({ when: () => longestPause + 1, delay: 100 })).toEqual({ kind: 'throttle', pause: longestPause });
    expect(decide({ delay: (attempt) => attempt * 10 }, 2)).toEqual({ kind: 'throttle', pause: 20 });
  });

  it('answers each kind `when` names, and the old answers as before: true a throttle, false fatal', () => {
    expect(decide({ when: () => 'throttle' })).toEqual({ kind: 'throttle', pause: 0 });
    expect(decide({ when: () => 'transient', delay: 70 })).toEqual({ kind: 'transient', pause: 70 });
    expect(decide({ when: () => 'item' })).toEqual({ kind: 'item', reason: error });
    expect(decide({ when: () => 'fatal' })).toEqual({ kind: 'fatal', reason: error });
    expect(decide({ when: () => false })).toEqual({ kind: 'fatal', reason: error });
  });

  it('leaves to the default what `when` does not answer, and so does a retry with no `when`', () => {
    const decideFor = (failure: unknown, when: ResolvedRetry['when']) =>
      decideRetry(policy({ when, delay: undefined }), failure, 1, context(1));
    for (const when of [undefined, () => undefined]) {
      expect(decideFor(response(429, { 'Retry-After': '2' }), when)).toEqual({ kind: 'throttle', pause: 2_000 });
      expect(decideFor(response(503, { 'Retry-After': '1' }), when)).toEqual({ kind: 'throttle', pause: 1_000 });
      expect(decideFor(response(504), when).kind).toBe('transient');
      expect(decideFor(response(403), when).kind).toBe('fatal');
      expect(decideFor(new Error('a bug'), when).kind).toBe('fatal');
    }
  });

  it('fails a task out of tries as `outOfTries` says, fatal by default; an item or a fatal failure is that on any try', () => {
    expect(decide({ maxAttempts: 2 }, 2)).toEqual({ kind: 'fatal', reason: error });
    expect(decide({ maxAttempts: 2, outOfTries: 'item' }, 2)).toEqual({ kind: 'item', reason: error });
    expect(decide({ maxAttempts: 2, when: () => 'transient' }, 1)).toEqual({ kind: 'transient', pause: 0 });
    expect(decide({ maxAttempts: 1, when: () => 'item' })).toEqual({ kind: 'item', reason: error });
    expect(decide({ maxAttempts: 1, when: () => 'fatal', outOfTries: 'item' })).toEqual({ kind: 'fatal', reason: error });
  });

  it("counts tries by the attempt it is given, not by the context's, which a factory may have written to", () => {
    expect(decideRetry(policy({ maxAttempts: 2 }), error, 2, context(0))).toEqual({ kind: 'fatal', reason: error });
    expect(decideRetry(policy({ maxAttempts: 2 }), error, 1, context(5))).toEqual({ kind: 'throttle', pause: 0 });
    const attempts: number[] = [];
    decideRetry(policy({ delay: (attempt) => (attempts.push(attempt), 0) }), error, 2, context(7));
    expect(attempts).toEqual([2]);
  });

  it.each([...badWaits.slice(0, 3), ['an unknown kind', 'later'], ['null', null], ['an object of another kind', { kind: 'item' }]])(
    'fails the task with a TypeError when `when` answers %s',
    (_, answer) => {
      expect(decide({ when: () => answer as number })).toEqual({
        kind: 'fatal',
        reason: new TypeError(expected('retry.when()', whenRule, answer)),
      });
    },
  );

  it.each(badWaits)('fails the task with a TypeError when `when` answers a retryAfter of %s', (_, retryAfter) => {
    const answer = { kind: 'throttle', retryAfter } as const;
    expect(decide({ when: () => answer as never })).toEqual({
      kind: 'fatal',
      reason: new TypeError(expected('retry.when()', whenRule, answer)),
    });
  });

  it.each(badWaits)('fails the task with a TypeError when `delay` answers %s', (_, answer) => {
    const decision = decide({ delay: () => answer as number });
    expect(decision).toEqual({
      kind: 'fatal',
      reason: new TypeError(expected('retry.delay()', 'a finite number of milliseconds >= 0', answer)),
    });
    expect((decision as { reason: TypeError }).reason.message).toMatch(/^Expected `retry\.delay\(\)` to be a finite number/);
  });

  it('fails the task with what `when` or `delay` throws', () => {
    const thrown = new Error('policy bug');
    const throws = () => {
      throw thrown;
    };
    expect(decide({ when: throws })).toEqual({ kind: 'fatal', reason: thrown });
    expect(decide({ delay: throws })).toEqual({ kind: 'fatal', reason: thrown });
  });
});
