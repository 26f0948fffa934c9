/** Runs one scenario, named on the command line, and reports its result to the parent (see child.mts). */
import { performance } from 'node:perf_hooks';
import { reportToParent } from './child.mjs';
import { scenarios } from './scenarios/index.mjs';

const name = process.argv[2];
const scenario = scenarios.find((candidate) => candidate.name === name);
if (!scenario) throw new Error(`scenario-child.mts: no scenario named ${String(name)}`);
if (!(globalThis as { gc?: unknown }).gc) throw new Error('scenario-child.mts needs node --expose-gc');

const start = performance.now();
const result = await scenario.run();
reportToParent({ ...result, seconds: (performance.now() - start) / 1000 });
