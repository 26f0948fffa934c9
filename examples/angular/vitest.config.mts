// Vitest settings for `ng test` (Angular's @angular/build:unit-test builder reads this file through
// `runnerConfig` in angular.json and adds its own build of the specs). The tests run in a real
// headless Chromium, through Playwright, instead of jsdom.
import { playwright } from '@vitest/browser-playwright';
import { defineConfig } from 'vitest/config';
import { chromiumArgs, chromiumPath } from './scripts/chromium.mjs';

export default defineConfig({
  test: {
    browser: {
      enabled: true,
      headless: true,
      provider: playwright({ launchOptions: { executablePath: chromiumPath(), args: chromiumArgs } }),
      instances: [{ browser: 'chromium' }],
    },
  },
});
