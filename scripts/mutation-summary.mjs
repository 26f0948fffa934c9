// `node scripts/mutation-summary.mjs [report.json ...]`: the tables of MUTATION.md, from the JSON reports of
// `npm run mutation` (reports/mutation/mutation.json by default): the score, the score of each file,
// every mutant skipped by name (stryker/shortcuts.mjs) with its reason, and every mutant left undetected.
import { readFileSync } from 'node:fs';
import { shortcuts } from '../stryker/shortcuts.mjs';

// Several reports (of runs over parts of src/) are read as one.
const reportPaths = process.argv.length > 2 ? process.argv.slice(2) : ['reports/mutation/mutation.json'];
const report = { files: Object.assign({}, ...reportPaths.map((path) => JSON.parse(readFileSync(path, 'utf8')).files)) };

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
/**
 * The mutant's line as the mutant has it: the replacement in place of the code it mutates. Stryker's
 * replacement alone can mislead: `false` may stand for one side of a condition, not the whole of it.
 */
const mutatedLine = (lines, { location: { start, end }, replacement = '' }) => {
  const first = lines[start.line - 1] ?? '';
  const rest = start.line === end.line ? first.slice(end.column - 1) : ' …';
  return `${first.slice(0, start.column - 1)}${replacement.split('\n')[0]}${rest}`;
};
const table = (header, rows) =>
  [`| ${header.join(' | ')} |`, `| ${header.map(() => '---').join(' | ')} |`, ...rows.map((row) => `| ${row.join(' | ')} |`)].join('\n');

const totals = { detected: 0, survived: 0, noCoverage: 0, ignored: 0, errors: 0 };
const perFile = [];
/** The name in stryker/shortcuts.mjs whose reason a skipped mutant carries. */
const skippedName = (reason) => Object.keys(shortcuts).find((name) => shortcuts[name] === reason) ?? '(not in stryker/shortcuts.mjs)';
/** Mutants skipped by name, by file and name: `where` -> { mutators, count, reason }. */
const ignored = new Map();
const undetected = [];
for (const [path, file] of Object.entries(report.files).sort(([a], [b]) => a.localeCompare(b))) {
  const lines = file.source.split('\n');
  const counts = { detected: 0, survived: 0, noCoverage: 0, ignored: 0 };
  for (const mutant of file.mutants) {
    const { line } = mutant.location.start;
    const where = `${path.replace(/^src\//, '')}:${line}`;
    const skippedAs = `${path.replace(/^src\//, '')} \`${skippedName(mutant.statusReason)}\``;
    if (detectedStatuses.has(mutant.status)) counts.detected++;
    else if (mutant.status === 'Survived') counts.survived++;
    else if (mutant.status === 'NoCoverage') counts.noCoverage++;
    else if (mutant.status === 'Ignored') counts.ignored++;
    else totals.errors++;
    if (mutant.status === 'Ignored') {
      const entry = ignored.get(skippedAs) ?? { mutators: new Set(), count: 0, reason: mutant.statusReason ?? '' };
      entry.mutators.add(mutant.mutatorName);
      entry.count++;
      ignored.set(skippedAs, entry);
    }
    if (undetectedStatuses.has(mutant.status)) {
      undetected.push([where, mutant.status, mutant.mutatorName, code(lines[line - 1] ?? '', 80), code(mutatedLine(lines, mutant), 80)]);
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
    `${totals.survived} survived, ${totals.noCoverage} without coverage. ${totals.ignored} more are skipped ` +
    `by name (stryker/shortcuts.mjs) and ${totals.errors} did not compile or crashed the runner. Counted ` +
    `strictly, every skipped mutant as undetected: **${percent(totals.detected, valid + totals.ignored)}** ` +
    `(${totals.detected} of ${valid + totals.ignored}).`,
);
console.log(`\n${table(['File', 'Valid mutants', 'Detected', 'Survived', 'No coverage', 'Skipped by name'], perFile)}`);
const ignoredRows = [...ignored].map(([where, { mutators, count, reason }]) => [where, count, [...mutators].join(', '), cell(reason, 130)]);
console.log(`\n### Skipped by name (${totals.ignored} mutants in ${ignored.size} places)\n`);
console.log(table(['Where', 'Mutants', 'Mutators', 'Why'], ignoredRows));
console.log(`\n### Undetected (${undetected.length})\n`);
console.log(undetected.length === 0 ? 'None.' : table(['Where', 'Status', 'Mutator', 'Line', 'As the mutant has it'], undetected));
