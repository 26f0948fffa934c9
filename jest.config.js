/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/spec'],
  testMatch: ['**/*.spec.ts'],
  transform: {
    '^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.json' }],
  },
  // Sources import siblings as `./x.js` (what Node's ESM resolution needs after the build).
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
};
