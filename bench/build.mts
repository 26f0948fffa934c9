/**
 * A build of the package in another checkout, or in this one: `dist/cjs/index.js` loaded with the rxjs
 * that checkout installed, so that two builds loaded into one process never share code (bench:versus).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { resolve } from 'node:path';
import type * as Rx from 'rxjs';
import type * as Api from '../src/index.js';

export interface Build {
  /** The checkout's directory, absolute. */
  dir: string;
  /** Its commit, short, and whether src/ differs from it. */
  commit: string;
  api: typeof Api;
  /** The rxjs that the build requires, so that its tasks' observables are the ones it knows. */
  rxjs: typeof Rx;
  rxjsVersion: string;
}

export function loadBuild(directory: string): Build {
  const dir = resolve(directory);
  const entry = resolve(dir, 'dist/cjs/index.js');
  if (!existsSync(entry)) {
    throw new Error(`${entry} does not exist: build that checkout first (cd ${dir} && npm ci && npm run build)`);
  }
  const require = createRequire(resolve(dir, 'package.json'));
  const rxjsManifest = require.resolve('rxjs/package.json');
  return {
    dir,
    commit: commitOf(dir),
    api: require(entry) as typeof Api,
    rxjs: require('rxjs') as typeof Rx,
    rxjsVersion: String((JSON.parse(readFileSync(rxjsManifest, 'utf8')) as { version: unknown }).version),
  };
}

function commitOf(dir: string): string {
  try {
    const commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: dir, encoding: 'utf8' }).trim();
    const dirty = execFileSync('git', ['status', '--porcelain', '--', 'src'], { cwd: dir, encoding: 'utf8' });
    return dirty.trim() ? `${commit}+src changes` : commit;
  } catch {
    return 'not a git checkout';
  }
}
