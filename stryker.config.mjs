// Mutation testing of src/ with StrykerJS: `npm run mutation` prints the mutation score.
// What it skips is named in stryker/shortcuts.mjs (an ignorer plugin) and listed in MUTATION.md, with
// the survivors judged equivalent, each with its reason.
/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  packageManager: 'npm',
  mutate: ['src/**/*.ts'],
  testRunner: 'jest',
  plugins: ['@stryker-mutator/jest-runner', './stryker/shortcuts.mjs'],
  ignorers: ['shortcuts'],
  jest: {
    projectType: 'custom',
    configFile: 'jest.config.js',
    config: {
      // Left out, to keep a run under an hour on two cores: the leak test (it measures the whole
      // process's heap; spec/perf/retention.spec.ts checks the same thing faster), the demo's tests
      // (they test the demo's own code) and the stack tests (a million tasks each; `npm test` runs
      // them). Left out because it cannot judge a mutant: the architecture spec (it reads src/ as
      // text, which Stryker rewrites with its mutants: no mutant of behaviour can make it fail, and
      // the instrumented functions are longer than it allows).
      testPathIgnorePatterns: [
        '/node_modules/',
        '/spec/contract/architecture\\.spec\\.ts$',
        '/spec/perf/leak\\.spec\\.ts$',
        '/demo/demo\\.spec\\.ts$',
        '/spec/perf/stack\\.spec\\.ts$',
      ],
    },
    enableFindRelatedTests: false,
  },
  // The mutants are written into src/ itself and restored at the end, so run it on a clean work tree.
  // This began when the tests read Kubernetes' cases from ../shared, which a sandbox copy in
  // .stryker-tmp could not reach; they now read spec/fixtures/, so a sandbox would work too, but the
  // score in MUTATION.md was measured in place.
  inPlace: true,
  // Only the mutated sources get `// @ts-nocheck`: the README's Angular recipe is checked to be the
  // example's files verbatim, and the example is not mutated.
  disableTypeChecks: 'src/**/*.ts',
  // Each mutant runs only the tests that reach it.
  coverageAnalysis: 'perTest',
  // Two cores: one test process per core at most.
  concurrency: 2,
  timeoutMS: 5000,
  reporters: ['clear-text', 'progress', 'html', 'json'],
  htmlReporter: { fileName: 'reports/mutation/index.html' },
  jsonReporter: { fileName: 'reports/mutation/mutation.json' },
  thresholds: { high: 90, low: 80, break: null },
  incremental: true,
  incrementalFile: 'reports/stryker-incremental.json',
};
