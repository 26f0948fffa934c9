/**
 * `npm run bench [-- NAME...]`: runs the named scenarios (all of them when none is named), each in a
 * process of its own, prints the figures and the targets, and, after a run of all the scenarios, rewrites
 * BENCHMARKS.md.
 */
import { writeFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { resolve } from 'node:path';
import { repoRoot, runChild } from './child.mjs';
import type { ScenarioResult } from './harness.mjs';
import { consoleReport, describeEnvironment, markdownReport } from './report.mjs';
import { scenarios } from './scenarios/index.mjs';

const names = process.argv.slice(2);
if (names.includes('--help') || names.includes('-h')) {
  console.log(`Usage: npm run bench [-- NAME...]\n\nScenarios: ${scenarios.map((s) => s.name).join(', ')}`);
  process.exit(0);
}
const unknown = names.filter((name) => !scenarios.some((scenario) => scenario.name === name));
if (unknown.length > 0) {
  console.error(`Unknown scenario ${unknown.join(', ')}. Scenarios: ${scenarios.map((s) => s.name).join(', ')}`);
  process.exit(2);
}
const selected = names.length === 0 ? scenarios : scenarios.filter((scenario) => names.includes(scenario.name));

// Read before the scenarios load the machine: the load average says how busy it was already.
const environment = describeEnvironment();
console.log(`Node ${environment.node} on ${environment.cpu}; load average ${environment.loadAverage}`);

const start = performance.now();
const results: ScenarioResult[] = [];
for (const scenario of selected) {
  console.log(`\n> ${scenario.name}: ${scenario.title}`);
  results.push(await runChild<ScenarioResult>('scenario-child.mts', [scenario.name]));
}
const totalSeconds = (performance.now() - start) / 1000;

console.log(consoleReport(results));
const targets = results.flatMap((result) => result.targets);
console.log(`\n${targets.filter((target) => target.met).length} of ${targets.length} targets met in ${totalSeconds.toFixed(0)} s.`);

if (selected.length === scenarios.length) {
  writeFileSync(resolve(repoRoot, 'BENCHMARKS.md'), markdownReport(results, environment, totalSeconds));
  console.log('BENCHMARKS.md rewritten.');
} else {
  console.log('BENCHMARKS.md left as it is: only a full run (no scenario names) rewrites it.');
}
