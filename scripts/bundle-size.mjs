// Measures what rxjs-slow-start adds to an application bundle: bundles a one-line consumer of the
// built package (dist/esm, reached through its exports map, as an application would reach it), with
// rxjs left external because the application already pays for it, minified, then gzipped.
// Run `npm run build` first (`npm run size` does).
import { build } from 'esbuild';
import { existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
if (!existsSync(join(root, 'dist', 'esm', 'index.js'))) {
  console.error('dist/esm is missing: run `npm run build` first');
  process.exit(1);
}

// A scratch "application" whose node_modules holds this package, so that the import below goes
// through package.json's exports map and its sideEffects: false, exactly as for a user.
const app = mkdtempSync(join(tmpdir(), 'rxjs-slow-start-size-'));
mkdirSync(join(app, 'node_modules'));
symlinkSync(root, join(app, 'node_modules', 'rxjs-slow-start'), 'dir');

const entries = [
  ['slowStartBatch', "import { slowStartBatch } from 'rxjs-slow-start'; console.log(slowStartBatch);"],
  ['slowStart', "import { slowStart } from 'rxjs-slow-start'; console.log(slowStart);"],
  ['everything', "import * as all from 'rxjs-slow-start'; console.log(all);"],
];

try {
  console.log('import          minified  gzip');
  for (const [name, contents] of entries) {
    const result = await build({
      stdin: { contents, resolveDir: app, sourcefile: 'app.js', loader: 'js' },
      bundle: true,
      format: 'esm',
      platform: 'browser',
      target: 'es2020',
      minify: true,
      external: ['rxjs'],
      write: false,
      logLevel: 'error',
    });
    const code = result.outputFiles[0].contents;
    const gzip = gzipSync(code, { level: 9 }).length;
    console.log(`${name.padEnd(16)}${`${code.length} B`.padStart(8)}${`${gzip} B`.padStart(8)}`);
  }
} finally {
  rmSync(app, { recursive: true, force: true });
}
