// A fake rate-limited API, so that the demo needs no server: each call takes a random time, and
// once the quota of accepted calls is used up every further call fails like an HTTP 429 would.

/** The error of a call made after the quota ran out, shaped like an HTTP client's 429 error. */
export class QuotaExceededError extends Error {
  readonly status = 429;

  constructor(
    /** 0-based, like {@link CallResult.callNumber}: the message counts calls from 1 ("call 21" is `callNumber` 20). */
    readonly callNumber: number,
    readonly quota: number,
  ) {
    super(`429 Too Many Requests: call ${callNumber + 1} is over the quota of ${quota} calls`);
    this.name = 'QuotaExceededError';
  }
}

export interface SimulatedApiOptions {
  /** Calls accepted before the API starts answering 429; the call numbered `quota` (0-based) is the first to fail. */
  quota: number;
  /** Typical latency in ms; each call takes a random time between half and one and a half of it. */
  latencyMs: number;
  /** Source of randomness in [0, 1); pass `seededRandom(seed)` for a repeatable run. */
  random: () => number;
  /**
   * If set, latencies are log-normal instead: `latencyMs` is their median and this their σ
   * (0.25: fairly even; 1: a few calls ten times slower than the median).
   */
  spread?: number;
}

export interface CallResult {
  /** 0-based number of this call among all calls the API received. */
  callNumber: number;
  /** How long the call took, as drawn from the latency distribution. */
  latencyMs: number;
}

export interface SimulatedApi {
  /** Makes one call; it settles after its latency, or rejects with the signal's reason on abort. */
  call(signal?: AbortSignal): Promise<CallResult>;
  /** Calls received so far, accepted or not. */
  readonly callsMade: number;
  /** Calls answered with a 429 so far. */
  readonly callsRejected: number;
}

export function createSimulatedApi({ quota, latencyMs, random, spread }: SimulatedApiOptions): SimulatedApi {
  let callsMade = 0;
  let callsRejected = 0;

  function call(signal?: AbortSignal): Promise<CallResult> {
    // The quota is charged when the request arrives, as real rate limiters do, so the outcome of
    // a call depends only on how many calls came before it, not on which one finishes first.
    const callNumber = callsMade++;
    const overQuota = callNumber >= quota;
    // The n-th call always takes the n-th latency drawn, so two runs with the same seed that call
    // in the same order (both pacings start tasks in source order) see the same latencies.
    const latency = spread === undefined ? latencyMs * (0.5 + random()) : latencyMs * Math.exp(spread * standardNormal(random));

    return new Promise<CallResult>((resolve, reject) => {
      if (signal?.aborted) {
        reject(signal.reason);
        return;
      }
      const onAbort = () => {
        clearTimeout(timer);
        reject(signal?.reason);
      };
      const timer = setTimeout(() => {
        signal?.removeEventListener('abort', onAbort);
        if (overQuota) {
          callsRejected++;
          reject(new QuotaExceededError(callNumber, quota));
        } else {
          resolve({ callNumber, latencyMs: latency });
        }
      }, latency);
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }

  return {
    call,
    get callsMade() {
      return callsMade;
    },
    get callsRejected() {
      return callsRejected;
    },
  };
}

/**
 * A small seeded generator (mulberry32): the same seed gives the same sequence of numbers in
 * [0, 1), which is all a demo needs to repeat a run's latencies. Not for anything secret.
 */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A standard normal draw from two uniform ones (Box-Muller). */
export function standardNormal(random: () => number): number {
  const u = 1 - random(); // in (0, 1], so the logarithm is finite
  const v = random();
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
}
