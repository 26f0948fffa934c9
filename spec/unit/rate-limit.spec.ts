// §13's announcement readers (readRateLimits, readRateLimit): every form real limiters send, the carriers it is read from,
// and what it ignores. The values of the first table are what express-rate-limit 8.7.4 (limit 5 in a
// window of 1 s, `legacyHeaders: true`) and @fastify/rate-limit 11.2.0 sent over real HTTP on the second
// request and on the seventh (a 429).
import { rateLimit, readRateLimit, readRateLimits, type RateLimitState } from '../../src/index.js';
import { isRateLimitState } from '../../src/rate-limit.js';

const now = 1_796_148_223_400;

/** A fetch Response with `headers`: the reader sees what fetch's Headers give, case-insensitively. */
const response = (headers: Record<string, string>, status = 200) => new Response(null, { status, headers });

const state = (
  limit: number | undefined,
  remaining: number,
  resetIn: number,
  window: number | undefined,
  name?: string,
): RateLimitState => ({
  limit,
  remaining,
  resetIn,
  window,
  ...(name === undefined ? {} : { name }),
});

describe('readRateLimit (contract §13)', () => {
  describe('what real limiters send', () => {
    const legacy = { 'x-ratelimit-limit': '5', 'x-ratelimit-remaining': '3', 'x-ratelimit-reset': '1796148224' };
    it.each([
      [
        'express-rate-limit draft-8',
        { ratelimit: '"5-in-1sec"; r=3; t=1', 'ratelimit-policy': '"5-in-1sec"; q=5; w=1; pk=:MTJjYTE3YjQ5YWYy:', ...legacy },
        state(5, 3, 1000, 1000, '5-in-1sec'),
      ],
      [
        'express-rate-limit draft-8, a 429',
        { ratelimit: '"5-in-1sec"; r=0; t=1', 'ratelimit-policy': '"5-in-1sec"; q=5; w=1; pk=:MTJjYTE3YjQ5YWYy:', 'retry-after': '1' },
        state(5, 0, 1000, 1000, '5-in-1sec'),
      ],
      [
        'express-rate-limit draft-7',
        { ratelimit: 'limit=5, remaining=3, reset=1', 'ratelimit-policy': '5;w=1', ...legacy },
        state(5, 3, 1000, 1000),
      ],
      [
        'express-rate-limit draft-6',
        { 'ratelimit-limit': '5', 'ratelimit-policy': '5;w=1', 'ratelimit-remaining': '0', 'ratelimit-reset': '1', ...legacy },
        state(5, 0, 1000, 1000),
      ],
      // Its legacy reset is a time since the epoch, in seconds: 600 ms after `now`, rounded up to the second.
      ['express-rate-limit legacy headers alone', legacy, state(5, 3, 600, undefined)],
      // @fastify/rate-limit's reset is seconds left.
      [
        '@fastify/rate-limit',
        { 'x-ratelimit-limit': '5', 'x-ratelimit-remaining': '3', 'x-ratelimit-reset': '1' },
        state(5, 3, 1000, undefined),
      ],
      [
        'GitHub (an epoch reset an hour away)',
        { 'x-ratelimit-limit': '5000', 'x-ratelimit-remaining': '4999', 'x-ratelimit-reset': String(Math.floor(now / 1000) + 3600) },
        state(5000, 4999, 3_599_600, undefined),
      ],
      [
        'an epoch reset in milliseconds',
        { 'x-ratelimit-remaining': '10', 'x-ratelimit-reset': String(now + 1234) },
        state(undefined, 10, 1234, undefined),
      ],
      [
        'an epoch reset in the past: due now',
        { 'x-ratelimit-remaining': '10', 'x-ratelimit-reset': '1796148000' },
        state(undefined, 10, 0, undefined),
      ],
      [
        'an epoch reset with a fraction of a second (Discord)',
        { 'x-ratelimit-remaining': '1', 'x-ratelimit-reset': '1796148224.1234' },
        state(undefined, 1, 724, undefined),
      ],
    ])('%s', (_, headers, expected) => {
      expect(readRateLimit(response(headers), now)).toEqual(expected);
    });
  });

  describe('several budgets at once: readRateLimits', () => {
    const burstAndDay = {
      ratelimit: '"burst";r=9;t=1, "day";r=9000;t=80000',
      'ratelimit-policy': '"burst";q=10;w=1, "day";q=10000;w=86400',
    };

    it('reads every budget draft 8 announces, in order, each with its name', () => {
      expect(readRateLimits(response(burstAndDay), now)).toEqual([
        state(10, 9, 1000, 1000, 'burst'),
        state(10_000, 9000, 80_000_000, 86_400_000, 'day'),
      ]);
      // readRateLimit takes the one that leaves the fewest requests a second in the long run: the day's.
      expect(readRateLimit(response(burstAndDay), now)).toEqual(state(10_000, 9000, 80_000_000, 86_400_000, 'day'));
    });

    it('names a budget as meant: a token as written, a string without its quotes and escapes', () => {
      const names = readRateLimits(response({ ratelimit: 'a-b;r=1;t=1, "say \\"hi\\"";r=1;t=1, "";r=1;t=1' }), now).map((s) => s.name);
      expect(names).toEqual(['a-b', 'say "hi"', '']);
    });

    it('passes over a budget that contradicts its policy or lacks `r` or `t`, and keeps the others', () => {
      expect(
        readRateLimits(response({ ratelimit: '"a";r=11;t=1, "b";r=5, "c";r=3;t=2', 'ratelimit-policy': '"a";q=10, "c";q=4' }), now),
      ).toEqual([state(4, 3, 2000, undefined, 'c')]);
    });

    it('reads the one budget of the other forms, nameless, and none as an empty array', () => {
      expect(readRateLimits(response({ ratelimit: 'limit=5, remaining=3, reset=1', 'ratelimit-policy': '5;w=1' }), now)).toEqual([
        state(5, 3, 1000, 1000),
      ]);
      expect(readRateLimits(response({ 'x-ratelimit-remaining': '3', 'x-ratelimit-reset': '1' }), now)).toEqual([
        state(undefined, 3, 1000, undefined),
      ]);
      expect(readRateLimits(response({ 'x-ratelimit-remaining': '3', 'x-ratelimit-reset': '1' }), now)[0]).not.toHaveProperty('name');
      expect(readRateLimits(response({ ratelimit: '"a";r=1' }), now)).toEqual([]);
      expect(readRateLimits(undefined, now)).toEqual([]);
    });

    it('keeps rateLimit() as the deprecated name of readRateLimit()', () => {
      // eslint-disable-next-line @typescript-eslint/no-deprecated -- the deprecated name is what is checked
      expect(rateLimit).toBe(readRateLimit);
    });
  });

  describe('the forms', () => {
    it('takes the first form that reads, in the order draft 8, draft 7, draft 6, legacy', () => {
      const all = {
        ratelimit: '"a"; r=8; t=8',
        'ratelimit-remaining': '6',
        'ratelimit-reset': '6',
        'x-ratelimit-remaining': '1',
        'x-ratelimit-reset': '1',
      };
      expect(readRateLimit(response(all), now)?.remaining).toBe(8);
      expect(readRateLimit(response({ ...all, ratelimit: 'limit=9, remaining=7, reset=7' }), now)?.remaining).toBe(7);
      expect(readRateLimit(response({ ...all, ratelimit: 'garbage' }), now)?.remaining).toBe(6);
      expect(readRateLimit(response({ ...all, ratelimit: 'garbage', 'ratelimit-reset': 'soon' }), now)?.remaining).toBe(1);
    });

    it('draft 8: of several policies, the one that leaves the fewest requests a second', () => {
      const headers = {
        ratelimit: '"burst"; r=5; t=1, "daily"; r=100; t=86400',
        'ratelimit-policy': '"burst"; q=10; w=1, "daily"; q=1000; w=86400',
      };
      expect(readRateLimit(response(headers), now)).toEqual(state(1000, 100, 86_400_000, 86_400_000, 'daily'));
      // A reset due now leaves any number a second: the other policy binds.
      expect(readRateLimit(response({ ratelimit: '"a"; r=0; t=0, "b"; r=50; t=10' }), now)).toEqual(
        state(undefined, 50, 10_000, undefined, 'b'),
      );
      expect(readRateLimit(response({ ratelimit: '"a"; r=0; t=0' }), now)).toEqual(state(undefined, 0, 0, undefined, 'a'));
    });

    it('draft 8: a policy named with a token, parameters in any order, a policy header of another name, a flag', () => {
      expect(readRateLimit(response({ ratelimit: 'default;t=30;r=12', 'ratelimit-policy': 'other;q=100;w=60' }), now)).toEqual(
        state(undefined, 12, 30_000, undefined, 'default'),
      );
      expect(readRateLimit(response({ ratelimit: '"x"; r=1; t=2; extra', 'ratelimit-policy': '"x";q=3;w=4' }), now)).toEqual(
        state(3, 1, 2000, 4000, 'x'),
      );
    });

    it('draft 8: the tightest policy wins wherever it stands, and of two as tight, the first', () => {
      expect(readRateLimit(response({ ratelimit: '"daily"; r=100; t=86400, "burst"; r=5; t=1' }), now)?.remaining).toBe(100);
      expect(
        readRateLimit(response({ ratelimit: '"a"; r=1; t=1, "b"; r=2; t=2', 'ratelimit-policy': '"a"; q=10, "b"; q=20' }), now)?.limit,
      ).toBe(10);
    });

    it('draft 8: a list with anything before, between or after its items is not read', () => {
      expect(readRateLimit(response({ ratelimit: '!!, "a"; r=1; t=1' }), now)).toBeUndefined();
      expect(readRateLimit(response({ ratelimit: '"a"; r=1; t=1 junk' }), now)).toBeUndefined();
      // Junk before items that would read on their own: the list is read from its start, not searched.
      expect(readRateLimit(response({ ratelimit: '@"a"; r=1; t=1, x' }), now)).toBeUndefined();
      // Junk after a flag (a parameter without a value); a space after one is no junk.
      expect(readRateLimit(response({ ratelimit: '"a"; r=1; t=1; flag!' }), now)).toBeUndefined();
      expect(readRateLimit(response({ ratelimit: '"a"; flag ; r=1; t=1' }), now)?.remaining).toBe(1);
    });

    it('draft 8: an item without `r` or `t` is passed over', () => {
      expect(readRateLimit(response({ ratelimit: '"a"; r=3, "b"; r=2; t=1' }), now)).toEqual(state(undefined, 2, 1000, undefined, 'b'));
      expect(readRateLimit(response({ ratelimit: '"a"; t=3, "b"; r=2; t=1' }), now)).toEqual(state(undefined, 2, 1000, undefined, 'b'));
      expect(readRateLimit(response({ ratelimit: '"a"; t=3' }), now)).toBeUndefined();
    });

    it('drafts 6 and 7: the limit from the policy when the state does not say it', () => {
      expect(readRateLimit(response({ 'ratelimit-remaining': '1', 'ratelimit-reset': '1', 'ratelimit-policy': '10;w=60' }), now)).toEqual(
        state(10, 1, 1000, 60_000),
      );
      expect(
        readRateLimit(response({ 'ratelimit-remaining': '11', 'ratelimit-reset': '1', 'ratelimit-policy': '10;w=60' }), now),
      ).toBeUndefined();
    });

    it("drafts 6 and 7: the policy's window is its own `w` parameter, wherever it stands, and nothing like it", () => {
      const windowOf = (policy: string) =>
        readRateLimit(response({ 'ratelimit-remaining': '1', 'ratelimit-reset': '1', 'ratelimit-policy': policy }), now)?.window;
      expect(windowOf('10;comment="x";w=60')).toBe(60_000);
      expect(windowOf('10;xw=9;w=1')).toBe(1000);
      expect(windowOf('10; w=2 ')).toBe(2000);
      expect(windowOf('10;w=5x')).toBeUndefined();
      expect(windowOf('10;w=')).toBeUndefined();
      expect(
        readRateLimit(response({ 'ratelimit-remaining': '1', 'ratelimit-reset': '1', 'ratelimit-policy': '10 ;w=1' }), now)?.limit,
      ).toBe(10);
    });

    it('a budget that is all there is: as much remaining as the limit', () => {
      expect(readRateLimit(response({ 'ratelimit-limit': '5', 'ratelimit-remaining': '5', 'ratelimit-reset': '1' }), now)).toEqual(
        state(5, 5, 1000, undefined),
      );
    });

    it('draft 7: keys in any case and order, the window from the policy', () => {
      expect(readRateLimit(response({ ratelimit: 'Reset=2, REMAINING=1', 'ratelimit-policy': '10;w=60;comment="x"' }), now)).toEqual(
        state(10, 1, 2000, 60_000),
      );
    });

    it('seconds with a fraction are rounded up to the millisecond: a reset never comes sooner than announced', () => {
      expect(readRateLimit(response({ 'ratelimit-remaining': '1', 'ratelimit-reset': '0.0011' }), now)?.resetIn).toBe(2);
      expect(readRateLimit(response({ 'ratelimit-remaining': '1', 'ratelimit-reset': '0' }), now)?.resetIn).toBe(0);
    });

    it('reads both sides of both epoch bounds: seconds left below 10^9, epoch seconds below 10^12, epoch milliseconds from it', () => {
      const legacy = (reset: string) => readRateLimit(response({ 'x-ratelimit-remaining': '1', 'x-ratelimit-reset': reset }), 2e12);
      expect(legacy('999999999')?.resetIn).toBe(999_999_999_000);
      expect(legacy('1000000000')?.resetIn).toBe(0);
      // Below 10^12 a time since the epoch is in seconds (this one is in the year 33658, measured against a
      // clock there: a reset that far away is malformed), from 10^12 in milliseconds.
      const in33658 = readRateLimit(response({ 'x-ratelimit-remaining': '1', 'x-ratelimit-reset': '999999999999' }), 999_999_998_999_500);
      expect(in33658?.resetIn).toBe(999_500);
      expect(legacy('999999999999')).toBeUndefined();
      expect(legacy('1000000000000')?.resetIn).toBe(0);
      expect(legacy('2000000000500')?.resetIn).toBe(500);
      expect(legacy('2000000001')?.resetIn).toBe(1000);
    });

    it('uses the clock it is given, or the current time', () => {
      const reset = String(Math.floor(Date.now() / 1000) + 100);
      const resetIn = readRateLimit(response({ 'x-ratelimit-remaining': '1', 'x-ratelimit-reset': reset }))?.resetIn;
      expect(resetIn).toBeGreaterThan(98_000);
      expect(resetIn).toBeLessThanOrEqual(100_000);
    });
  });

  describe('the carriers', () => {
    const headers = { 'ratelimit-remaining': '4', 'ratelimit-reset': '2' };
    const expected = state(undefined, 4, 2000, undefined);
    const get = (name: string) => (headers as Record<string, string>)[name.toLowerCase()] ?? null;

    it("a fetch Response, an error carrying one (ky, ofetch), Angular's HttpResponse and HttpErrorResponse, axios' errors", () => {
      expect(readRateLimit(response(headers), now)).toEqual(expected);
      expect(readRateLimit({ name: 'HTTPError', response: response(headers, 429) }, now)).toEqual(expected);
      expect(readRateLimit({ status: 200, body: {}, headers: { get } }, now)).toEqual(expected);
      expect(readRateLimit({ name: 'HttpErrorResponse', status: 429, headers: { get } }, now)).toEqual(expected);
      expect(readRateLimit({ isAxiosError: true, response: { status: 429, headers: { get } } }, now)).toEqual(expected);
    });

    it.each([
      ['undefined', undefined],
      ['null', null],
      ['a number', 42],
      ['a body with no headers', { id: 1 }],
      ['headers without get()', { headers: { 'ratelimit-remaining': '4' } }],
      [
        'a get() that throws',
        {
          headers: {
            get: () => {
              throw new Error('no');
            },
          },
        },
      ],
      ['a get() that returns a number', { headers: { get: () => 4 } }],
      [
        'a throwing getter',
        Object.defineProperty({}, 'headers', {
          get: () => {
            throw new Error('no');
          },
        }),
      ],
      ['no rate-limit headers', response({ 'content-type': 'text/plain' })],
    ])('%s gives undefined, without throwing', (_, carrier) => {
      expect(readRateLimit(carrier, now)).toBeUndefined();
    });
  });

  describe('what is ignored', () => {
    it.each([
      ['a negative remaining', { 'ratelimit-remaining': '-1', 'ratelimit-reset': '1' }],
      ['a remaining in exponent form', { 'ratelimit-remaining': '1e3', 'ratelimit-reset': '1' }],
      ['a remaining in hex', { 'ratelimit-remaining': '0x10', 'ratelimit-reset': '1' }],
      ['a fractional remaining', { 'ratelimit-remaining': '1.5', 'ratelimit-reset': '1' }],
      ['an empty remaining', { 'ratelimit-remaining': '', 'ratelimit-reset': '1' }],
      ['a reset that is not a number', { 'ratelimit-remaining': '1', 'ratelimit-reset': 'soon' }],
      ['a negative reset', { 'ratelimit-remaining': '1', 'ratelimit-reset': '-1' }],
      ['a reset as a date', { 'ratelimit-remaining': '1', 'ratelimit-reset': 'Wed, 21 Oct 2015 07:28:00 GMT' }],
      ['no reset', { 'ratelimit-remaining': '1', 'ratelimit-limit': '5' }],
      ['no remaining', { 'ratelimit-limit': '5', 'ratelimit-reset': '1' }],
      ['more remaining than the limit', { 'ratelimit-limit': '5', 'ratelimit-remaining': '6', 'ratelimit-reset': '1' }],
      ['draft 7 with garbage', { ratelimit: 'limit=5, remaining=lots, reset=1' }],
      ['draft 7 with more remaining than the limit', { ratelimit: 'limit=5, remaining=6, reset=1' }],
      ['draft 8 with garbage', { ratelimit: '"a"; r=x; t=1' }],
      ['draft 8 with a fractional reset', { ratelimit: '"a"; r=1; t=0.5' }],
      ['draft 8 that is not a list', { ratelimit: '"a"; r=1; t=1,,' }],
      ['draft 8 with an unclosed string', { ratelimit: '"a; r=1; t=1' }],
      ['draft 8 with more remaining than its policy', { ratelimit: '"a"; r=9; t=1', 'ratelimit-policy': '"a"; q=5; w=1' }],
      ['legacy with garbage', { 'x-ratelimit-remaining': 'many', 'x-ratelimit-reset': '1' }],
      ['legacy without a reset', { 'x-ratelimit-remaining': '1', 'x-ratelimit-limit': '5' }],
      ['a reset with a unit', { 'ratelimit-remaining': '1', 'ratelimit-reset': '1s' }],
      ['draft 7 with a key and no value', { ratelimit: 'limit=5, remaining, reset=1' }],
    ])('%s', (_, headers) => {
      expect(readRateLimit(response(headers), now)).toBeUndefined();
    });

    describe('a value of hundreds of digits, which reads as Infinity', () => {
      const digits = '9'.repeat(400);
      it.each([
        ['a remaining', { 'ratelimit-remaining': digits, 'ratelimit-reset': '1' }],
        ['a reset', { 'ratelimit-remaining': '0', 'ratelimit-reset': digits }],
        ['a reset with a fraction', { 'ratelimit-remaining': '0', 'ratelimit-reset': `${digits}.5` }],
        ['a legacy reset (an epoch time in milliseconds)', { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': digits }],
        ["draft 7's reset", { ratelimit: `limit=5, remaining=0, reset=${digits}` }],
        ["draft 8's reset", { ratelimit: `"a"; r=0; t=${digits}` }],
        ["draft 8's remaining", { ratelimit: `"a"; r=${digits}; t=1` }],
      ])('%s is ignored, with the announcement it makes', (_, headers) => {
        expect(readRateLimit(response(headers), now)).toBeUndefined();
      });

      it('in the limit or the window, is left out, and the rest is read', () => {
        expect(readRateLimit(response({ 'ratelimit-limit': digits, 'ratelimit-remaining': '1', 'ratelimit-reset': '1' }), now)).toEqual(
          state(undefined, 1, 1000, undefined),
        );
        expect(readRateLimit(response({ ratelimit: '"a"; r=1; t=1', 'ratelimit-policy': `"a"; q=${digits}; w=${digits}` }), now)).toEqual(
          state(undefined, 1, 1000, undefined, 'a'),
        );
      });
    });

    it('a reset or a window of 10^12 ms (31 years) or more is malformed; one shorter is read, beyond what a timer holds too', () => {
      const reset = (value: string) => readRateLimit(response({ 'ratelimit-remaining': '0', 'ratelimit-reset': value }), now)?.resetIn;
      expect(reset('999999999.999')).toBe(999_999_999_999);
      expect(reset('1000000000')).toBeUndefined();
      // A month: longer than a timer can hold (2^31 - 1 ms), waited for in steps.
      expect(reset('2678400')).toBe(2_678_400_000);
      // An epoch reset that far away: in seconds or in milliseconds.
      const legacy = (value: number) =>
        readRateLimit(response({ 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': String(value) }), now)?.resetIn;
      expect(legacy(now + 999_999_999_999)).toBe(999_999_999_999);
      expect(legacy(now + 1e12)).toBeUndefined();
      expect(legacy(Math.ceil(now / 1000) + 1e9)).toBeUndefined();
      const windowOf = (w: string) =>
        readRateLimit(response({ 'ratelimit-remaining': '1', 'ratelimit-reset': '1', 'ratelimit-policy': `10;w=${w}` }), now)?.window;
      expect(windowOf('999999999')).toBe(999_999_999_000);
      expect(windowOf('1000000000')).toBeUndefined();
    });

    it('a field that is garbage is left out, and the rest is read', () => {
      expect(
        readRateLimit(
          response({ 'ratelimit-limit': 'many', 'ratelimit-remaining': '1', 'ratelimit-reset': '1', 'ratelimit-policy': 'x;w=y' }),
          now,
        ),
      ).toEqual(state(undefined, 1, 1000, undefined));
      expect(readRateLimit(response({ ratelimit: '"a"; r=1; t=1', 'ratelimit-policy': '"a"; q=five; w=1' }), now)).toEqual(
        state(undefined, 1, 1000, 1000, 'a'),
      );
    });

    it('whitespace around a value is not part of it', () => {
      expect(
        readRateLimit({ headers: { get: (name: string) => ({ 'RateLimit-Remaining': ' 3\t', 'RateLimit-Reset': ' 1 ' })[name] } }, now),
      ).toEqual(state(undefined, 3, 1000, undefined));
    });
  });
});

describe('isRateLimitState: what a reader of the caller may answer (contract §13)', () => {
  it('takes a reset shorter than 10^12 ms (31 years), and no longer', () => {
    expect(isRateLimitState({ remaining: 1, resetIn: 1e12 - 1 })).toBe(true);
    expect(isRateLimitState({ remaining: 1, resetIn: 1e12 })).toBe(false);
  });

  it('takes amounts from 0, finite: not a negative count, not Infinity, not a string', () => {
    expect(isRateLimitState({ remaining: 0, resetIn: 0 })).toBe(true);
    expect(isRateLimitState({ remaining: -1, resetIn: 10 })).toBe(false);
    expect(isRateLimitState({ remaining: 1, resetIn: -10 })).toBe(false);
    expect(isRateLimitState({ remaining: Infinity, resetIn: 10 })).toBe(false);
    expect(isRateLimitState({ remaining: '5', resetIn: 10 })).toBe(false);
  });
});

describe('readRateLimits: a reset in seconds is digits, with a fraction or not', () => {
  it.each(['1e3', '+5', 'in 5', '5.'])('ignores `X-RateLimit-Reset: %s`', (reset) => {
    expect(readRateLimits(response({ 'x-ratelimit-remaining': '3', 'x-ratelimit-reset': reset }), now)).toEqual([]);
  });

  it('reads `X-RateLimit-Reset: 2.5` as 2,500 ms', () => {
    expect(readRateLimits(response({ 'x-ratelimit-remaining': '3', 'x-ratelimit-reset': '2.5' }), now)).toEqual([
      state(undefined, 3, 2500, undefined),
    ]);
  });
});

describe('readRateLimits: a spent budget on an answer with `Retry-After` resets no later than it says', () => {
  // rate-limiter-flexible's README recipe: the reset in epoch seconds, rounded up (here 600 ms after
  // `now`), and `Retry-After` in seconds with a fraction, to the millisecond.
  const recipe = (remaining: string, retry: string | undefined) =>
    response(
      {
        'x-ratelimit-limit': '50',
        'x-ratelimit-remaining': remaining,
        'x-ratelimit-reset': '1796148224',
        ...(retry === undefined ? {} : { 'retry-after': retry }),
      },
      429,
    );

  it('takes a sooner `Retry-After` as the reset of a spent budget', () => {
    expect(readRateLimits(recipe('0', '0.123'), now)).toEqual([state(50, 0, 123, undefined)]);
  });

  it('keeps the announced reset when `Retry-After` is as late or later', () => {
    expect(readRateLimits(recipe('0', '0.6'), now)).toEqual([state(50, 0, 600, undefined)]);
    expect(readRateLimits(recipe('0', '0.601'), now)).toEqual([state(50, 0, 600, undefined)]);
    expect(readRateLimits(recipe('0', '2'), now)).toEqual([state(50, 0, 600, undefined)]);
  });

  it('takes `Retry-After` as an HTTP date too', () => {
    const date = new Date(Math.floor(now / 1000) * 1000).toUTCString();
    expect(readRateLimits(recipe('0', date), now)).toEqual([state(50, 0, 0, undefined)]);
  });

  it('leaves a budget with requests remaining as announced: the wait may be for another budget', () => {
    expect(readRateLimits(recipe('1', '0.123'), now)).toEqual([state(50, 1, 600, undefined)]);
  });

  it('leaves the reset as announced without a `Retry-After`, or with one it cannot read', () => {
    expect(readRateLimits(recipe('0', undefined), now)).toEqual([state(50, 0, 600, undefined)]);
    expect(readRateLimits(recipe('0', 'soon'), now)).toEqual([state(50, 0, 600, undefined)]);
  });

  it('brings forward only the spent budgets of several', () => {
    const headers = {
      ratelimit: '"burst"; r=0; t=1, "day"; r=0; t=80000, "hour"; r=5; t=3000',
      'ratelimit-policy': '"burst"; q=10; w=1, "day"; q=10000; w=86400, "hour"; q=100; w=3600',
      'retry-after': '0.5',
    };
    expect(readRateLimits(response(headers, 429), now)).toEqual([
      state(10, 0, 500, 1000, 'burst'),
      state(10000, 0, 500, 86_400_000, 'day'),
      state(100, 5, 3_000_000, 3_600_000, 'hour'),
    ]);
  });
});

describe('readRateLimits: a window of 10^9 seconds or more', () => {
  it('is left out, and the budget is read without it', () => {
    const headers = { 'ratelimit-limit': '5', 'ratelimit-remaining': '3', 'ratelimit-reset': '1' };
    expect(readRateLimits(response({ ...headers, 'ratelimit-policy': '5;w=1000000000' }), now)).toEqual([state(5, 3, 1000, undefined)]);
    expect(readRateLimits(response({ ...headers, 'ratelimit-policy': '5;w=999999999' }), now)).toEqual([
      state(5, 3, 1000, 999_999_999_000),
    ]);
  });
});
