/**
 * What making the tasks' contexts costs, timed alone in the rounds of a comparison, so that a target on
 * the whole operator can say how much of its time they take. `bench/context-cost.mts` compares the
 * shapes a context could have had.
 */
import { createContext, type ContextSource } from '../src/task-context.js';
import { format, median, type Comparison, type Side } from './harness.mjs';

/** What a context reads: plain fields, as a task has them. */
const sources: ContextSource[] = Array.from({ length: 1000 }, (_, index) => ({
  index,
  batch: 0,
  attempt: 1,
  get signal(): AbortSignal {
    throw new Error('not read here');
  },
}));

class Extend {
  constructor(target: object) {
    return target;
  }
}
/** The private link `createContext` adds, the same way. */
class Linked extends Extend {
  readonly #source: ContextSource;
  constructor(target: object, source: ContextSource) {
    super(target);
    this.#source = source;
  }
  static source(target: Linked): ContextSource {
    return target.#source;
  }
}

/** `createContext` without its own `signal` getter, which no context can do without: the rest of its cost. */
export function fieldsOnly(source: ContextSource): { index: number } {
  const context = { index: source.index, batch: source.batch, attempt: source.attempt, key: source.index, inDoubt: false };
  new Linked(context, source);
  return context;
}

/** Sums the indexes, so that no context can be optimised away. */
let sink = 0;

/** Makes `count` contexts with `make`. */
export function makeContexts(make: (source: ContextSource) => { index: number }, count: number): void {
  for (let i = 0; i < count; i++) sink += make(sources[i % sources.length]!).index;
  if (sink < 0) throw new Error('unreachable');
}

export const CONTEXTS = 'contexts alone';
export const FIELDS = 'contexts without signal';

/** Two sides for a comparison: `count` contexts as `createContext` makes them, and without their getter. */
export function contextSides(count: number): Side[] {
  return [
    { name: CONTEXTS, run: async () => makeContexts((source) => createContext(source, 0, false), count) },
    { name: FIELDS, run: async () => makeContexts(fieldsOnly, count) },
  ];
}

/** What the contexts of `comparison` (made with `contextSides`) took of `ours`, and `ours` without them against `theirs`. */
export function contextNote(comparison: Comparison, ours: string, theirs: string, count: number): string {
  const at = (name: string) => comparison.samples.get(name)!;
  const made = median(at(CONTEXTS));
  const withoutGetter = median(at(FIELDS));
  const rest = median(at(ours).map((ms, round) => (ms - at(CONTEXTS)[round]!) / at(theirs)[round]!));
  return (
    `In the same rounds, making ${format.count(count)} task contexts alone took ${format.ms(made)} (median) of ${ours}'s ` +
    `${format.ms(median(at(ours)))}, and ${format.ms(withoutGetter)} without their own \`signal\` getter, which V8 makes only ` +
    `in its runtime, never in compiled code (\`npx tsx bench/context-cost.mts\` compares the shapes a context could have). ` +
    `${ours} less the contexts' time, against ${theirs}: ${format.ratio(rest)}.`
  );
}
