/**
 * The two memory measurements, each run in its own process (see scenarios/memory.mts) so that neither
 * sees the other's heap. Needs `--expose-gc`: heap sizes are read after full collections.
 *
 * `memory-child.mts generator|buffer [--build DIR]`: with `--build`, the build in DIR's dist/ and the rxjs
 * DIR installed instead of this checkout's sources (bench:versus); nothing else is loaded, so that the
 * heap holds the same for every build.
 */
import type { Observable } from 'rxjs';
import { performance } from 'node:perf_hooks';
import { loadBuild } from './build.mjs';
import { reportToParent } from './child.mjs';
import {
  BUFFERED_TASKS,
  GENERATOR_MAX_BATCH,
  GENERATOR_TASKS,
  type BufferMeasurement,
  type GeneratorMeasurement,
} from './memory-shared.mjs';

const SAMPLE_EVERY = 4096;

const buildFlag = process.argv.indexOf('--build');
const buildDir = buildFlag === -1 ? undefined : process.argv[buildFlag + 1];
if (buildFlag !== -1 && !buildDir) throw new Error('memory-child.mts: --build needs the directory of a checkout');
const build = buildDir === undefined ? undefined : loadBuild(buildDir);
const { from, mergeMap, of } = build ? build.rxjs : await import('rxjs');
const { slowStart, slowStartBatch } = build ? build.api : await import('./subject.mjs');

const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('memory-child.mts needs node --expose-gc');
const collectGarbage = gc;

function heapAfterCollection(): number {
  // Twice: the first collection can leave objects whose finalizers free more on the second.
  collectGarbage();
  collectGarbage();
  return process.memoryUsage().heapUsed;
}

/**
 * 10,000,000 factories pulled from a generator. Heap is sampled every 4,096 factories, without collecting
 * first: the peak includes garbage not yet collected, so it bounds the true peak from above.
 */
async function measureGenerator(): Promise<GeneratorMeasurement> {
  let peakHeap = 0;
  const sample = (): void => {
    peakHeap = Math.max(peakHeap, process.memoryUsage().heapUsed);
  };
  function* factories(): Generator<() => Observable<number>> {
    for (let i = 0; i < GENERATOR_TASKS; i++) {
      if (i % SAMPLE_EVERY === 0) sample();
      yield () => of(i);
    }
  }

  const baselineHeap = heapAfterCollection();
  const start = performance.now();
  let tasks = 0;
  let batches = 0;
  await new Promise<void>((resolve, reject) => {
    slowStart(factories(), { maxBatchSize: GENERATOR_MAX_BATCH }).subscribe({
      next: (result) => {
        tasks += result.size;
        batches++;
      },
      error: reject,
      complete: resolve,
    });
  });
  sample();
  if (tasks !== GENERATOR_TASKS) throw new Error(`Sanity check failed: ${tasks} tasks ran, expected ${GENERATOR_TASKS}`);
  return { baselineHeap, peakHeap, tasks, batches, seconds: (performance.now() - start) / 1000 };
}

/**
 * 1,000,000 factories from `from(array)`, the first of which never settles: the synchronous source
 * delivers the other 999,999 while batch 0 is still running, so all of them wait in the operator's buffer.
 * The array is alive throughout, so the heap that grows on subscribing is the operator's alone.
 */
async function measureBuffer(): Promise<BufferMeasurement> {
  const before = heapAfterCollection();
  const factories: Array<() => ObservableOrPromise> = Array.from({ length: BUFFERED_TASKS }, (_, i) =>
    // A fresh pending promise per call, so that nothing keeps a finished subscription reachable.
    i === 0 ? () => new Promise<number>(() => {}) : () => of(i),
  );
  const withArray = heapAfterCollection();

  const ours = from(factories).pipe(slowStartBatch()).subscribe();
  const withOurBuffer = heapAfterCollection();
  ours.unsubscribe();

  const afterOurs = heapAfterCollection();
  const theirs = from(factories)
    .pipe(mergeMap((factory) => factory(), 1))
    .subscribe();
  const withTheirBuffer = heapAfterCollection();
  theirs.unsubscribe();

  const waiting = BUFFERED_TASKS - 1;
  return {
    bytesPerFactory: (withArray - before) / BUFFERED_TASKS,
    bytesPerBufferedFactory: (withOurBuffer - withArray) / waiting,
    mergeMapBytesPerBufferedFactory: (withTheirBuffer - afterOurs) / waiting,
  };
}

type ObservableOrPromise = Observable<number> | Promise<number>;

const which = process.argv[2];
if (which === 'generator') reportToParent(await measureGenerator());
else if (which === 'buffer') reportToParent(await measureBuffer());
else throw new Error(`memory-child.mts: expected "generator" or "buffer", got ${String(which)}`);
