// §10's pushback reader (retryAfter): both forms of Retry-After, the carriers it is read from, and
// both sides of every bound.
import { retryAfter } from '../../src/retry/retry-after';

const now = Date.UTC(2015, 9, 21, 7, 28, 0); // Wed, 21 Oct 2015 07:28:00 GMT
const longestWait = 2 ** 31 - 1;

/** A fetch Response, as fetch() gives it and as ky's or ofetch's errors carry it. */
const response = (value: string) => new Response(null, { status: 429, headers: { 'Retry-After': value } });
/** The shape of Angular's HttpErrorResponse: `headers` is an HttpHeaders, read through get(). */
const angularError = (value: string | null) => ({ name: 'HttpErrorResponse', status: 429, headers: { get: () => value } });
/** The value as the server sent it, untouched (fetch's Headers trims whitespace itself). */
const after = (value: string) => retryAfter(angularError(value), now);

describe('retryAfter (contract §10)', () => {
  describe('delta-seconds', () => {
    it('reads whole seconds as milliseconds', () => {
      expect(after('120')).toBe(120_000);
      expect(after('1')).toBe(1000);
      expect(after('007')).toBe(7000);
    });

    it('reads 0 as 0: retry now', () => {
      expect(after('0')).toBe(0);
    });

    it('ignores the whitespace around the value, not inside it', () => {
      expect(after(' 120\t')).toBe(120_000);
      expect(after('1 20')).toBeUndefined();
    });

    // What rate-limiter-flexible's README has servers send: `msBeforeNext / 1000`.
    it('reads decimal seconds as milliseconds', () => {
      expect(after('9.967')).toBe(9967);
      expect(after('0.5')).toBe(500);
      expect(after('1.25')).toBe(1250);
      expect(after('120.0')).toBe(120_000);
      expect(after('007.100')).toBe(7100);
      expect(after(' 9.967\t')).toBe(9967);
      expect(retryAfter(response('9.967'))).toBe(9967);
    });

    it('reads the digits themselves, not a binary fraction: 0.007 is 7 ms, not 8', () => {
      // 0.007 * 1000 is 7.000000000000001 in floating point, which would round up to 8.
      expect(after('0.007')).toBe(7);
      expect(after('1.001')).toBe(1001);
      expect(after('4.35')).toBe(4350);
    });

    it('rounds a fraction of a millisecond up, and only a fraction', () => {
      expect(after('9.9670')).toBe(9967);
      expect(after('9.96700000')).toBe(9967);
      expect(after('9.9670001')).toBe(9968);
      expect(after('9.9671')).toBe(9968);
      expect(after('9.9679')).toBe(9968);
      expect(after('9.968')).toBe(9968);
      expect(after(`9.967${'0'.repeat(30)}1`)).toBe(9968);
      expect(after('9.9999')).toBe(10_000);
    });

    it('reads a zero fraction as 0, and the smallest one above it as 1 ms', () => {
      expect(after('0.0')).toBe(0);
      expect(after('0.000')).toBe(0);
      expect(after('0.0000')).toBe(0);
      expect(after('0.0001')).toBe(1);
      expect(after('0.001')).toBe(1);
      expect(after('0.0011')).toBe(2);
    });

    it('refuses what is not a non-negative decimal number with digits on both sides of its point', () => {
      for (const value of [
        '-1',
        '-0.5',
        '+5',
        '+0.5',
        '1e3',
        '1.5e3',
        '0x10',
        '.5',
        '10.',
        '.',
        '1.2.3',
        '1,5',
        '1. 5',
        '1 .5',
        '١',
        '',
        ' ',
        'soon',
        '120s',
        'Infinity',
        'NaN',
      ]) {
        expect([value, after(value)]).toEqual([value, undefined]);
      }
    });

    it('caps a huge value at the longest delay a timer can have, and stays finite', () => {
      expect(after('2147483')).toBe(2_147_483_000);
      expect(after('2147484')).toBe(longestWait);
      expect(after('2147483.646')).toBe(longestWait - 1);
      expect(after('2147483.6461')).toBe(longestWait);
      expect(after('2147483.647')).toBe(longestWait);
      expect(after('2147483.648')).toBe(longestWait);
      expect(after(`${'9'.repeat(400)}.5`)).toBe(longestWait);
      expect(after('99999999999999999999999')).toBe(longestWait);
      expect(after('9'.repeat(400))).toBe(longestWait);
    });
  });

  describe('HTTP-date', () => {
    it('reads an IMF-fixdate as the time until then', () => {
      expect(after('Wed, 21 Oct 2015 07:30:00 GMT')).toBe(120_000);
      expect(after('Wed, 21 Oct 2015 07:28:01 GMT')).toBe(1000);
      expect(retryAfter(angularError('Wed, 21 Oct 2015 07:28:00 GMT'), now - 1)).toBe(1);
    });

    it('reads the date now or in the past as 0: retry now', () => {
      expect(after('Wed, 21 Oct 2015 07:28:00 GMT')).toBe(0);
      expect(after('Wed, 21 Oct 2015 07:27:59 GMT')).toBe(0);
      expect(after('Thu, 01 Jan 1970 00:00:00 GMT')).toBe(0);
    });

    it('measures against Date.now() by default', () => {
      const inOneHour = new Date(Date.now() + 3_600_000).toUTCString(); // an IMF-fixdate
      expect(retryAfter(angularError(inOneHour))).toBeGreaterThan(3_590_000);
      expect(retryAfter(angularError(inOneHour))).toBeLessThanOrEqual(3_600_000);
    });

    it('reads the two obsolete forms a recipient must accept (RFC 9110 §5.6.7)', () => {
      expect(after('Wednesday, 21-Oct-15 07:30:00 GMT')).toBe(120_000);
      expect(after('Wed Oct 21 07:30:00 2015')).toBe(120_000);
      expect(retryAfter(angularError('Sun Nov  6 08:49:37 1994'), Date.UTC(1994, 10, 6, 8, 49, 36))).toBe(1000);
    });

    it('reads a two-digit year as at most 50 years ahead', () => {
      expect(after('Tuesday, 21-Oct-65 07:28:00 GMT')).toBe(longestWait); // 2065: far ahead
      expect(after('Friday, 21-Oct-66 07:28:00 GMT')).toBe(0); // 1966
      const in2099 = Date.UTC(2099, 11, 31, 23, 59, 0);
      expect(retryAfter(angularError('Friday, 01-Jan-00 00:00:00 GMT'), in2099)).toBe(60_000); // 2100
      expect(retryAfter(angularError('Thursday, 31-Dec-99 23:59:30 GMT'), in2099)).toBe(30_000);
    });

    // Found by mutation testing: every name of the three forms, each one a second ahead of `now`.
    it('reads every day and month name, in each of the three forms', () => {
      const dayNames = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat']; // Date's getUTCDay() order
      const longDayNames = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];
      const monthNames = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
      const two = (n: number) => String(n).padStart(2, '0');
      for (let monthIndex = 0; monthIndex < 12; monthIndex++) {
        // The first seven days of each month of 2016: every month, and every day of the week.
        for (let dayOfMonth = 1; dayOfMonth <= 7; dayOfMonth++) {
          const date = new Date(Date.UTC(2016, monthIndex, dayOfMonth, 8, 49, 37));
          const [monthName, dayName, longDayName] = [monthNames[monthIndex], dayNames[date.getUTCDay()], longDayNames[date.getUTCDay()]];
          const forms = [
            `${dayName}, ${two(dayOfMonth)} ${monthName} 2016 08:49:37 GMT`,
            `${longDayName}, ${two(dayOfMonth)}-${monthName}-16 08:49:37 GMT`,
            `${dayName} ${monthName} ${String(dayOfMonth).padStart(2, ' ')} 08:49:37 2016`,
          ];
          for (const value of forms) {
            expect([value, retryAfter(angularError(value), date.getTime() - 1000)]).toEqual([value, 1000]);
          }
        }
      }
    });

    it('refuses a date without its day name', () => {
      expect(after(', 21 Oct 2015 07:30:00 GMT')).toBeUndefined();
      expect(after(', 21-Oct-15 07:30:00 GMT')).toBeUndefined();
      expect(after(' Oct 21 07:30:00 2015')).toBeUndefined();
    });

    it('reads a two-digit year exactly 50 years ahead as ahead, and one more as in the past', () => {
      // In 2070, "20" is 2120 (50 years ahead), "21" is 2021 (2121 would be 51 ahead), "19" is 2119.
      const in2070 = Date.UTC(2070, 5, 15);
      expect(retryAfter(angularError('Monday, 01-Jan-20 00:00:00 GMT'), in2070)).toBe(longestWait);
      expect(retryAfter(angularError('Friday, 01-Jan-21 00:00:00 GMT'), in2070)).toBe(0);
      expect(retryAfter(angularError('Sunday, 01-Jan-19 00:00:00 GMT'), in2070)).toBe(longestWait);
    });

    it('reads a leap second as the first second of the next minute', () => {
      expect(after('Wed, 21 Oct 2015 07:29:60 GMT')).toBe(120_000);
      expect(retryAfter(angularError('Thu, 31 Dec 2015 23:59:60 GMT'), Date.UTC(2015, 11, 31, 23, 59))).toBe(60_000);
    });

    it('caps a date far ahead at the longest delay a timer can have', () => {
      expect(after('Fri, 31 Dec 9999 23:59:59 GMT')).toBe(longestWait);
    });

    it('refuses a date that does not exist or is not in an HTTP-date form', () => {
      for (const value of [
        'Wed, 31 Feb 2015 07:28:00 GMT', // no 31 February
        'Wed, 21 Oct 2015 24:00:00 GMT',
        'Wed, 21 Oct 2015 07:60:00 GMT',
        'Wed, 21 Oct 2015 07:28:61 GMT',
        'Wed, 21 Oct 2015 07:28:00 UTC',
        'Wed, 21 Oct 2015 07:28:00 +0000',
        'wed, 21 oct 2015 07:28:00 gmt', // the names are case-sensitive
        'Wed, 21 October 2015 07:28:00 GMT',
        'Wed, 1 Oct 2015 07:28:00 GMT',
        '2015-10-21T07:30:00Z',
        'Wed, 21 Oct 2015',
        'Wednesday, 21-Oct-2015 07:28:00 GMT',
      ]) {
        expect(after(value)).toBeUndefined();
      }
    });
  });

  describe('carriers', () => {
    it("reads Angular's HttpErrorResponse through headers.get()", () => {
      expect(retryAfter(angularError('120'))).toBe(120_000);
    });

    it('reads a fetch Response, and an error carrying one, through Headers', () => {
      expect(retryAfter(response('120'))).toBe(120_000);
      expect(retryAfter(Object.assign(new Error('Too Many Requests'), { response: response('120') }))).toBe(120_000);
      // fetch's Headers are case-insensitive, whatever case the server used.
      expect(retryAfter(new Response(null, { headers: { 'retry-after': '3' } }))).toBe(3000);
    });

    it("falls back to the response's headers when the error's own have no Retry-After", () => {
      expect(retryAfter({ headers: new Headers(), response: response('120') })).toBe(120_000);
      expect(retryAfter({ headers: new Headers({ 'Retry-After': '1' }), response: response('120') })).toBe(1000);
    });

    it('calls get() on its headers, as Headers requires', () => {
      const headers = new Headers({ 'Retry-After': '5' });
      expect(retryAfter({ headers })).toBe(5000);
    });

    it('gives undefined when there is no Retry-After', () => {
      expect(retryAfter(angularError(null))).toBeUndefined();
      expect(retryAfter(new Response(null, { status: 429 }))).toBeUndefined();
      expect(retryAfter({ headers: { get: () => undefined } })).toBeUndefined();
      expect(retryAfter({ headers: { get: () => 120 } })).toBeUndefined(); // not a header value
      expect(retryAfter({ headers: { 'Retry-After': '120' } })).toBeUndefined(); // no get()
      expect(retryAfter({ headers: { get: 'Retry-After' } })).toBeUndefined();
    });

    it('gives undefined, never throws, for what carries no headers', () => {
      for (const error of [undefined, null, 0, 429, '120', Symbol('x'), new Error('x'), {}, [], () => 1, { response: null }]) {
        expect(retryAfter(error)).toBeUndefined();
      }
    });

    it('gives undefined, never throws, when reading the headers throws', () => {
      const throwing = () => {
        throw new Error('unreadable');
      };
      expect(retryAfter({ headers: { get: throwing } })).toBeUndefined();
      expect(
        retryAfter(
          Object.defineProperty({}, 'headers', {
            get: throwing,
          }),
        ),
      ).toBeUndefined();
      expect(retryAfter(new Proxy({}, { get: throwing }))).toBeUndefined();
      // The response is still read when the error's own headers throw.
      expect(retryAfter({ headers: { get: throwing }, response: response('2') })).toBe(2000);
    });
  });
});
