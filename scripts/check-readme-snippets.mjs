// Compiles every TypeScript snippet of README.md, of the guides in docs/ and of CONTRIBUTING.md under
// `strict`, so that what a reader copies compiles. `npm run check:readme`; CI runs it from .ci/run.
//
// - A snippet is a fenced block that opens with ```ts. The snippets are read from the documents each
//   time: no copy of them is kept anywhere else. The ```typescript blocks are not snippets: they are
//   files of the Angular example, or excerpts of them, verbatim (spec/contract/readme.spec.ts checks
//   it), compiled and tested there.
// - Each snippet becomes a module of its own (an `export {}` is appended), so snippets never see each
//   other's names.
// - A snippet may use names it does not define (`users`, `http`, `Pod`, ...). What it assumes is written
//   in an HTML comment just before its fence (blank lines between are fine), which the checker puts
//   before the snippet:
//
//       <!-- snippet-context: declare const users: { name: string }[]; -->
//
// - A snippet that imports from `node:` is compiled with Node's types (@types/node), the others without.
//
//   The comment may span several lines; GitHub and npm do not render it. Anything else a snippet needs
//   (its imports above all) belongs in the snippet, where the reader sees it.
// - `rxjs-slow-start` resolves to this repository's src/index.ts, `rxjs` to node_modules. The compiler
//   options are `strict` with ES2022 modules and top-level await, the DOM library (fetch, AbortSignal,
//   console) and decorators as Angular compiles them (`experimentalDecorators`).
// - Any error fails the check, naming the README line of the error and of its snippet's fence.
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const documents = [
  'README.md',
  ...readdirSync(join(root, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .sort()
    .map((name) => `docs/${name}`),
  'CONTRIBUTING.md',
];
const CONTEXT = /^<!--\s*snippet-context:([\s\S]*?)-->\s*$/;

/** The ```ts blocks of a document: its path, the 1-based line of the fence, the context before it, the code. */
function extractSnippets(path, markdown) {
  const lines = markdown.split('\n');
  const snippets = [];
  for (let index = 0; index < lines.length; index++) {
    if (lines[index].trimEnd() !== '```ts') continue;
    const fenceLine = index + 1;
    const end = lines.findIndex((line, at) => at > index && line.trimEnd() === '```');
    if (end === -1) throw new Error(`${path}:${fenceLine}: the \`\`\`ts block is never closed`);
    snippets.push({ path, fenceLine, context: contextBefore(lines, index), code: lines.slice(index + 1, end).join('\n') });
    index = end;
  }
  return snippets;
}

/** The snippet-context comment that ends on the last non-blank line before the fence at `fence`, or ''. */
function contextBefore(lines, fence) {
  let last = fence - 1;
  while (last >= 0 && lines[last].trim() === '') last--;
  if (last < 0 || !lines[last].trimEnd().endsWith('-->')) return '';
  let first = last;
  while (first > 0 && !lines[first].includes('<!--')) first--;
  const match = CONTEXT.exec(lines.slice(first, last + 1).join('\n'));
  return match ? match[1].trim() : '';
}

const snippets = documents.flatMap((path) => extractSnippets(path, readFileSync(join(root, path), 'utf8')));
if (!snippets.some((snippet) => snippet.path === 'README.md')) {
  console.error('check:readme failed: README.md has no ```ts snippet (was the fence changed?)');
  process.exit(1);
}

const scratch = mkdtempSync(join(tmpdir(), 'rxjs-slow-start-readme-'));
try {
  // Each file: the context on one line, then the snippet, so that a snippet line maps to a document's line.
  const files = snippets.map((snippet, index) => {
    const file = join(scratch, `snippet-${index}-line-${snippet.fenceLine}.ts`);
    writeFileSync(file, `${snippet.context.replace(/\n/g, ' ')}\n${snippet.code}\nexport {};\n`);
    return { ...snippet, file };
  });
  const options = {
    strict: true,
    noEmit: true,
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.ESNext,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    lib: ['lib.es2022.d.ts', 'lib.dom.d.ts'],
    types: [],
    experimentalDecorators: true,
    skipLibCheck: true,
    paths: { 'rxjs-slow-start': [join(root, 'src', 'index.ts')] },
    // rxjs and the package's own imports resolve from the repository, not from the scratch folder.
    typeRoots: [],
  };
  const host = ts.createCompilerHost(options);
  const resolveFrom = join(root, 'README.md');
  host.resolveModuleNameLiterals = (literals, containingFile, _redirect, compilerOptions) =>
    literals.map((literal) => {
      const from = containingFile.startsWith(scratch) ? resolveFrom : containingFile;
      return ts.resolveModuleName(literal.text, from, compilerOptions, host);
    });
  // A snippet that imports from `node:` runs in Node: it is compiled apart, with Node's types.
  const inNode = (snippet) => /from 'node:/.test(snippet.code);
  const nodeOptions = { ...options, types: ['node'], typeRoots: [join(root, 'node_modules', '@types')] };
  const diagnostics = [
    ...ts.getPreEmitDiagnostics(
      ts.createProgram(
        files.filter((snippet) => !inNode(snippet)).map((snippet) => snippet.file),
        options,
        host,
      ),
    ),
    ...ts.getPreEmitDiagnostics(
      ts.createProgram(
        files.filter(inNode).map((snippet) => snippet.file),
        nodeOptions,
        host,
      ),
    ),
  ];

  const failures = [];
  for (const diagnostic of diagnostics) {
    const message = ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n  ');
    const snippet = files.find((candidate) => candidate.file === diagnostic.file?.fileName);
    if (!snippet || diagnostic.start === undefined) {
      failures.push({ at: 0, text: `${diagnostic.file?.fileName ?? 'compiler'}: ${message}` });
      continue;
    }
    // Line 0 of the file is the context; line k (k >= 1) is the snippet's line k, the document's line fence + k.
    const { line } = diagnostic.file.getLineAndCharacterOfPosition(diagnostic.start);
    const where = line === 0 ? `its snippet-context comment` : `${snippet.path}:${snippet.fenceLine + line}`;
    failures.push({
      at: snippet.fenceLine + line,
      text: `${snippet.path}:${snippet.fenceLine} (the snippet's fence), ${where}: ${message}`,
    });
  }
  if (failures.length > 0) {
    console.error(`check:readme failed: ${failures.length} error(s) in the documents' TypeScript snippets`);
    for (const failure of failures) console.error(`- ${failure.text}`);
    process.exitCode = 1;
  } else {
    const counts = documents
      .map((path) => [path, snippets.filter((snippet) => snippet.path === path).length])
      .filter(([, count]) => count > 0)
      .map(([path, count]) => `${path} ${count}`);
    console.log(`check:readme: ${snippets.length} TypeScript snippets compile under strict (${counts.join(', ')})`);
  }
} finally {
  rmSync(scratch, { recursive: true, force: true });
}
