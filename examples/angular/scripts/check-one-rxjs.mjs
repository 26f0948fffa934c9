// Proves that the built application holds exactly one copy of rxjs, and that rxjs-slow-start is
// installed as a packed package, not linked. Reads the esbuild metafile that `ng build --stats-json`
// writes (npm run build) and fails if the modules bundled from rxjs come from more than one
// node_modules folder, as they do when the library is linked with a plain `file:../..` (its imports
// then resolve to the repository root's own node_modules/rxjs).
import { execFileSync } from 'node:child_process';
import { lstatSync, readFileSync, readdirSync, existsSync } from 'node:fs';
import { join, relative } from 'node:path';

const here = join(import.meta.dirname, '..');
const statsPath = join(here, 'dist/bulk-create/stats.json');
if (!existsSync(statsPath)) {
  console.error(`${relative(process.cwd(), statsPath)} is missing: run npm run build (ng build --stats-json) first`);
  process.exit(1);
}
const { outputs } = JSON.parse(readFileSync(statsPath, 'utf8'));
const problems = [];

// Every module that went into a JavaScript output, by the package folder it came from.
const bundled = new Set(Object.entries(outputs).flatMap(([file, output]) => (file.endsWith('.js') ? Object.keys(output.inputs) : [])));
const copiesOf = (name) => {
  const roots = new Map();
  for (const path of bundled) {
    const at = path.lastIndexOf(`node_modules/${name}/`);
    if (at < 0) continue;
    const root = path.slice(0, at + `node_modules/${name}`.length);
    roots.set(root, (roots.get(root) ?? 0) + 1);
  }
  return roots;
};

const rxjs = copiesOf('rxjs');
const library = copiesOf('rxjs-slow-start');
for (const [name, roots] of [
  ['rxjs', rxjs],
  ['rxjs-slow-start', library],
]) {
  if (roots.size !== 1) {
    problems.push(`expected one copy of ${name} in the bundle, found ${roots.size}: ${[...roots.keys()].join(', ') || 'none'}`);
  }
}

// The library as `npm pack` makes it: a folder of its own (not a link) holding exactly the packed files.
const installed = join(here, 'node_modules/rxjs-slow-start');
const linked = lstatSync(installed).isSymbolicLink();
if (linked) problems.push('node_modules/rxjs-slow-start is a link, not an installed package');
const listFiles = (dir) =>
  readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile())
    .map((entry) => relative(dir, join(entry.parentPath, entry.name)))
    .sort();
const packed = JSON.parse(
  execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: join(here, '../..'), encoding: 'utf8' }),
)[0]
  .files.map((file) => file.path)
  .sort();
const installedFiles = linked ? [] : listFiles(installed);
if (!linked && installedFiles.join('\n') !== packed.join('\n')) {
  const some = (files) => (files.length === 0 ? 'none' : files.slice(0, 5).join(', ') + (files.length > 5 ? ', ...' : ''));
  const missing = some(packed.filter((file) => !installedFiles.includes(file)));
  const extra = some(installedFiles.filter((file) => !packed.includes(file)));
  problems.push(
    `node_modules/rxjs-slow-start differs from npm pack of the repository (missing: ${missing}; extra: ${extra}): npm ci again`,
  );
}

if (problems.length > 0) {
  console.error(problems.join('\n'));
  process.exit(1);
}
const [[rxjsRoot, rxjsModules]] = rxjs;
const [[libraryRoot, libraryModules]] = library;
console.log(
  `one rxjs in the bundle: ${rxjsModules} modules from ${rxjsRoot}; rxjs-slow-start: ${libraryModules} modules from ${libraryRoot}, ` +
    `installed as packed (${packed.length} files)`,
);
