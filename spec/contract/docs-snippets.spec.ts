/**
 * The snippets the documents say run, run as written: each is marked with `<!-- snippet-runs: NAME -->`
 * just before its fence. README.md's first example must print what the ```text block after it shows;
 * the snippets of docs/testing.md assert what they show themselves (a failed assertion throws here).
 */
import * as assert from 'node:assert';
import * as rxjs from 'rxjs';
import * as rxjsTesting from 'rxjs/testing';
import ts from 'typescript';
import * as slowStart from '../../src/index';
import { readDocument } from '../support/docs';

/** The snippets of a document marked to run as `name`, each with the block that follows it, if any. */
function runnable(path: string, name: string): { code: string; after: string | undefined }[] {
  const pattern = new RegExp(
    `<!-- snippet-runs: ${name} -->\\s*\`\`\`ts\\n([\\s\\S]*?)^\`\`\`$([\\s\\S]*?)(?=<!-- snippet-runs|$(?![\\s\\S]))`,
    'gm',
  );
  return [...readDocument(path).matchAll(pattern)].map((match) => ({
    code: match[1],
    after: /^```text\n([\s\S]*?)^```$/m.exec(match[2])?.[1],
  }));
}

/** Runs a snippet as a CommonJS module with the package, rxjs and node:assert; returns what it logs. */
function run(code: string): string[] {
  const logged: string[] = [];
  const { outputText } = ts.transpileModule(code, { compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022 } });
  const modules: Record<string, unknown> = { rxjs, 'rxjs/testing': rxjsTesting, 'rxjs-slow-start': slowStart, 'node:assert': assert };
  const require = (name: string): unknown => {
    if (!(name in modules)) throw new Error(`a snippet imports ${name}`);
    return modules[name];
  };
  const console = { log: (...parts: unknown[]) => logged.push(parts.map(String).join(' ')) };
  // eslint-disable-next-line @typescript-eslint/no-implied-eval -- the snippet is the document's own code
  const module = new Function('require', 'exports', 'console', outputText) as (...values: unknown[]) => void;
  module(require, {}, console);
  return logged;
}

describe("README.md's first example", () => {
  const [example] = runnable('README.md', 'first-example') as ({ code: string; after: string | undefined } | undefined)[];

  it('is found, with the output it prints after it', () => {
    expect(example?.after?.split('\n').length).toBeGreaterThan(2);
  });

  it('prints what the README shows, as it shows it', async () => {
    const logged = run(example!.code);
    const expected = example!.after!.trimEnd().split('\n');
    const deadline = Date.now() + 10_000;
    while (logged.length < expected.length && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(logged).toEqual(expected);
  });
});

describe("docs/testing.md's snippets", () => {
  const snippets = runnable('docs/testing.md', 'testing');

  it('are found', () => {
    expect(snippets.length).toBeGreaterThanOrEqual(2);
  });

  it.each(snippets.map((snippet, index) => [index + 1, snippet.code] as const))(
    'snippet %i runs, and its assertions hold',
    (_index, code) => {
      expect(() => run(code)).not.toThrow();
    },
  );

  it('would fail if what they show were wrong', () => {
    expect(() => run(snippets[0].code.replace("'---x--y--(z|)'", "'---x-y--(z|)'"))).toThrow(assert.AssertionError);
    expect(() => run(snippets[1].code.replace('until: 1001', 'until: 1000'))).toThrow(assert.AssertionError);
  });
});
