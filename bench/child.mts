/**
 * Runs a piece of the suite in a fresh Node process: `node --expose-gc [FLAGS...] --import tsx FILE ARGS...`.
 *
 * A fresh process per scenario keeps one scenario's JIT state and heap out of the next one's figures, so
 * that a scenario measures the same whether it runs alone or in the full suite. The child prints its
 * progress on stderr (passed through) and its result as JSON on the last line of stdout.
 */
import { spawn } from 'node:child_process';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const benchDir = dirname(fileURLToPath(import.meta.url));
export const repoRoot = resolve(benchDir, '..');

/** Runs `file` with `args` in a fresh process, with Node's (and V8's) `nodeFlags`; resolves with its JSON result. */
export function runChild<T>(file: string, args: readonly string[], nodeFlags: readonly string[] = []): Promise<T> {
  return new Promise((resolvePromise, reject) => {
    const nodeArgs = ['--expose-gc', ...nodeFlags, '--import', 'tsx', resolve(benchDir, file), ...args];
    const child = spawn(process.execPath, nodeArgs, {
      cwd: repoRoot, // where `--import tsx` is resolved from
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let stdout = '';
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => (stdout += chunk));
    child.on('error', reject);
    child.on('close', (code, signal) => {
      if (code !== 0) {
        reject(new Error(`${file} ${args.join(' ')} exited with ${signal ?? `code ${code}`}`));
        return;
      }
      const lastLine = stdout.trim().split('\n').pop() ?? '';
      try {
        resolvePromise(JSON.parse(lastLine) as T);
      } catch {
        reject(new Error(`${file} ${args.join(' ')} printed no JSON result; its stdout was:\n${stdout}`));
      }
    });
  });
}

/** The child's side of the protocol: print the result as the last line of stdout. */
export function reportToParent(result: unknown): void {
  process.stdout.write(JSON.stringify(result) + '\n');
}
