// Claims of README.md, checked against the code: its marble diagram (read from the README and run),
// its API list, its nextBatchSize example, the batch sizes behind its ten-million-generator figure and
// what it says a TaskContext holds.
// (Its TypeScript snippets are compiled by `npm run check:readme`.)
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { inspect } from 'node:util';
import { catchError, map, of, tap, throwError } from 'rxjs';
import { isSlowStartBatchError, nextBatchSize, slowStart, slowStartBatch, type TaskContext, type TaskFactory } from '../../src/index';
import { createScheduler, type ColdObservable } from '../support/marbles';

const readme = readFileSync(join(__dirname, '..', '..', 'README.md'), 'utf8');

/** The README's section under `## title`, up to the next `## ` heading. */
function section(title: string): string {
  const start = readme.indexOf(`\n## ${title}\n`);
  if (start === -1) throw new Error(`README.md has no section "${title}"`);
  const end = readme.indexOf('\n## ', start + 1);
  return readme.slice(start, end === -1 ? undefined : end);
}

/**
 * The marble diagram: `factories:`, `batch k:` and `output:` lines, then `if x fails ...:` and a
 * second `output:` line. Each line is a label, the marble from column 12, then an explanation.
 */
function marbleDiagram() {
  const block = /```\n([\s\S]*?)\n```/.exec(section('Marble diagram'))?.[1] ?? '';
  const marbles: { label: string; marble: string }[] = [];
  let failing: string | undefined;
  for (const line of block.split('\n')) {
    const failure = /^if (\w) fails/.exec(line);
    if (failure) failing = failure[1];
    const labelled = /^([a-z]+(?: \d+)?):\s+(\S+)/.exec(line);
    if (labelled) {
      expect(line.indexOf(labelled[2])).toBe(12);
      marbles.push({ label: labelled[1], marble: labelled[2] });
    }
  }
  const find = (label: string) => marbles.filter((entry) => entry.label === label).map((entry) => entry.marble);
  const batches = marbles.filter((entry) => entry.label.startsWith('batch ')).map((entry) => entry.marble);
  return { factories: find('factories')[0], batches, outputs: find('output'), failing };
}

/** The frame in which each task of a `batch k:` marble starts: a letter's column, or its group's. */
function startFrames(marble: string): Map<string, number> {
  const frames = new Map<string, number>();
  let group: number | undefined;
  for (let column = 0; column < marble.length; column++) {
    const char = marble[column];
    if (char === '(') group = column;
    else if (char === ')') group = undefined;
    else if (/\w/.test(char)) frames.set(char, group ?? column);
  }
  return frames;
}

describe("the README's marble diagram", () => {
  const diagram = marbleDiagram();
  const letters = diagram.factories.match(/\w/g) ?? [];
  const drawn = diagram.batches.map(startFrames);
  const failingBatch = drawn.findIndex((frames) => frames.has(diagram.failing ?? ''));

  it('has factories, batches, an output and an output for a failure', () => {
    expect(letters.length).toBeGreaterThan(0);
    expect(diagram.batches.length).toBeGreaterThan(1);
    expect(diagram.outputs).toHaveLength(2);
    expect(letters).toContain(diagram.failing);
    expect(failingBatch).toBeGreaterThan(0);
  });

  // Every task takes two frames (it completes in its third), as the diagram says; in the second run,
  // the failing task errors after one.
  it.each([
    ['all succeed', 0],
    ['one fails', 1],
  ] as const)('runs as drawn when %s', (_name, outputIndex) => {
    const sizes: number[] = [];
    const tasks: Record<string, ColdObservable<unknown>> = {};
    createScheduler().run(({ cold, expectObservable }) => {
      for (const letter of letters) {
        tasks[letter] = outputIndex === 1 && letter === diagram.failing ? cold('-#', undefined, 'failed') : cold('--|');
      }
      const factories = Object.fromEntries(letters.map((letter): [string, TaskFactory<unknown>] => [letter, () => tasks[letter]]));
      const output = cold(diagram.factories, factories).pipe(
        slowStartBatch(),
        tap((result) => sizes.push(result.size)),
        map((result) => String(result.batch + 1)),
        catchError((error: unknown) =>
          throwError(() => (isSlowStartBatchError(error) && error.cause === 'failed' && error.batch === failingBatch ? 'error' : error)),
        ),
      );
      expectObservable(output).toBe(diagram.outputs[outputIndex]);
    });
    drawn.forEach((frames) => {
      for (const [letter, frame] of frames) expect([letter, tasks[letter].subscriptions[0]?.subscribedFrame]).toEqual([letter, frame]);
    });
    expect(sizes).toEqual(drawn.map((frames) => frames.size).slice(0, sizes.length));
  });
});

describe("the README's API list", () => {
  it('names every export of the package', () => {
    const index = readFileSync(join(__dirname, '..', '..', 'src', 'index.ts'), 'utf8');
    const exported = [...index.matchAll(/export (?:type )?\{([^}]*)\}/g)].flatMap((match) =>
      match[1].split(',').map((name) => name.trim().replace(/^type /, '')),
    );
    expect(exported.length).toBeGreaterThan(5);
    const api = section('API');
    for (const name of exported) expect([name, api.includes(`\`${name}`)]).toEqual([name, true]);
  });

  it("gives nextBatchSize's example right", () => {
    const growth = { initialBatchSize: 1, growthFactor: 2, maxBatchSize: 7 };
    expect(section('API')).toContain('[nextBatchSize(3, growth), nextBatchSize(4, growth)]; // [6, 7]');
    expect([nextBatchSize(3, growth), nextBatchSize(4, growth)]).toEqual([6, 7]);
  });
});

describe("the README's ten-million-generator figure", () => {
  /** The sizes of the batches over `count` tasks that all succeed, from a first batch of 1. */
  function batchSizes(count: number, maxBatchSize: number): number[] {
    const sizes: number[] = [];
    let left = count;
    let size = Math.min(1, maxBatchSize);
    while (left > 0) {
      const ran = Math.min(size, left);
      sizes.push(ran);
      left -= ran;
      size = nextBatchSize(ran, { initialBatchSize: 1, growthFactor: 2, maxBatchSize });
    }
    return sizes;
  }

  it('runs 9,775 batches of at most 1,024 with maxBatchSize: 1024 (what bench/memory-shared.mts sets)', () => {
    const sizes = batchSizes(10_000_000, 1024);
    expect(sizes).toHaveLength(9775);
    expect(Math.max(...sizes)).toBe(1024);
  });

  it('pulls 4,194,304 factories in batch 22 and 1,611,393 in the last with the default maxBatchSize', () => {
    const sizes = batchSizes(10_000_000, Infinity);
    expect(sizes).toHaveLength(24);
    expect(sizes[22]).toBe(4_194_304);
    expect(sizes.at(-1)).toBe(1_611_393);
  });
});

describe("the README's TaskContext", () => {
  /** The context a factory is given. */
  function aContext(): TaskContext {
    const contexts: TaskContext[] = [];
    slowStart([
      (context: TaskContext) => {
        contexts.push(context);
        return of(0);
      },
    ]).subscribe();
    return contexts[0];
  }

  /** The names in backquotes in `text`. */
  const named = (text: string): string[] => [...text.matchAll(/`(\w+)`/g)].map((match) => match[1]);

  it('names exactly the own properties a context has, and holds copies as said', () => {
    const claim = /A `TaskContext` shows exactly ([\s\S]+?) as its own properties([\s\S]+?)\n- /.exec(readme);
    expect(claim).not.toBeNull();
    const context = aContext();
    expect(named(claim![1])).toEqual(Reflect.ownKeys(context).filter((key) => Object.prototype.propertyIsEnumerable.call(context, key)));
    // "what a factory writes to it reaches nothing of the run"
    expect(claim![2]).toContain('what a factory writes to it reaches nothing of the run');
    // "console.log(context) shows those four and nothing of the run"
    expect(claim![2]).toContain('`console.log(context)` shows');
    expect([...inspect(context).matchAll(/(\w+):/g)].map((match) => match[1])).toEqual(named(claim![1]));
  });

  it('lists every field of a context where it says what a task is', () => {
    const task = /\n- \*\*A task\*\*([\s\S]+?)\n- /.exec(section("What it does, in a user's words"))?.[1] ?? '';
    for (const key of Object.keys(aContext())) expect([key, named(task).includes(key)]).toEqual([key, true]);
  });
});

describe("the README's Angular recipe", () => {
  // Its ```typescript blocks are not compiled at the root, which has no Angular: they are the example's
  // files, compiled and tested in examples/angular by CI, and must be them verbatim.
  it.each(['recipe.service.ts', 'testing-recipe.spec.ts'])('is examples/angular/src/app/%s, verbatim', (file) => {
    const code = readFileSync(join(__dirname, '..', '..', 'examples', 'angular', 'src', 'app', file), 'utf8').trimEnd();
    expect(section('In an Angular service')).toContain('```typescript\n' + code + '\n```');
  });
});
