#!/usr/bin/env bash
# Runs the tests against the oldest rxjs that the peer range (^7.4.0) admits, so that the range is a
# promise kept rather than a guess. Works in a scratch copy: the locked rxjs in this checkout stays.
set -euo pipefail
cd "$(dirname "$0")/.."

oldest=7.4.0
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT

# Tracked files plus new ones not yet committed, without node_modules, dist or anything ignored.
mkdir "$scratch/repo"
git ls-files -z --cached --others --exclude-standard | tar --null -T - -cf - | tar -xf - -C "$scratch/repo"

cd "$scratch/repo"
npm ci --prefer-offline --no-audit --no-fund
npm install --prefer-offline --no-save --no-audit --no-fund "rxjs@$oldest"
installed=$(node -p "require('rxjs/package.json').version")
if [ "$installed" != "$oldest" ]; then
  echo "expected rxjs $oldest in the scratch copy, found $installed" >&2
  exit 1
fi

# Type-check against its typings too: jest alone does not check types, and they changed within 7.x.
# rxjs before 7.5.5 has no "types" in its exports map, so under NodeNext (or Bundler) resolution
# TypeScript finds no typings for 'rxjs' at all; only the old node10 resolution reads its top-level
# "types". Point the compiler at those typings explicitly, as node10 would.
cat >tsconfig.oldest-rxjs.json <<'JSON'
{
  "extends": "./tsconfig.json",
  "compilerOptions": {
    "paths": {
      "rxjs": ["./node_modules/rxjs/dist/types/index.d.ts"],
      "rxjs/*": ["./node_modules/rxjs/dist/types/*/index.d.ts"]
    }
  }
}
JSON
echo "--- typecheck against rxjs $installed"
npx --no-install tsc -p tsconfig.oldest-rxjs.json --noEmit
echo "--- tests against rxjs $installed"
npx --no-install jest
