import { runChild } from '../child.mjs';
import { format, progress, type Scenario } from '../harness.mjs';
import {
  BUFFERED_TASKS,
  GENERATOR_MAX_BATCH,
  GENERATOR_TASKS,
  type BufferMeasurement,
  type GeneratorMeasurement,
} from '../memory-shared.mjs';

const TARGET_PEAK_BYTES = 64 * 2 ** 20;

/**
 * Whether slow start holds its input in memory. Each measurement runs in a process of its own
 * (memory-child.mts) so that the heaps don't mix.
 */
export const memory: Scenario = {
  name: 'memory',
  title: 'Memory',
  async run() {
    progress(`generator of ${format.count(GENERATOR_TASKS)} factories...`);
    const generator = await runChild<GeneratorMeasurement>('memory-child.mts', ['generator']);
    progress(`peak heap ${format.mb(generator.peakHeap)} in ${generator.seconds.toFixed(1)} s`);
    progress(`${format.count(BUFFERED_TASKS)} buffered factories...`);
    const buffer = await runChild<BufferMeasurement>('memory-child.mts', ['buffer']);
    progress(`${format.bytes(buffer.bytesPerBufferedFactory)} per buffered factory`);

    return {
      name: this.name,
      title: this.title,
      method:
        `(a) \`slowStart(generator, { maxBatchSize: ${GENERATOR_MAX_BATCH} })\` over a generator of ` +
        `${format.count(GENERATOR_TASKS)} factories \`() => of(i)\`; V8's used heap (\`process.memoryUsage().heapUsed\`) ` +
        'sampled every 4,096 factories without collecting first, so the peak includes garbage not yet ' +
        `collected. (b) \`from(array).pipe(slowStartBatch())\` over ${format.count(BUFFERED_TASKS)} factories ` +
        'whose first never settles, so the rest wait in the buffer; heap measured after full collections, ' +
        'with the array alive throughout, so the growth is the buffer alone. `mergeMap(f => f(), 1)` over the ' +
        'same array, for reference. Each in its own `node --expose-gc` process.',
      figures: [
        { label: '(a) heap before the run, after collection', value: format.mb(generator.baselineHeap) },
        { label: '(a) peak heap during the run', value: format.mb(generator.peakHeap) },
        { label: '(a) batches / tasks', value: `${format.count(generator.batches)} / ${format.count(generator.tasks)}` },
        { label: '(a) run time', value: `${generator.seconds.toFixed(1)} s` },
        { label: '(b) heap per buffered factory, slowStartBatch', value: format.bytes(buffer.bytesPerBufferedFactory) },
        { label: '(b) heap per buffered factory, mergeMap(f => f(), 1)', value: format.bytes(buffer.mergeMapBytesPerBufferedFactory) },
        { label: '(b) heap per factory of the input array itself', value: format.bytes(buffer.bytesPerFactory) },
        {
          label: `(a) what the ${format.count(GENERATOR_TASKS)} factories would take as an array`,
          value: format.mb(buffer.bytesPerFactory * GENERATOR_TASKS),
        },
      ],
      targets: [
        {
          description: `peak heap, slowStart over a generator of ${format.count(GENERATOR_TASKS)} factories`,
          measured: format.mb(generator.peakHeap),
          limit: `< ${format.mb(TARGET_PEAK_BYTES)}`,
          met: generator.peakHeap < TARGET_PEAK_BYTES,
        },
      ],
    };
  },
};
