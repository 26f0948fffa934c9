#!/usr/bin/env bash
# Checks what `npm publish` would ship, and fails on any finding:
#   1. builds dist/ afresh;
#   2. `npm pack --dry-run` lists exactly dist/**, the guides (docs/*.md and the pictures they show,
#      docs/*.svg), README.md, CHANGELOG.md, LICENSE and package.json; and every relative link or image
#      of README.md and of the guides resolves to a file in the tarball;
#   3. publint --strict has nothing to say (not even a suggestion);
#   4. Are the Types Wrong? finds no problem for node10, node16 (CJS and ESM) and bundler resolution;
#   5. the packed tarball, installed next to rxjs, loads through both `import` and `require`,
#      exposes the same names both ways and runs a batch.
set -euo pipefail
cd "$(dirname "$0")/.."

scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT

echo '--- build'
npm run --silent build

echo '--- the shipped declarations state rules in words'
# Sections (§) resolve to docs/behaviour.md, which the tarball does not hold.
if grep -rn '§' dist --include='*.d.ts'; then
  echo 'dist/ declarations cite sections of docs/behaviour.md, which is not shipped' >&2
  exit 1
fi

echo '--- npm pack --dry-run contents'
# --ignore-scripts: dist/ was just built, prepack would only build it again.
npm pack --dry-run --json --ignore-scripts >"$scratch/pack.json"
node - "$scratch/pack.json" <<'JS'
const fs = require('node:fs');
const [{ files }] = JSON.parse(fs.readFileSync(process.argv[2], 'utf8'));
const shipped = files.map((f) => f.path).sort();
const guides = fs
  .readdirSync('docs')
  .filter((name) => /\.(md|svg)$/.test(name))
  .map((name) => `docs/${name}`);
const expectedRoot = ['CHANGELOG.md', 'LICENSE', 'README.md', 'package.json', ...guides];
const problems = [];
for (const name of expectedRoot) if (!shipped.includes(name)) problems.push(`missing: ${name}`);
// Links and images that npm's page and a reader of node_modules can follow: none may leave the tarball.
const path = require('node:path');
for (const document of ['README.md', ...guides.filter((name) => name.endsWith('.md'))]) {
  const text = fs.readFileSync(document, 'utf8').replace(/^```[\s\S]*?^```$/gm, '');
  for (const [, link, image] of text.matchAll(/\]\(([^)\s]+)\)|src="([^"]+)"/g)) {
    const target = link ?? image;
    if (/^([a-z]+:|#)/.test(target)) continue;
    const file = path.posix.normalize(path.posix.join(path.posix.dirname(document), target.split('#')[0]));
    if (!shipped.includes(file)) problems.push(`${document} links to ${target}, which is not in the tarball`);
  }
}
for (const half of ['esm', 'cjs']) {
  for (const name of ['index.js', 'index.d.ts', 'package.json']) {
    if (!shipped.includes(`dist/${half}/${name}`)) problems.push(`missing: dist/${half}/${name}`);
  }
}
for (const path of shipped) {
  if (!expectedRoot.includes(path) && !path.startsWith('dist/')) problems.push(`not part of the package: ${path}`);
}
// The two halves must hold the same modules, or one way of loading the package would break.
const modules = (half) => shipped.filter((p) => p.startsWith(`dist/${half}/`)).map((p) => p.slice(`dist/${half}/`.length));
if (modules('esm').join() !== modules('cjs').join()) problems.push('dist/esm and dist/cjs hold different files');
if (problems.length > 0) {
  console.error(problems.join('\n'));
  process.exit(1);
}
console.log(`${shipped.length} files: ${expectedRoot.join(', ')} and ${shipped.length - expectedRoot.length} under dist/; their links resolve`);
JS

echo '--- npm pack'
tarball="$scratch/$(npm pack --ignore-scripts --silent --pack-destination "$scratch")"

echo '--- publint --strict'
NO_COLOR=1 npx --no-install publint --strict "$tarball" | tee "$scratch/publint.txt"
# publint exits 0 on warnings and suggestions; any of them is a finding here.
grep -q '^All good!' "$scratch/publint.txt" || { echo 'publint reported findings' >&2; exit 1; }

echo '--- attw'
# The default "strict" profile checks node10, node16 from CJS, node16 from ESM and bundler, and
# exits non-zero on any problem.
npx --no-install attw --no-emoji --no-color "$tarball"

echo '--- load the packed package as a consumer would'
consumer="$scratch/consumer"
mkdir -p "$consumer/node_modules/rxjs-slow-start"
tar -xzf "$tarball" -C "$consumer/node_modules/rxjs-slow-start" --strip-components=1
ln -s "$PWD/node_modules/rxjs" "$consumer/node_modules/rxjs"
cat >"$consumer/check.mjs" <<'JS'
import { createRequire } from 'node:module';
import { lastValueFrom, of, toArray } from 'rxjs';
import * as esm from 'rxjs-slow-start';

const cjs = createRequire(import.meta.url)('rxjs-slow-start');
const names = (m) => Object.keys(m).filter((k) => k !== 'default' && k !== '__esModule').sort().join(', ');
if (names(esm) !== names(cjs)) throw new Error(`import gives ${names(esm)} but require gives ${names(cjs)}`);
for (const name of ['slowStartBatch', 'slowStart', 'SlowStartBatchError', 'isSlowStartBatchError']) {
  if (typeof esm[name] !== 'function') throw new Error(`import gives no function ${name}`);
}
// Three tasks with the defaults make batches of 1 and 2.
for (const [how, lib] of [['import', esm], ['require', cjs]]) {
  const results = await lastValueFrom(lib.slowStart([1, 2, 3].map((n) => () => of(n))).pipe(toArray()));
  const sizes = results.map((r) => r.size).join(',');
  if (sizes !== '1,2') throw new Error(`${how}: batch sizes ${sizes}, expected 1,2`);
}
console.log(`import and require both give: ${names(esm)}`);
JS
(cd "$consumer" && node check.mjs)

echo 'package check passed'
