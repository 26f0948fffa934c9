/**
 * `npx tsx bench/context-cost.mts`: what one task's context costs to make, the package's own beside the
 * shapes it could have had, in the same interleaved rounds (1,000,000 contexts per round, 3 warm-up and
 * 15 timed rounds; each figure is a median, each ratio the median of the per-round ratios).
 *
 * - `createContext`: the package's (src/task-context.ts): an ordinary object with `index`, `batch` and
 *   `attempt`, and `signal` as an own, enumerable accessor of its own, a closure over its task, so that
 *   it reads the task whatever the receiver (a `Proxy`, an `Object.create` child, `Reflect.get`).
 * - `one getter for all`: what 45503ec handed out: the same object, its task linked by a private field,
 *   and one `signal` getter shared by every context that found the task from `this`, and so threw when
 *   read through a `Proxy` or as a prototype, and refused an assignment.
 * - `fields only`: the same object without `signal`, which no context can do without (a copy must keep
 *   a working `signal`, and no `AbortController` may be made before it is read): the rest of the cost.
 * - `hidden symbol, frozen`: the link as a non-enumerable symbol-keyed property, and the context frozen.
 * - `Proxy over the task`: what 9bd12c4 handed out, which was not an ordinary object.
 *
 * An own accessor is made only in V8's runtime, never in the code it compiles; one of each context's
 * own also gives each context a shape (a hidden class) of its own, which the garbage collector then
 * has to collect with it.
 */
import { createContext, type ContextSource } from '../src/task-context.js';
import { fieldsOnly, makeContexts } from './context-sides.mjs';
import { compare, format, median, progress, type Side } from './harness.mjs';

const CONTEXTS = 1_000_000;

/** A base class whose constructor returns the object it is given, so that a subclass adds its fields to it. */
class Extend {
  constructor(target: object) {
    return target;
  }
}
/** 45503ec's link from a context to its task: a private field added to the context. */
class ContextLink extends Extend {
  readonly #source: ContextSource;
  constructor(context: object, source: ContextSource) {
    super(context);
    this.#source = source;
  }
  static signal(context: object): AbortSignal {
    return (context as ContextLink).#source.signal;
  }
}
const sharedSignal = {
  get(this: object): AbortSignal {
    return ContextLink.signal(this);
  },
  enumerable: true,
};

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
  createContext,
  'one getter for all': (source) => {
    const context = { index: source.index, batch: source.batch, attempt: source.attempt };
    new ContextLink(context, source);
    Object.defineProperty(context, 'signal', sharedSignal);
    return context;
  },
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
/** The median per-round ratio of each side to `name`. */
const ratioTo = (name: string) => {
  const base = comparison.samples.get(name)!;
  return (samples: number[]) => median(samples.map((ms, round) => ms / base[round]!));
};
const toProxy = ratioTo('Proxy over the task');
const toShared = ratioTo('one getter for all');
console.log(
  `\n${format.count(CONTEXTS)} contexts per round; ns per context (median), and the median per-round ratios to the Proxy and to one getter for all:`,
);
for (const { name } of sides) {
  const samples = comparison.samples.get(name)!;
  const perContext = (median(samples) * 1e6) / CONTEXTS;
  console.log(
    `  ${name.padEnd(24)} ${perContext.toFixed(0).padStart(5)} ns   ${format.ratio(toProxy(samples)).padStart(6)}   ${format.ratio(toShared(samples)).padStart(6)}`,
  );
}
