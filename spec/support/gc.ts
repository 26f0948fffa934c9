import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/**
 * V8's `gc()`, for the memory tests. With `node --expose-gc` it is a global already; otherwise the flag
 * is switched on now and a fresh context, which is created with it, hands the function over. Either way
 * the tests run the same under `npm test`, a bare `npx jest` and the mutation runner.
 */
export function exposedGc(): () => void {
  const existing = (globalThis as { gc?: () => void }).gc;
  if (typeof existing === 'function') return existing;
  setFlagsFromString('--expose-gc');
  return runInNewContext('gc') as () => void;
}
