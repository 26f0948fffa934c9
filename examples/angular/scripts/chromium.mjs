// The Chromium that the unit tests and the end-to-end test run in: the system's, never one downloaded
// by a package. CHROME_BIN wins; otherwise Debian's `chromium` package (apt-get install chromium).
// /usr/bin/chromium is a wrapper script that reads /etc/chromium.d; the binary itself is launched.
import { existsSync } from 'node:fs';

const candidates = ['/usr/lib/chromium/chromium', '/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome'];

/** @returns {string} the path of the Chromium executable */
export function chromiumPath() {
  const fromEnv = process.env.CHROME_BIN;
  if (fromEnv) {
    if (!existsSync(fromEnv)) throw new Error(`CHROME_BIN is ${fromEnv}, which does not exist`);
    return fromEnv;
  }
  const found = candidates.find((path) => existsSync(path));
  if (!found) {
    throw new Error(`No Chromium found (looked for ${candidates.join(', ')}): apt-get install chromium, or set CHROME_BIN`);
  }
  return found;
}

/**
 * Flags for a headless run on a machine without outside network: nothing in the background tries to
 * phone home. (Playwright adds --no-sandbox itself, which running as root needs.)
 */
export const chromiumArgs = ['--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'];
