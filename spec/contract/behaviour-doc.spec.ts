// The section numbers cited in the code (`§2`, `§3c`, ...) resolve to headings of docs/behaviour.md, and
// the TSDoc that ships in the .d.ts files states each rule in words: docs/ is not in the npm package, so
// a reader of the declarations has nothing to look a section up in.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';

const root = join(__dirname, '..', '..');
const doc = readFileSync(join(root, 'docs', 'behaviour.md'), 'utf8');

/** The sections docs/behaviour.md has a heading for (`## §3 ...`, `### §3c ...`), in order. */
const headings = [...doc.matchAll(/^(#{2,3}) §(\d+[a-z]?) /gm)].map((match) => ({ level: match[1].length, section: match[2] }));

/** The script files under `dir`, as paths from the root. */
function scripts(dir: string): string[] {
  return (readdirSync(join(root, dir), { recursive: true }) as string[])
    .filter((file) => /\.(m?ts|m?js)$/.test(file) && !file.split(/[\\/]/).includes('node_modules'))
    .map((file) => join(dir, file));
}

/** The sections `text` cites, by line: `§2`, `§3c`, both of `§2 to §5`, but not another document's (`RFC 9110 §5.5`). */
function citations(text: string): { line: number; section: string }[] {
  return text
    .split('\n')
    .flatMap((line, at) => [...line.matchAll(/(?<!RFC \d+ )§(\d+[a-z]?)/g)].map((match) => ({ line: at + 1, section: match[1] })));
}

/** Each citation of `files` that docs/behaviour.md has no heading for, as `file:line §N`. */
function unresolved(files: string[]): string[] {
  const known = new Set(headings.map((heading) => heading.section));
  return files.flatMap((file) =>
    citations(readFileSync(join(root, file), 'utf8'))
      .filter((citation) => !known.has(citation.section))
      .map((citation) => `${file}:${citation.line} §${citation.section}`),
  );
}

const src = scripts('src');

describe('docs/behaviour.md', () => {
  it('numbers its sections §1 to §15, in order', () => {
    const sections = headings.filter((heading) => heading.level === 2).map((heading) => heading.section);
    expect(sections).toEqual(Array.from({ length: 15 }, (_, index) => String(index + 1)));
  });

  it('has a heading for every section cited in src/', () => {
    expect(citations(src.map((file) => readFileSync(join(root, file), 'utf8')).join('\n')).length).toBeGreaterThan(0);
    expect(unresolved(src)).toEqual([]);
  });

  it('has a heading for every section cited by the tests, the demo, the benchmarks and the READMEs', () => {
    const elsewhere = [
      ...scripts('spec'),
      ...scripts('demo'),
      ...scripts('bench'),
      'README.md',
      ...readdirSync(join(root, 'docs'))
        .filter((name) => name.endsWith('.md') && name !== 'behaviour.md')
        .map((name) => `docs/${name}`),
      'CONTRIBUTING.md',
      'BENCHMARKS.md',
      'examples/angular/README.md',
    ];
    expect(unresolved(elsewhere)).toEqual([]);
  });
});

/**
 * The declarations tsc emits for one source file, with the TSDoc of what they declare: every file of
 * src/ is built into dist/ (tsconfig.build.json), so this is what its .d.ts ships. `transpileDeclaration`
 * needs no program, so it takes a fraction of a second for all of src/.
 */
function declarations(file: string): string {
  return ts.transpileDeclaration(readFileSync(join(root, file), 'utf8'), { fileName: file, compilerOptions: { declaration: true } })
    .outputText;
}

/** The lines of `file`'s declarations that hold a `§`. */
function sectionSigns(file: string): string[] {
  return declarations(file)
    .split('\n')
    .filter((line) => line.includes('§'))
    .map((line) => line.trim());
}

describe('the TSDoc that ships', () => {
  it('is what the declarations of a file carry', () => {
    expect(declarations(join('src', 'types.ts'))).toContain("/** The task's 0-based position in the source. */");
    expect(declarations(join('src', 'growth.ts'))).toMatch(
      /\* The size the batch after a successful one of `ranSize` tasks may have[^]*export declare function nextBatchSize/,
    );
  });

  it.each(src)('of %s states its rules in words, with no §', (file) => {
    expect(sectionSigns(file)).toEqual([]);
  });
});
