// `node scripts/apply-mutants.mjs REPORT.json CHECKOUT SPEC...`: each mutant of a Stryker JSON report
// applied by hand. Every mutant of the chosen statuses (`STATUS`, comma-separated: Survived and NoCoverage
// by default; Timeout for those Stryker counted detected because a run did not end) is written into its
// file in CHECKOUT, the SPEC files run with jest in a process of their own, and the file restored. Prints
// one line per mutant: KILLED when the specs failed (or ran past `MUTANT_SECONDS`, 150 by default), else
// SURVIVED. `ONLY` (comma-separated) keeps the files whose path holds one of its parts.
//
// Why by hand: a static mutant (one that acts while its module loads) is run by `--ignoreStatic` with the
// specs that cover it, in a process that loaded the module before the mutant could act, and reported
// survived; and a timeout on a loaded machine may be a run that was only slow. Run it in a checkout of
// the commit the report was made on, not this one: it rewrites files in CHECKOUT's `src/`.
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const [reportPath, checkout, ...specs] = process.argv.slice(2);
if (reportPath === undefined || checkout === undefined || specs.length === 0) {
  console.error(
    'Usage: [STATUS=Survived,NoCoverage] [ONLY=part,...] [MUTANT_SECONDS=150] node scripts/apply-mutants.mjs REPORT.json CHECKOUT SPEC...',
  );
  process.exit(2);
}
const statuses = (process.env.STATUS ?? 'Survived,NoCoverage').split(',');
const only = process.env.ONLY?.split(',');
/** A mutant whose specs run longer than this counts as killed: its run does not end. */
const SECONDS = Number(process.env.MUTANT_SECONDS ?? 150);
if (!(SECONDS > 0)) {
  console.error(`MUTANT_SECONDS must be a number of seconds above 0, got ${JSON.stringify(process.env.MUTANT_SECONDS)}`);
  process.exit(2);
}

const report = JSON.parse(readFileSync(reportPath, 'utf8'));
for (const [file, { mutants }] of Object.entries(report.files)) {
  if (only !== undefined && !only.some((part) => file.includes(part))) continue;
  const path = join(checkout, file);
  const original = readFileSync(path, 'utf8');
  const lineStarts = [0];
  for (const line of original.split('\n')) lineStarts.push(lineStarts.at(-1) + line.length + 1);
  const offset = ({ line, column }) => lineStarts[line - 1] + column - 1;
  try {
    for (const mutant of mutants) {
      if (!statuses.includes(mutant.status)) continue;
      const { start, end } = mutant.location;
      writeFileSync(path, original.slice(0, offset(start)) + mutant.replacement + original.slice(offset(end)));
      // `timeout` kills the whole process group: jest's workers too, not only the process it started.
      const run = spawnSync('timeout', ['-s', 'KILL', String(SECONDS), 'node_modules/.bin/jest', '--silent', ...specs], {
        cwd: checkout,
        encoding: 'utf8',
      });
      const what = mutant.replacement.replace(/\s+/g, ' ').slice(0, 80);
      console.log(`${run.status === 0 ? 'SURVIVED' : 'KILLED  '} ${file}:${start.line} ${mutant.mutatorName}: ${what}`);
    }
  } finally {
    writeFileSync(path, original);
  }
}
