// Measures what rxjs-slow-start adds to an application bundle: bundles a one-line consumer of the
// built package (dist/esm, reached through its exports map, as an application would reach it), with
// rxjs left external because the application already pays for it, minified, then gzipped.
// Run `npm run build` first (`npm run size` does).
//
// With `--write` it also rewrites the table of README.md's "Bundle cost" with what it measured
// (`npm run size -- --write`); with `--check` it fails, naming both figures, when that table differs
// from what it measured (CI runs `node scripts/bundle-size.mjs --check` after building dist/).
import { build } from 'esbuild';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const mode = process.argv.includes('--write') ? 'write' : process.argv.includes('--check') ? 'check' : 'print';
const readmePath = join(root, 'README.md');
if (!existsSync(join(root, 'dist', 'esm', 'index.js'))) {
  console.error('dist/esm is missing: run `npm run build` first');
  process.exit(1);
}

// A scratch "application" whose node_modules holds this package, so that the import below goes
// through package.json's exports map and its sideEffects: false, exactly as for a user.
const app = mkdtempSync(join(tmpdir(), 'rxjs-slow-start-size-'));
mkdirSync(join(app, 'node_modules'));
symlinkSync(root, join(app, 'node_modules', 'rxjs-slow-start'), 'dir');

// [name printed, label in the README's table, the application's code]
const entries = [
  ['slowStartBatch', '`{ slowStartBatch }`', "import { slowStartBatch } from 'rxjs-slow-start'; console.log(slowStartBatch);"],
  ['slowStart', '`{ slowStart }`', "import { slowStart } from 'rxjs-slow-start'; console.log(slowStart);"],
  ['everything', 'everything', "import * as all from 'rxjs-slow-start'; console.log(all);"],
];
const measured = [];

try {
  console.log('import          minified  gzip');
  for (const [name, label, contents] of entries) {
    const result = await build({
      stdin: { contents, resolveDir: app, sourcefile: 'app.js', loader: 'js' },
      bundle: true,
      format: 'esm',
      platform: 'browser',
      target: 'es2022',
      minify: true,
      external: ['rxjs'],
      write: false,
      logLevel: 'error',
    });
    const code = result.outputFiles[0].contents;
    const gzip = gzipSync(code, { level: 9 }).length;
    console.log(`${name.padEnd(16)}${`${code.length} B`.padStart(8)}${`${gzip} B`.padStart(8)}`);
    measured.push({ label, minified: code.length, gzip });
  }
} finally {
  rmSync(app, { recursive: true, force: true });
}

if (mode !== 'print') {
  const readme = readFileSync(readmePath, 'utf8');
  const lines = readme.split('\n');
  const start = lines.findIndex((line) => /^\|\s*import\s*\|\s*minified\s*\|\s*gzip\s*\|\s*$/.test(line));
  if (start === -1) fail('README.md has no table with the columns | import | minified | gzip |');
  let end = start + 2;
  while (end < lines.length && lines[end].startsWith('|')) end++;
  if (mode === 'write') {
    lines.splice(start, end - start, ...table(measured));
    writeFileSync(readmePath, lines.join('\n'));
    console.log(`README.md: bundle-size table rewritten (lines ${start + 1} to ${start + 2 + measured.length})`);
  } else {
    const documented = new Map();
    for (const line of lines.slice(start + 2, end)) {
      const cells = line
        .split('|')
        .slice(1, -1)
        .map((cell) => cell.trim());
      documented.set(cells[0], { minified: bytes(cells[1]), gzip: bytes(cells[2]) });
    }
    const differences = [];
    for (const row of measured) {
      const figures = documented.get(row.label);
      if (!figures) {
        differences.push(`${row.label}: no row in README.md, measured ${format(row.minified)} minified, ${format(row.gzip)} gzip`);
        continue;
      }
      for (const column of ['minified', 'gzip']) {
        if (figures[column] !== row[column]) {
          differences.push(`${row.label} ${column}: README.md says ${format(figures[column])}, measured ${format(row[column])}`);
        }
      }
      documented.delete(row.label);
    }
    for (const label of documented.keys()) differences.push(`${label}: in README.md, but not measured`);
    if (differences.length > 0) {
      fail(
        `README.md's bundle-size table is out of date:\n${differences.map((line) => `- ${line}`).join('\n')}\n` +
          'Regenerate it with `npm run size -- --write`.',
      );
    }
    console.log("README.md's bundle-size table matches what was measured");
  }
}

/** The README's table, aligned as prettier aligns it. */
function table(rows) {
  const cells = [['import', 'minified', 'gzip'], ...rows.map((row) => [row.label, format(row.minified), format(row.gzip)])];
  const widths = [0, 1, 2].map((column) => Math.max(3, ...cells.map((row) => row[column].length)));
  const line = (row) => `| ${row.map((cell, column) => cell.padEnd(widths[column])).join(' | ')} |`;
  return [line(cells[0]), `| ${widths.map((width) => '-'.repeat(width)).join(' | ')} |`, ...cells.slice(1).map(line)];
}

/** 8070 as "8,070 B", the README's way of writing bytes. */
function format(count) {
  return `${count.toLocaleString('en-US')} B`;
}

/** "8,070 B" as 8070; NaN for anything else. */
function bytes(text) {
  return /^[\d,]+ B$/.test(text ?? '') ? Number(text.slice(0, -2).replace(/,/g, '')) : NaN;
}

function fail(message) {
  console.error(`bundle-size: ${message}`);
  process.exit(1);
}
