// The project's documents as the specs that check their claims read them: README.md, the guides in
// docs/ and CONTRIBUTING.md. Nothing is copied from them: each spec reads the text it checks.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

export const root = join(__dirname, '..', '..');

/** The guides: every markdown file of docs/, as paths from the root. */
export const guides: readonly string[] = readdirSync(join(root, 'docs'))
  .filter((name) => name.endsWith('.md'))
  .sort()
  .map((name) => `docs/${name}`);

/** Every document whose TypeScript snippets are compiled and whose claims are checked. */
export const documents: readonly string[] = ['README.md', ...guides, 'CONTRIBUTING.md'];

/** The text of a document, by its path from the root. */
export function readDocument(path: string): string {
  return readFileSync(join(root, path), 'utf8');
}

/** A document's section under `## title`, up to the next `## ` heading. */
export function section(path: string, title: string): string {
  const text = readDocument(path);
  const start = text.indexOf(`\n## ${title}\n`);
  if (start === -1) throw new Error(`${path} has no section "${title}"`);
  const end = text.indexOf('\n## ', start + 1);
  return text.slice(start, end === -1 ? undefined : end);
}

/** The code of every ```ts block of the documents, with the document it is in. */
export function tsSnippets(paths: readonly string[] = documents): { path: string; code: string }[] {
  return paths.flatMap((path) => [...readDocument(path).matchAll(/^```ts\n([\s\S]*?)^```$/gm)].map((match) => ({ path, code: match[1] })));
}
