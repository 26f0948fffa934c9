/**
 * Simulated latency for the pacing scenarios: seeded log-normal latencies, and runs on RxJS's
 * `VirtualTimeScheduler`, where a task that "takes" 50 ms costs no wall-clock time and the makespan is
 * read off the virtual clock.
 */
import { VirtualTimeScheduler, type Observable } from 'rxjs';

/** mulberry32: a small, fast PRNG, so that every side of a comparison sees the same latencies. */
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

/**
 * `count` latencies in ms, log-normal with the given median and sigma (of the underlying normal), drawn
 * with Box-Muller from a PRNG seeded with `seed`: the same arguments always give the same latencies.
 */
export function logNormalLatencies(count: number, { median, sigma, seed }: { median: number; sigma: number; seed: number }): number[] {
  const random = seededRandom(seed);
  const latencies: number[] = [];
  for (let i = 0; i < count; i++) {
    const u1 = 1 - random(); // in (0, 1]: log() stays finite
    const u2 = random();
    const normal = Math.sqrt(-2 * Math.log(u1)) * Math.cos(2 * Math.PI * u2);
    latencies.push(median * Math.exp(sigma * normal));
  }
  return latencies;
}

/** How a run on the virtual clock ended. */
export interface VirtualRun {
  /** Virtual ms on the clock once the scheduler has nothing left to run. */
  makespan: number;
  /** Virtual ms at which the stream completed or errored. */
  ended: number;
  completed: boolean;
  error: unknown;
  /** Values the stream emitted. */
  values: number;
}

/**
 * Subscribes to what `build` returns, flushes the scheduler, and reads the virtual clock. Throws when the
 * stream neither completed nor errored once nothing was left scheduled (a hang).
 */
export function runVirtual<T>(scheduler: VirtualTimeScheduler, build: () => Observable<T>, onValue?: (value: T) => void): VirtualRun {
  let completed = false;
  let errored = false;
  let error: unknown;
  let values = 0;
  let end = NaN;
  const subscription = build().subscribe({
    next: (value) => {
      values++;
      onValue?.(value);
    },
    error: (e: unknown) => {
      errored = true;
      error = e;
      end = scheduler.now();
    },
    complete: () => {
      completed = true;
      end = scheduler.now();
    },
  });
  scheduler.flush();
  subscription.unsubscribe();
  if (!completed && !errored)
    throw new Error(`runVirtual(): the stream neither completed nor errored (virtual time ${scheduler.now()} ms)`);
  return { makespan: scheduler.now(), ended: end, completed, error, values };
}
