// @ts-check
// Lint rules: ESLint's recommended set for every file; for TypeScript, typescript-eslint's strictest
// type-aware set plus eslint-plugin-rxjs-x's recommended RxJS rules (leaked subscriptions, unsafe
// operators, ignored observables ...). Formatting is prettier's job, not ESLint's.
import js from '@eslint/js';
import { defineConfig } from 'eslint/config';
import rxjsX from 'eslint-plugin-rxjs-x';
import tseslint from 'typescript-eslint';

export default defineConfig(
  {
    ignores: ['dist/', 'docs/api/', 'coverage/', 'reports/', '.stryker-tmp/', '**/node_modules/'],
  },
  js.configs.recommended,
  {
    // Build and measurement scripts, and tool configs, run on Node.
    files: ['**/*.{js,mjs,cjs}'],
    languageOptions: {
      ecmaVersion: 2022,
      globals: { console: 'readonly', process: 'readonly' },
    },
  },
  {
    files: ['**/*.cjs', 'jest.config.js'],
    languageOptions: { sourceType: 'commonjs', globals: { module: 'writable', require: 'readonly' } },
  },
  {
    files: ['**/*.ts'],
    extends: [tseslint.configs.strictTypeChecked, rxjsX.configs.recommended],
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      // Messages here state counts and sizes ("3 of 8 tasks failed"); a number in a template is the
      // point, not an accident. Other non-strings (objects, undefined) are still reported.
      '@typescript-eslint/restrict-template-expressions': ['error', { allowNumber: true }],
      // `(value) => subscriber.next(value)` is how RxJS code is written; braces would add noise, and
      // void returned from a shorthand arrow is never used by the callers here.
      '@typescript-eslint/no-confusing-void-expression': ['error', { ignoreArrowShorthand: true }],
      // Passing on a caught value or an abort reason (typed unknown or any) forwards a failure rather
      // than inventing a non-Error, as only-throw-error already allows by default for `throw`.
      '@typescript-eslint/prefer-promise-reject-errors': ['error', { allowThrowingAny: true, allowThrowingUnknown: true }],
    },
  },
  {
    // The contract says a task fails on any rejection reason or thrown value, undefined and null
    // included (§4), so the tests throw and reject non-Errors on purpose, and build async sources
    // from async generators that need no await.
    files: ['spec/**/*.ts', '**/*.spec.ts'],
    rules: {
      '@typescript-eslint/only-throw-error': 'off',
      '@typescript-eslint/prefer-promise-reject-errors': 'off',
      'rxjs-x/throw-error': 'off',
      '@typescript-eslint/require-await': 'off',
      // jest types its asymmetric matchers (expect.objectContaining ...) as `any` by design.
      '@typescript-eslint/no-unsafe-assignment': 'off',
      // In a test a wrong non-null assumption throws and fails the test, which is what an explicit
      // check would do. Redundant assertions are still reported (no-unnecessary-type-assertion).
      '@typescript-eslint/no-non-null-assertion': 'off',
    },
  },
);
