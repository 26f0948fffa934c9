const { createCjsPreset } = require('jest-preset-angular/presets');

/** @type {import('jest').Config} */
module.exports = {
  ...createCjsPreset({ tsconfig: '<rootDir>/tsconfig.json' }),
  // The preset's own jsdom environment, on the `jsdom` installed here (no jest-environment-jsdom).
  testEnvironment: 'jest-preset-angular/environments/jest-jsdom-env',
  setupFilesAfterEnv: ['<rootDir>/setup-jest.ts'],
  roots: ['<rootDir>/src'],
  moduleNameMapper: {
    // One rxjs for everything. `rxjs-slow-start` is installed from `file:../..`, a symlink to the
    // repository root; jest follows it, so a plain `require('rxjs')` from the package's dist/ would
    // find the root's own node_modules/rxjs (its dev dependency), a second copy next to the one
    // Angular uses. Two copies still interoperate through Symbol.observable, but `instanceof
    // Observable` and shared config silently break, which no real app (with one rxjs) would see.
    '^rxjs$': '<rootDir>/node_modules/rxjs',
    '^rxjs/(.*)$': '<rootDir>/node_modules/rxjs/$1',
  },
};
