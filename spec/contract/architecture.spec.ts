// The layout the README describes: only the adapter files touch RxJS at run time.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';

const src = join(__dirname, '..', '..', 'src');
/** The adapter files: the only ones that may use RxJS at run time. */
const adapters = ['rxjs-adapter.ts', 'slow-start.ts', 'slow-start-batch.ts', 'slow-start-state.ts', 'index.ts'];
const algorithm = (readdirSync(src, { recursive: true }) as string[]).filter((file) => file.endsWith('.ts') && !adapters.includes(file));

describe('architecture', () => {
  // The algorithm stays portable to RxJS's next major: only the adapter files touch RxJS at run time.
  it('covers the algorithm: the runner, the pacings, the feeds, the error', () => {
    expect(algorithm).toEqual(
      expect.arrayContaining(['runner.ts', 'pull-feeds.ts', join('pacing', 'window-pacing.ts'), 'slow-start-batch-error.ts']),
    );
  });

  it.each(algorithm)('%s imports nothing from rxjs at run time', (file) => {
    const source = readFileSync(join(src, file), 'utf8');
    const runtimeImports = source.match(/^import (?!type ).*from 'rxjs.*';$/gm) ?? [];
    expect(runtimeImports).toEqual([]);
  });
});

describe("the runner's pieces", () => {
  it('live in src/run/, one owner each: what waits, who may start, flushAfter, the tasks in flight, what the run reports', () => {
    expect(readdirSync(join(src, 'run')).sort()).toEqual(['admission.ts', 'flush-clock.ts', 'intake.ts', 'reporter.ts', 'task-set.ts']);
  });

  it.each(readdirSync(join(src, 'run')))('run/%s does not import the runner', (file) => {
    expect(readFileSync(join(src, 'run', file), 'utf8')).not.toMatch(/from '\.\.\/runner\.js'/);
  });
});

describe('the code in src/', () => {
  const files = (readdirSync(src, { recursive: true }) as string[]).filter((file) => file.endsWith('.ts'));

  it.each(files)('%s carries no mutation-testing directive (what Stryker skips is in stryker/shortcuts.mjs)', (file) => {
    expect(readFileSync(join(src, file), 'utf8')).not.toMatch(/Stryker (disable|restore)/);
  });

  it.each(files)('%s disables a lint rule only with the reason, on the line that needs it', (file) => {
    const disables = readFileSync(join(src, file), 'utf8').match(/eslint-disable.*$/gm) ?? [];
    for (const line of disables) expect(line).toMatch(/^eslint-disable-next-line \S+ -- \S/);
  });

  /** Every function, method and arrow function of a file, with its name and its length in lines. */
  function functionLengths(file: string): { name: string; lines: number }[] {
    const text = readFileSync(join(src, file), 'utf8');
    const sourceFile = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
    const found: { name: string; lines: number }[] = [];
    const visit = (node: ts.Node) => {
      if (ts.isFunctionLike(node) && 'body' in node && node.body !== undefined) {
        const start = sourceFile.getLineAndCharacterOfPosition(node.getStart()).line;
        const end = sourceFile.getLineAndCharacterOfPosition(node.getEnd()).line;
        const name = node.name !== undefined && ts.isIdentifier(node.name) ? node.name.text : '(anonymous)';
        found.push({ name, lines: end - start + 1 });
      }
      ts.forEachChild(node, visit);
    };
    visit(sourceFile);
    return found;
  }

  it.each(files)('%s has no function longer than 60 lines, but createRunner, which wires the pieces', (file) => {
    const long = functionLengths(file).filter(({ name, lines }) => lines > 60 && name !== 'createRunner');
    expect(long).toEqual([]);
  });

  it('keeps createRunner to the pump loop, the phase and the wiring: at most 160 lines, comments included', () => {
    const runner = functionLengths('runner.ts').find(({ name }) => name === 'createRunner');
    expect(runner?.lines).toBeLessThanOrEqual(160);
  });
});
