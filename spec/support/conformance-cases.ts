// Kubernetes' own cases for slowStartBatch, from the fixture vendored in spec/fixtures/ (its README says
// where they come from; `npm run check:fixture` checks it against the project's shared copy).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

export interface ConformanceCase {
  name: string;
  count: number;
  initialBatchSize: number;
  /** The k-th task invoked (k = 1, 2, ...) succeeds when k <= succeedFirst. */
  succeedFirst: number;
  expected: { batchSizes: number[]; invoked: number; successes: number; errors: boolean; skipped: number };
}

export const conformanceFile = join(__dirname, '..', 'fixtures', 'kubernetes-slow-start.json');

export function loadConformanceCases(): ConformanceCase[] {
  return (JSON.parse(readFileSync(conformanceFile, 'utf8')) as { cases: ConformanceCase[] }).cases;
}
