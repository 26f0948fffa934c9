/**
 * Every test runs with an RxJS `config.onUnhandledError` that collects: an error with nowhere to go
 * that the test did not expect fails that test. Without it such an error is thrown from a timeout, which
 * fails whichever test runs when the timeout fires, or ends the process that runs the tests. A test
 * that expects one sets its own handler, or `null` to see it thrown (`errorsReportedLater`). The
 * handler stays between tests: an error that comes after its test has ended fails the next one, or the
 * file's last hook, rather than end the process.
 */
import { config } from 'rxjs';

/** What reached the handler since the last check. */
let unexpected: unknown[] = [];
const collect = (error: unknown): void => {
  unexpected.push(error);
};

function check(): void {
  config.onUnhandledError = collect;
  const errors = unexpected;
  unexpected = [];
  if (errors.length > 0) {
    throw new Error(
      `${errors.length} error(s) reached config.onUnhandledError that the test did not expect: ${errors.map(String).join('; ')}`,
    );
  }
}

config.onUnhandledError = collect;
beforeEach(() => {
  config.onUnhandledError = collect;
});
afterEach(check);
afterAll(check);
