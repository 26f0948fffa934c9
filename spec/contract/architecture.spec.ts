// The layout the README describes: only the adapter files touch RxJS at run time.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const src = join(__dirname, '..', '..', 'src');
/** The adapter files: the only ones that may use RxJS at run time. */
const adapters = ['rxjs-adapter.ts', 'slow-start.ts', 'slow-start-batch.ts', 'index.ts'];
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
