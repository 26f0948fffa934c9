/**
 * `npx tsx bench/context-cost.mts`: what one task's context costs to make, the package's own beside the
 * shapes it could have had, in the same interleaved rounds (1,000,000 contexts per round, 3 warm-up and
 * 15 timed rounds; each figure is a median, each ratio the median of the per-round ratios).
 *
 * - `createContext`: the package's (src/task-context.ts): an ordinary object with `index`, `batch` and
 *   `attempt`, a hidden symbol-keyed property that links it to its task, and `signal` as an own,
 *   enumerable accessor shared by every context.
 * - `fields only`: the same object without the getter, which no context can do without (a copy must
 *   keep a working `signal`, and no `AbortController` may be made before it is read): the rest of the
 *   cost.
 * - `hidden symbol, frozen`: the link as a non-enumerable symbol-keyed property, and the context frozen.
 * - `Proxy over the task`: what 9bd12c4 handed out, which was not an ordinary object.
 *
 * The difference between the first two is what an own accessor costs in this engine: V8 makes one only
 * in its runtime, not in the code it compiles.
 */
import { createContext, type ContextSource } from '../src/task-context.js';
import { fieldsOnly, makeContexts } from './context-sides.mjs';
import { compare, format, median, progress, type Side } from './harness.mjs';

const CONTEXTS = 1_000_000;

const link = Symbol('task');
const symbolSignal = {
  get(this: { [link]: ContextSource }): AbortSignal {
    return this[link].signal;
  },
  enumerable: true,
};
const proxyHandler: ProxyHandler<ContextSource> = {
  get: (target, key) => (key === 'index' || key === 'batch' || key === 'attempt' || key === 'signal' ? target[key] : undefined),
};

const makers: Record<string, (source: ContextSource) => { index: number }> = {
  createContext: (source) => createContext(source, source.index, false),
  'fields only': fieldsOnly,
  'hidden symbol, frozen': (source) => {
    const context = { index: source.index, batch: source.batch, attempt: source.attempt };
    Object.defineProperty(context, link, { value: source });
    Object.defineProperty(context, 'signal', symbolSignal);
    return Object.freeze(context);
  },
  'Proxy over the task': (source) => new Proxy(source, proxyHandler),
};

const sides: Side[] = Object.entries(makers).map(([name, make]) => ({
  name,
  run: async () => {
    makeContexts(make, CONTEXTS);
    await Promise.resolve();
  },
}));

const comparison = await compare(sides, {
  warmupRounds: 3,
  rounds: 15,
  onSample: (side, round, ms) => progress(`${side.name} round ${round}: ${format.ms(ms)}`),
});
const base = comparison.samples.get('Proxy over the task')!;
console.log(`\n${format.count(CONTEXTS)} contexts per round; ns per context (median), and the median per-round ratio to the Proxy:`);
for (const { name } of sides) {
  const samples = comparison.samples.get(name)!;
  const perContext = (median(samples) * 1e6) / CONTEXTS;
  const ratio = median(samples.map((ms, round) => ms / base[round]!));
  console.log(`  ${name.padEnd(24)} ${perContext.toFixed(0).padStart(5)} ns   ${format.ratio(ratio)}`);
}
