// The layout the README describes: only the adapter files touch RxJS at run time.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';

const src = join(__dirname, '..', '..', 'src');
/** The adapter files: the only ones that may use RxJS at run time. */
const adapters = ['rxjs-adapter.ts', 'slow-start.ts', 'slow-start-batch.ts', 'slow-start-state.ts', 'slow-start-checkpoint.ts', 'index.ts'];
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
  const pieces = (readdirSync(join(src, 'run'), { recursive: true }) as string[]).filter((file) => file.endsWith('.ts'));

  it("live in src/run/, one owner each: what waits, the retries, the backoffs, how many may start and which, when, how each try ended, flushAfter, the tasks in flight and the shared limiter's wait, what the run reports", () => {
    expect(pieces.sort()).toEqual([
      'admission.ts',
      'backoffs.ts',
      'flush-clock.ts',
      'intake.ts',
      'limiter-wait.ts',
      'next-task.ts',
      'outcomes.ts',
      'reporter.ts',
      'resumption.ts',
      'retry-queue.ts',
      'task-keys.ts',
      'task-set.ts',
      join('waits', 'announced-hold.ts'),
      join('waits', 'learned-spacing.ts'),
      join('waits', 'restored-pause.ts'),
      join('waits', 'start-gate.ts'),
      join('waits', 'throttle-pause.ts'),
      join('waits', 'wait.ts'),
      join('waits', 'waits.ts'),
    ]);
  });

  it.each(pieces)('run/%s does not import the runner', (file) => {
    expect(readFileSync(join(src, 'run', file), 'utf8')).not.toMatch(/from '(\.\.\/)+runner\.js'/);
  });

  // The admission says how many may start and which first; time is the waits' and their gate's.
  it.each(['admission.ts', 'next-task.ts'])('run/%s reads no clock and arms no timer', (file) => {
    expect(readFileSync(join(src, 'run', file), 'utf8')).not.toMatch(/\.now\(|\.schedule\(/);
  });

  it.each(pieces.filter((file) => file.startsWith('waits') && !file.endsWith('start-gate.ts')))(
    'run/%s is told the time: it reads no clock and arms no timer',
    (file) => {
      expect(readFileSync(join(src, 'run', file), 'utf8')).not.toMatch(/\.now\(|\.schedule\(|Date\.now|setTimeout/);
    },
  );
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

  /** Every class of a file, with its name and its length in lines. */
  function classLengths(file: string): { name: string; lines: number }[] {
    const text = readFileSync(join(src, file), 'utf8');
    const sourceFile = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
    const found: { name: string; lines: number }[] = [];
    const visit = (node: ts.Node) => {
      if (ts.isClassLike(node)) {
        const start = sourceFile.getLineAndCharacterOfPosition(node.getStart()).line;
        const end = sourceFile.getLineAndCharacterOfPosition(node.getEnd()).line;
        found.push({ name: node.name?.text ?? '(anonymous)', lines: end - start + 1 });
      }
      ts.forEachChild(node, visit);
    };
    visit(sourceFile);
    return found;
  }

  // Growth goes where nothing limits it: a class or a module that keeps growing is where the next
  // feature will not fit. Past these, split it by what its parts own.
  it.each(files)('%s has no class longer than 200 lines, comments included', (file) => {
    expect(classLengths(file).filter(({ lines }) => lines > 200)).toEqual([]);
  });

  it.each(files)('%s is no longer than 300 lines', (file) => {
    expect(readFileSync(join(src, file), 'utf8').split('\n').length - 1).toBeLessThanOrEqual(300);
  });
});
