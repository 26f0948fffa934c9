// `node scripts/mutation-summary.mjs [report.json]`: the tables of MUTATION.md, from the JSON report of
// `npm run mutation` (reports/mutation/mutation.json by default): the score, the score of each file,
// every mutant marked as equivalent in the code with its reason, and every mutant left undetected.
import { readFileSync } from 'node:fs';

const reportPath = process.argv[2] ?? 'reports/mutation/mutation.json';
const report = JSON.parse(readFileSync(reportPath, 'utf8'));

const detectedStatuses = new Set(['Killed', 'Timeout']);
const undetectedStatuses = new Set(['Survived', 'NoCoverage']);

/** A table cell: code in backticks, pipes escaped, cut to `width` characters. */
const cell = (text, width = 90) => {
  const flat = text.replace(/\s+/g, ' ').trim();
  const cut = flat.length > width ? `${flat.slice(0, width - 1)}…` : flat;
  return cut.replaceAll('|', '\\|');
};
const code = (text, width) => `\`${cell(text, width)}\``;
const percent = (detected, valid) => (valid === 0 ? 'n/a' : `${((100 * detected) / valid).toFixed(1)} %`);
const table = (header, rows) =>
  [`| ${header.join(' | ')} |`, `| ${header.map(() => '---').join(' | ')} |`, ...rows.map((row) => `| ${row.join(' | ')} |`)].join('\n');

const totals = { detected: 0, survived: 0, noCoverage: 0, ignored: 0, errors: 0 };
const perFile = [];
/** Mutants marked as equivalent, by line and reason: `where` -> { mutators, count, reason }. */
const ignored = new Map();
const undetected = [];
for (const [path, file] of Object.entries(report.files).sort(([a], [b]) => a.localeCompare(b))) {
  const lines = file.source.split('\n');
  const counts = { detected: 0, survived: 0, noCoverage: 0, ignored: 0 };
  for (const mutant of file.mutants) {
    const { line } = mutant.location.start;
    const where = `${path.replace(/^src\//, '')}:${line}`;
    if (detectedStatuses.has(mutant.status)) counts.detected++;
    else if (mutant.status === 'Survived') counts.survived++;
    else if (mutant.status === 'NoCoverage') counts.noCoverage++;
    else if (mutant.status === 'Ignored') counts.ignored++;
    else totals.errors++;
    if (mutant.status === 'Ignored') {
      const entry = ignored.get(where) ?? { mutators: new Set(), count: 0, reason: mutant.statusReason ?? '' };
      entry.mutators.add(mutant.mutatorName);
      entry.count++;
      ignored.set(where, entry);
    }
    if (undetectedStatuses.has(mutant.status)) {
      undetected.push([where, mutant.status, mutant.mutatorName, code(mutant.replacement ?? '', 50), code(lines[line - 1] ?? '', 80)]);
    }
  }
  totals.detected += counts.detected;
  totals.survived += counts.survived;
  totals.noCoverage += counts.noCoverage;
  totals.ignored += counts.ignored;
  const valid = counts.detected + counts.survived + counts.noCoverage;
  perFile.push([`\`${path}\``, valid, percent(counts.detected, valid), counts.survived, counts.noCoverage, counts.ignored]);
}

const valid = totals.detected + totals.survived + totals.noCoverage;
console.log(
  `**${percent(totals.detected, valid)}** of ${valid} valid mutants detected (killed or timed out): ` +
    `${totals.survived} survived, ${totals.noCoverage} without coverage. ${totals.ignored} more are marked ` +
    `as equivalent in the code and ${totals.errors} did not compile or crashed the runner; neither is counted.`,
);
console.log(`\n${table(['File', 'Valid mutants', 'Detected', 'Survived', 'No coverage', 'Marked equivalent'], perFile)}`);
const ignoredRows = [...ignored].map(([where, { mutators, count, reason }]) => [where, count, [...mutators].join(', '), cell(reason, 130)]);
console.log(`\n### Marked as equivalent (${totals.ignored} mutants on ${ignored.size} lines)\n`);
console.log(table(['Where', 'Mutants', 'Mutators', 'Why'], ignoredRows));
console.log(`\n### Undetected (${undetected.length})\n`);
console.log(undetected.length === 0 ? 'None.' : table(['Where', 'Status', 'Mutator', 'Replacement', 'Line'], undetected));
