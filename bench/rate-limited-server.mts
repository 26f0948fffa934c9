/**
 * A simulated API behind a token-bucket rate limit, on RxJS's `VirtualTimeScheduler`: many clients share
 * one server and one virtual clock, and the server answers 429 with a `Retry-After` when the bucket is
 * empty. Used by the many-clients scenario.
 */
import { defer, map, throwError, timer, type Observable, type SchedulerLike } from 'rxjs';
import { seededRandom } from './virtual-time.mjs';

/**
 * The error a throttled request fails with: status 429 and a `Retry-After` header in whole seconds, read
 * through `headers.get()` like Angular's `HttpErrorResponse` or a fetch `Response`.
 */
export class TooManyRequestsError extends Error {
  readonly status = 429;
  readonly headers: { get(name: string): string | null };

  constructor(readonly retryAfterSeconds: number) {
    super(`429 Too Many Requests (Retry-After: ${retryAfterSeconds})`);
    this.name = 'TooManyRequestsError';
    this.headers = { get: (name) => (name.toLowerCase() === 'retry-after' ? String(retryAfterSeconds) : null) };
  }
}

export function is429(error: unknown): boolean {
  return (error as { status?: unknown } | null)?.status === 429;
}

/**
 * A seeded stream of log-normal latencies in ms (Box-Muller over mulberry32): one stream per client, so
 * that a client's n-th request always takes the same time, whichever side makes it.
 */
export function logNormalSource({ median, sigma, seed }: { median: number; sigma: number; seed: number }): () => number {
  const random = seededRandom(seed);
  return () => {
    const u1 = 1 - random(); // in (0, 1]: log() stays finite
    const u2 = random();
    return median * Math.exp(sigma * Math.sqrt(-2 * Math.log(u1)) * Math.cos(2 * Math.PI * u2));
  };
}

export interface ServerOptions {
  /** Requests per second the bucket refills with. */
  rate: number;
  /** Tokens the bucket holds; it starts full. */
  burst: number;
}

/**
 * One server for every client. The bucket is checked when a request is made (on subscription to the
 * request's observable): a token there is a request accepted, whose value arrives after the request's
 * latency, and none is a request throttled, answered at once as real limiters answer (before the work):
 * a `TooManyRequestsError` whose `Retry-After` is the seconds until the bucket next holds a token,
 * rounded up to a whole second (as HTTP requires, so at least 1).
 */
export class RateLimitedServer {
  accepted = 0;
  throttled = 0;
  /** Virtual ms of every throttled request, in order. */
  readonly throttledAt: number[] = [];
  /** Virtual ms of the last accepted request. */
  lastAccepted = 0;
  private tokens: number;
  private refilledAt: number;

  constructor(
    private readonly scheduler: SchedulerLike,
    readonly options: ServerOptions,
  ) {
    this.tokens = options.burst;
    this.refilledAt = scheduler.now();
  }

  /** A request that resolves to `value` after `latency()` ms, or fails at once with a 429. */
  request<T>(value: T, latency: () => number): Observable<T> {
    return defer(() => {
      const retryAfter = this.admit();
      if (retryAfter !== undefined) return throwError(() => new TooManyRequestsError(retryAfter));
      return timer(latency(), this.scheduler).pipe(map(() => value));
    });
  }

  /** Takes a token: `undefined` when there was one, else the Retry-After in whole seconds. */
  private admit(): number | undefined {
    const now = this.scheduler.now();
    const { rate, burst } = this.options;
    this.tokens = Math.min(burst, this.tokens + ((now - this.refilledAt) * rate) / 1000);
    this.refilledAt = now;
    if (this.tokens >= 1) {
      this.tokens -= 1;
      this.accepted++;
      this.lastAccepted = now;
      return undefined;
    }
    this.throttled++;
    this.throttledAt.push(now);
    return Math.max(1, Math.ceil((1 - this.tokens) / rate));
  }
}
