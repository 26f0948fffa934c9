/**
 * The default of `retry.when` (src/retry/failure-kind.ts), alone: the status read from each shape HTTP
 * clients fail with, and the kind §14 gives each status.
 */
import { classifyFailure, httpStatus } from '../../src/retry/failure-kind';
import { HttpError, isNotOkResponse, type NotOkResponse } from '../../src/http-error';

/** The shapes a failure with `status` and `headers` takes, client by client. */
function shapes(status: number, headers: Record<string, string> = {}): [string, unknown][] {
  // A Response cannot have status 0 (no answer): Angular and the others can.
  const response = status >= 200 ? new Response(null, { status, headers }) : { status, ok: false as const, headers: new Headers(headers) };
  return [
    ['a fetch Response, thrown', response],
    ['an HttpError, as a task that returned a Response that is not ok fails', new HttpError(response as NotOkResponse)],
    [
      "Angular's HttpErrorResponse",
      Object.assign(new Error('Http failure'), { name: 'HttpErrorResponse', status, headers: new Headers(headers) }),
    ],
    ['axios (error.response.status)', Object.assign(new Error('Request failed'), { response: { status, headers: new Headers(headers) } })],
    ['ky (error.response, a Response)', Object.assign(new Error('Request failed'), { name: 'HTTPError', response })],
    [
      'got (error.response.statusCode)',
      Object.assign(new Error('Response code'), { response: { statusCode: status, headers: new Headers(headers) } }),
    ],
  ];
}

describe('httpStatus', () => {
  it.each(shapes(422))('reads 422 from %s', (_, error) => {
    expect(httpStatus(error)).toBe(422);
  });

  it.each([
    ['a plain Error', new Error('boom')],
    ['a string', '503'],
    ['null', null],
    ['a status that is not an HTTP status', { status: 600 }],
    ['a status that is not an integer', { status: 42.5 }],
    ['a status as a string', { status: '503' }],
    [
      'a getter that throws',
      Object.defineProperty({}, 'status', {
        get: () => {
          throw new Error('no');
        },
      }),
    ],
  ])('reads nothing from %s', (_, error) => {
    expect(httpStatus(error)).toBeUndefined();
  });
});

describe('classifyFailure', () => {
  const now = Date.UTC(2026, 0, 1);

  describe.each([
    [429, {}, { kind: 'throttle', retryAfter: undefined }],
    [429, { 'Retry-After': '3' }, { kind: 'throttle', retryAfter: 3_000 }],
    [429, { RateLimit: 'limit=10, remaining=0, reset=7' }, { kind: 'throttle', retryAfter: 7_000 }],
    [503, { 'Retry-After': '2' }, { kind: 'throttle', retryAfter: 2_000 }],
    [503, {}, { kind: 'transient' }],
    [502, {}, { kind: 'transient' }],
    [504, {}, { kind: 'transient' }],
    [0, {}, { kind: 'transient' }],
    [400, {}, { kind: 'fatal' }],
    [401, {}, { kind: 'fatal' }],
    [403, {}, { kind: 'fatal' }],
    [404, {}, { kind: 'fatal' }],
    [422, {}, { kind: 'fatal' }],
    [500, {}, { kind: 'fatal' }],
  ] as const)('%d %p', (status, headers, kind) => {
    it.each(shapes(status, headers))('from %s', (_, error) => {
      expect(classifyFailure(error, now)).toEqual(kind);
    });
  });

  it('takes a request that got no answer for transient, from fetch in Node and browsers, undici, Node and timeouts', () => {
    const noAnswers = [
      new TypeError('fetch failed', { cause: Object.assign(new Error('other side closed'), { code: 'UND_ERR_SOCKET' }) }),
      new TypeError('Failed to fetch'),
      new TypeError('NetworkError when attempting to fetch resource.'),
      new TypeError('Load failed'),
      Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' }),
      Object.assign(new Error('connect ETIMEDOUT'), { code: 'ETIMEDOUT' }),
      Object.assign(new Error('Network Error'), { code: 'ERR_NETWORK' }),
      new DOMException('The operation timed out.', 'TimeoutError'),
    ];
    for (const error of noAnswers) expect([String(error), classifyFailure(error, now)]).toEqual([String(error), { kind: 'transient' }]);
  });

  it.each([
    'ECONNRESET',
    'ECONNREFUSED',
    'ECONNABORTED',
    'ETIMEDOUT',
    'EPIPE',
    'EAI_AGAIN',
    'ENETUNREACH',
    'EHOSTUNREACH',
    'UND_ERR_CONNECT_TIMEOUT',
    'UND_ERR_HEADERS_TIMEOUT',
    'UND_ERR_BODY_TIMEOUT',
    'UND_ERR_SOCKET',
    'UND_ERR_CLOSED',
    'ERR_NETWORK',
  ])('takes the network error code %s for no answer, on the error and on its cause', (code) => {
    expect(classifyFailure(Object.assign(new Error('request failed'), { code }), now)).toEqual({ kind: 'transient' });
    expect(classifyFailure(new Error('wrapped', { cause: Object.assign(new Error('request failed'), { code }) }), now)).toEqual({
      kind: 'transient',
    });
  });

  it('looks for a code through three causes, no further, and not at a code that is not a string', () => {
    const causes = (depth: number): unknown => {
      let error: unknown = Object.assign(new Error('deepest'), { code: 'ECONNRESET' });
      for (let level = 0; level < depth; level++) error = new Error(`level ${level}`, { cause: error });
      return error;
    };
    expect(classifyFailure(causes(3), now)).toEqual({ kind: 'transient' });
    expect(classifyFailure(causes(4), now)).toEqual({ kind: 'fatal' });
    expect(classifyFailure(Object.assign(new Error('odd'), { code: 42 }), now)).toEqual({ kind: 'fatal' });
    expect(classifyFailure(Object.assign(new Error('other'), { code: 'ENOENT' }), now)).toEqual({ kind: 'fatal' });
  });

  it("reads fetch's TypeError by its message, in any case, and a timeout by its name alone", () => {
    expect(classifyFailure(new TypeError('FETCH FAILED'), now)).toEqual({ kind: 'transient' });
    expect(classifyFailure(new TypeError('a network change was detected'), now)).toEqual({ kind: 'transient' });
    expect(classifyFailure(new TypeError('Load Failed'), now)).toEqual({ kind: 'transient' });
    // The same words on an error that is not a TypeError are not fetch's.
    expect(classifyFailure(new Error('fetch failed'), now)).toEqual({ kind: 'fatal' });
    expect(classifyFailure({ name: 'TimeoutError' }, now)).toEqual({ kind: 'transient' });
    expect(classifyFailure({ name: 'AbortError' }, now)).toEqual({ kind: 'fatal' });
  });

  it('reads statuses from 0 to 599 only', () => {
    expect(httpStatus({ status: 0 })).toBe(0);
    expect(httpStatus({ status: 599 })).toBe(599);
    expect(httpStatus({ status: -1 })).toBeUndefined();
    expect(httpStatus({ status: 600 })).toBeUndefined();
    // The first place that holds a status wins, in the order the clients keep it.
    expect(httpStatus({ status: 429, response: { status: 500 } })).toBe(429);
    expect(httpStatus({ statusCode: 429, response: { status: 500 } })).toBe(500);
    expect(httpStatus({ statusCode: 429, response: { statusCode: 500 } })).toBe(429);
    expect(httpStatus({ status: 'x', statusCode: 429 })).toBe(429);
    // Only objects carry a status: a function with one is not an error a client threw.
    expect(httpStatus(Object.assign(() => undefined, { status: 429 }))).toBeUndefined();
    expect(
      classifyFailure(
        Object.assign(() => undefined, { status: 429 }),
        now,
      ),
    ).toEqual({ kind: 'fatal' });
  });

  it("a 429's pushback is the latest reset among the budgets it announces spent, none of those with tries left", () => {
    const refused = (rateLimit: string, policy: string) =>
      new Response(null, { status: 429, headers: { RateLimit: rateLimit, 'RateLimit-Policy': policy } });
    expect(classifyFailure(refused('"burst"; r=0; t=2, "day"; r=0; t=9', '"burst"; q=10; w=1, "day"; q=100; w=86400'), now)).toEqual({
      kind: 'throttle',
      retryAfter: 9_000,
    });
    expect(classifyFailure(refused('"burst"; r=0; t=9, "day"; r=0; t=2', '"burst"; q=10; w=1, "day"; q=100; w=86400'), now)).toEqual({
      kind: 'throttle',
      retryAfter: 9_000,
    });
    expect(classifyFailure(refused('"burst"; r=0; t=2, "day"; r=5; t=9', '"burst"; q=10; w=1, "day"; q=100; w=86400'), now)).toEqual({
      kind: 'throttle',
      retryAfter: 2_000,
    });
    expect(classifyFailure(refused('"burst"; r=3; t=2', '"burst"; q=10; w=1'), now)).toEqual({ kind: 'throttle', retryAfter: undefined });
  });

  it('reads Retry-After against the clock when no time is given', () => {
    const inTenSeconds = new Date(Date.now() + 10_000).toUTCString();
    const verdict = classifyFailure(new Response(null, { status: 429, headers: { 'Retry-After': inTenSeconds } }));
    expect(verdict.kind).toBe('throttle');
    expect((verdict as { retryAfter: number }).retryAfter).toBeGreaterThan(8_000);
    expect((verdict as { retryAfter: number }).retryAfter).toBeLessThanOrEqual(10_000);
  });

  it('takes anything else for fatal: a bug, an abort of the run, a TypeError of other code', () => {
    const others = [
      new Error('a bug'),
      new DOMException('aborted', 'AbortError'),
      new TypeError('x is not a function'),
      'a string',
      undefined,
    ];
    for (const error of others) expect(classifyFailure(error, now)).toEqual({ kind: 'fatal' });
  });
});

describe('isNotOkResponse and HttpError', () => {
  it('knows a response that is not ok by its numeric status and `ok: false`, and nothing else', () => {
    expect(isNotOkResponse(new Response(null, { status: 500 }))).toBe(true);
    expect(isNotOkResponse({ status: 404, ok: false })).toBe(true);
    expect(isNotOkResponse(new Response(null, { status: 200 }))).toBe(false);
    expect(isNotOkResponse({ status: '404', ok: false })).toBe(false);
    expect(isNotOkResponse({ status: 404 })).toBe(false);
    expect(isNotOkResponse(null)).toBe(false);
    expect(
      isNotOkResponse(
        Object.defineProperty({}, 'ok', {
          get: () => {
            throw new Error('no');
          },
        }),
      ),
    ).toBe(false);
  });

  it('names the status, its text and the address in its message', () => {
    expect(new HttpError({ status: 422, ok: false, statusText: 'Unprocessable Content', url: 'http://127.0.0.1/api' }).message).toBe(
      'HTTP 422 Unprocessable Content from http://127.0.0.1/api',
    );
    expect(new HttpError({ status: 503, ok: false, statusText: '', url: '' }).message).toBe('HTTP 503');
    expect(new HttpError({ status: 502, ok: false, url: 'http://127.0.0.1/api' }).message).toBe('HTTP 502 from http://127.0.0.1/api');
    expect(new HttpError({ status: 429, ok: false, statusText: 'Too Many Requests' }).message).toBe('HTTP 429 Too Many Requests');
    const odd = { status: 500, ok: false, statusText: 7, url: {} } as unknown as NotOkResponse;
    const error = new HttpError(odd);
    expect([error.message, error.name, error.status, error.response]).toEqual(['HTTP 500', 'HttpError', 500, odd]);
    expect(error).toBeInstanceOf(Error);
  });

  it('takes only `ok: false` itself, with a numeric status, for a response that is not ok', () => {
    expect(isNotOkResponse({ status: 404, ok: 0 })).toBe(false);
    expect(isNotOkResponse({ status: 404, ok: 'false' })).toBe(false);
    expect(isNotOkResponse({ status: 404, ok: true })).toBe(false);
    expect(isNotOkResponse('{ status: 404, ok: false }')).toBe(false);
    expect(isNotOkResponse(undefined)).toBe(false);
    expect(isNotOkResponse(Object.assign(() => undefined, { status: 404, ok: false }))).toBe(false);
  });
});
