// @ts-check
// The repository's lint rules, for this app. ESLint uses the config nearest to each file, so the
// root's `npm run lint` reads this one for everything here: the root config, plus what the app adds.
import { defineConfig } from 'eslint/config';
import root from '../../eslint.config.mjs';

export default defineConfig(
  {
    // What ng build, ng test and npm run e2e write.
    ignores: ['dist/', 'out-tsc/', 'reports/', '.angular/', '**/__screenshots__/', '.vitest-attachments/'],
  },
  root,
  {
    // The end-to-end test and its server run on Node.
    files: ['e2e/**/*.mjs', 'scripts/**/*.mjs'],
    languageOptions: {
      globals: { AbortController: 'readonly', Buffer: 'readonly', URL: 'readonly', setTimeout: 'readonly', clearTimeout: 'readonly' },
    },
  },
  {
    files: ['src/**/*.ts'],
    rules: {
      // Angular's components, directives and modules are classes that a decorator gives their meaning.
      '@typescript-eslint/no-extraneous-class': ['error', { allowWithDecorator: true }],
    },
  },
);
