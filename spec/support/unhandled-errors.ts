/**
 * Every test runs with an RxJS `config.onUnhandledError` that collects: an error with nowhere to go
 * that the test did not expect fails that test. Without it such an error is thrown from a timeout, which
 * fails whichever test runs when the timeout fires, or ends the process that runs the tests. A test
 * that expects one sets its own handler, or `null` to see it thrown (`errorsReportedLater`).
 */
import { config } from 'rxjs';

/** What reached the handler during the current test. */
let unexpected: unknown[] = [];
const collect = (error: unknown): void => {
  unexpected.push(error);
};

beforeEach(() => {
  unexpected = [];
  config.onUnhandledError = collect;
});

afterEach(() => {
  const errors = unexpected;
  unexpected = [];
  config.onUnhandledError = null;
  if (errors.length > 0) {
    throw new Error(
      `${errors.length} error(s) reached config.onUnhandledError that the test did not expect: ${errors.map(String).join('; ')}`,
    );
  }
});
