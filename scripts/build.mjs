// Builds dist/esm (ES modules) and dist/cjs (CommonJS) from src/ with two plain tsc runs.
// Each half gets a one-line package.json that tells Node how to read its .js files; the root
// package.json has no "type", so without them Node would load dist/esm as CommonJS.
import { execFileSync } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const dist = join(root, 'dist');
const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc');

// A file deleted from src/ must not survive in dist/ from an earlier build.
rmSync(dist, { recursive: true, force: true });

const halves = [
  { config: 'tsconfig.build.json', dir: 'esm', type: 'module' },
  { config: 'tsconfig.build.cjs.json', dir: 'cjs', type: 'commonjs' },
];
for (const { config, dir, type } of halves) {
  execFileSync(process.execPath, [tsc, '-p', join(root, config)], { stdio: 'inherit' });
  mkdirSync(join(dist, dir), { recursive: true });
  writeFileSync(join(dist, dir, 'package.json'), `${JSON.stringify({ type }, null, 2)}\n`);
}
console.log('built dist/esm and dist/cjs');
