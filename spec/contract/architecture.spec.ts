// The layout the README describes: only the adapter files touch RxJS at run time.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

describe('architecture', () => {
  // The algorithm stays portable to RxJS's next major: only the adapter files touch RxJS at run time.
  it.each(['batch-planner.ts', 'batch-runner.ts', 'pull-feeds.ts', 'slow-start-batch-error.ts', 'options.ts', 'types.ts'])(
    '%s imports nothing from rxjs at run time',
    (file) => {
      const source = readFileSync(join(__dirname, '..', '..', 'src', file), 'utf8');
      const runtimeImports = source.match(/^import (?!type ).*from 'rxjs.*';$/gm) ?? [];
      expect(runtimeImports).toEqual([]);
    },
  );
});
