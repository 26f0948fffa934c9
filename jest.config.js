/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: 'node',
  // The tests live in spec/ (by behaviour: unit/, operator/, contract/, perf/); the demo's beside it.
  roots: ['<rootDir>/spec', '<rootDir>/demo'],
  testMatch: ['**/*.spec.ts'],
  // An error that reaches RxJS's `config.onUnhandledError` fails the test it came from, unless expected.
  setupFilesAfterEnv: ['<rootDir>/spec/support/unhandled-errors.ts'],
  transform: {
    '^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.json' }],
  },
  // Sources import siblings as `./x.js` (what Node's ESM resolution needs after the build).
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
};
