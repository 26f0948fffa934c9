// The wait of one try for the `limiter` option: asked before the try's factory is called, again after
// each wait it answers, on the run's scheduler.
import type { Cancellable, RunnerHost } from '../host.js';
import { expected } from '../expected.js';
import type { StartLimiter } from '../start-limiter.js';
import { MAX_TIMER_DELAY } from '../timer-limit.js';

/**
 * Asks `limiter` for a start until it grants one, then calls `go`; a throw, a rejection or an answer
 * that is no wait calls `fail` instead. Cancelling it stops asking: a start granted after that is not
 * used.
 */
export function waitForLimiter(
  limiter: StartLimiter,
  host: Pick<RunnerHost<unknown>, 'schedule'>,
  go: () => void,
  fail: (reason: unknown) => void,
): Cancellable {
  /** Set once the try is torn down, or once it has gone or failed. */
  let done = false;
  /** The wait before asking again, if one is under way. */
  let timer: Cancellable | undefined;
  const answered = (wait: unknown): void => {
    if (done) return;
    if (typeof wait !== 'number' || !(wait >= 0)) {
      done = true;
      fail(new TypeError(expected('limiter.take()', 'answering 0 or the milliseconds to wait, or a promise of them', wait)));
    } else if (wait === 0) {
      done = true;
      go();
    } else {
      timer = host.schedule(ask, Math.min(wait, MAX_TIMER_DELAY));
    }
  };
  const failed = (reason: unknown): void => {
    if (done) return;
    done = true;
    fail(reason);
  };
  function ask(): void {
    timer = undefined;
    // Read as unknown: a user's JavaScript may answer anything.
    let answer: unknown;
    try {
      answer = limiter.take();
    } catch (reason) {
      failed(reason);
      return;
    }
    const then = typeof answer === 'object' && answer !== null ? (answer as { then?: unknown }).then : undefined;
    if (typeof then === 'function') (then as PromiseLike<unknown>['then']).call(answer, answered, failed);
    else answered(answer);
  }
  ask();
  return {
    unsubscribe: () => {
      done = true;
      timer?.unsubscribe();
    },
  };
}
