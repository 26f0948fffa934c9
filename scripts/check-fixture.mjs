// Checks that the vendored copy of Kubernetes' conformance cases (spec/fixtures/) is still byte for
// byte the project's shared file, ../shared/conformance/kubernetes-slow-start.json beside the clone.
// A clone without ../shared (anyone outside CI) has nothing to compare with: it says so and passes.
// `npm run check:fixture`; CI runs it from .ci/run.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const fixture = join(root, 'spec', 'fixtures', 'kubernetes-slow-start.json');
const shared = join(root, '..', 'shared', 'conformance', 'kubernetes-slow-start.json');
const shown = (path) => relative(root, path);

if (!existsSync(shared)) {
  console.log(`check:fixture skipped: ${shown(shared)} is absent, so there is nothing to compare ${shown(fixture)} with`);
  process.exit(0);
}
if (!readFileSync(fixture).equals(readFileSync(shared))) {
  console.error(`check:fixture failed: ${shown(fixture)} differs from ${shown(shared)}`);
  console.error(`Copy the shared file over the fixture (cp ${shown(shared)} ${shown(fixture)}) and review the diff.`);
  process.exit(1);
}
console.log(`check:fixture: ${shown(fixture)} equals ${shown(shared)}`);
