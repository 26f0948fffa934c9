// Claims of README.md and its guides, checked against the code: the marble diagram (read from the
// README and run), the API list, the nextBatchSize example, the batch sizes behind the
// ten-million-generator figure, what a TaskContext holds, the Angular files and the performance figures.
// (Their TypeScript snippets are compiled by `npm run check:readme`.)
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { inspect } from 'node:util';
import { catchError, map, of, tap, throwError } from 'rxjs';
import {
  HttpError,
  isSlowStartBatchError,
  nextBatchSize,
  slowStart,
  slowStartBatch,
  type TaskContext,
  type TaskFactory,
} from '../../src/index';
import { readDocument, section as sectionOf } from '../support/docs';
import { createScheduler, type ColdObservable } from '../support/marbles';

/** The README's section under `## title`, up to the next `## ` heading. */
const section = (title: string): string => sectionOf('README.md', title);

/**
 * The marble diagram: `factories:`, `batch k:` and `output:` lines, then `if x fails ...:` and a
 * second `output:` line. Each line is a label, the marble from column 12, then an explanation.
 */
function marbleDiagram() {
  const block = /```\n([\s\S]*?)\n```/.exec(section('How a run behaves'))?.[1] ?? '';
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

  it("gives an HttpError's message as it reads", () => {
    const message = /its message reads\s+`([^`]+)`/.exec(section('API'))?.[1];
    const error = new HttpError({ ok: false, status: 422, statusText: 'Unprocessable Entity', url: 'https://api.example/records' });
    expect(error.message).toBe(message);
  });

  it("gives nextBatchSize's example right", () => {
    const growth = { initialBatchSize: 1, growthFactor: 2, maxBatchSize: 7 };
    expect(section('API').replace(/\s+/g, ' ')).toContain('with the defaults and `maxBatchSize: 7`, 3 tasks are followed by 6 and 4 by 7');
    expect([nextBatchSize(3, growth), nextBatchSize(4, growth)]).toEqual([6, 7]);
  });
});

describe('the ten-million-generator figure of docs/pacing.md and docs/performance.md', () => {
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

describe('what the README and docs/pacing.md say of a TaskContext', () => {
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
    const claim = /A `TaskContext` shows exactly ([\s\S]+?) as its own properties([\s\S]+?)\n- /.exec(readDocument('docs/pacing.md'));
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
    const task = /\n- \*\*A task\*\*([\s\S]+?)\n- /.exec(section('How a run behaves'))?.[1] ?? '';
    for (const key of Object.keys(aContext())) expect([key, named(task).includes(key)]).toEqual([key, true]);
  });
});

describe('the Angular recipe', () => {
  // The ```typescript blocks are not compiled at the root, which has no Angular: they are the example's
  // files, compiled and tested in examples/angular by CI, and must be them verbatim.
  const app = (file: string) => readFileSync(join(__dirname, '..', '..', 'examples', 'angular', 'src', 'app', file), 'utf8');

  it.each(['recipe.service.ts', 'testing-recipe.spec.ts'])('in docs/angular.md is examples/angular/src/app/%s, verbatim', (file) => {
    expect(readDocument('docs/angular.md')).toContain('```typescript\n' + app(file).trimEnd() + '\n```');
  });

  it('in the README is an excerpt of recipe.service.ts, verbatim, that runs a job', () => {
    const excerpt = /```typescript\n([\s\S]*?)\n```/.exec(section('In an Angular service'))?.[1];
    expect(excerpt).toContain('slowStart(');
    expect(app('recipe.service.ts')).toContain(excerpt);
  });
});

describe("the README's performance figures", () => {
  /** BENCHMARKS.md's targets table: the measured figure of each target, by its description. */
  const measured = new Map(
    [
      ...readFileSync(join(__dirname, '..', '..', 'BENCHMARKS.md'), 'utf8').matchAll(
        /^\| [^|]+ \| ([^|]+) \| ([^|]+) \| [^|]+ \| [^|]+ \|$/gm,
      ),
    ].map((match) => [match[1].trim(), match[2].trim()]),
  );
  const performance = section('Performance');

  it.each([
    ['slowStartBatch / mergeMap time, 1,000,000 synchronous tasks', '1,000,000 synchronous tasks take {} times'],
    ["gap from a batch's last settlement to the next batch's first invocation, median", 'next batch starts {} (median)'],
    ['20 s at 50/s, express: 429s, rateLimit / baseline', 'draws {} and'],
    ['20 s at 200/s, express: 429s, rateLimit / baseline', 'and {} times the 429s'],
    ['20 s at 50/s, express: makespan, rateLimit / baseline', 'in {} and'],
    ['20 s at 200/s, express: makespan, rateLimit / baseline', 'and {} times its makespan'],
    ['20 s at 50/s, express: finish spread, rateLimit / baseline', 'finish {} and'],
    ['20 s at 200/s, express: finish spread, rateLimit / baseline', 'and {} times as far apart'],
    ['20 s at 20/s, express, one process with 6 in flight: 429s with rateLimit', 'browser tab, draws {} 429s'],
    ['20 s at 20/s, express, one process with 6 in flight: makespan, rateLimit / baseline', 'in {} times the makespan'],
    ['express 50/s: makespan, rateLimit / baseline', 'few seconds takes {} and'],
    ['express 200/s: makespan, rateLimit / baseline', "and {} times the baseline's makespan"],
  ])('says what BENCHMARKS.md measured for "%s"', (target, phrase) => {
    const figure = measured.get(target);
    expect(figure).toBeDefined();
    expect(performance.replace(/\s+/g, ' ')).toContain(phrase.replace('{}', figure!));
  });
});

describe("the README's option tables", () => {
  /** Each option a file declares with its TSDoc `@default`: name and the default's first word. */
  function declared(file: string): Map<string, string> {
    const text = readFileSync(join(__dirname, '..', '..', 'src', file), 'utf8');
    return new Map(
      [...text.matchAll(/@default (\S+)[^*]*(?:\*(?!\/)[^*]*)*\*\/\s*(?:readonly )?(\w+)\?:/g)].map((match) => [match[2], match[1]]),
    );
  }
  /** The rows of the tables under "Options": the option in backquotes, and its default column. */
  const rows = new Map([...section('Options').matchAll(/^\| `([\w.]+)` +\| ([^|]+?) +\|/gm)].map((match) => [match[1], match[2]]));
  const options = declared('options.ts');
  const retry = [...declared('retry/retry-options.ts')].map(([name, value]) => [`retry.${name}`, value] as const);

  it('has a row for every option and every `retry` option, and no other', () => {
    const resumeFields = ['changedSource', 'freshFor'];
    const expected = [...[...options.keys()].filter((name) => !resumeFields.includes(name)), ...retry.map(([name]) => name)];
    expect([...rows.keys()].sort()).toEqual([...new Set(expected)].sort());
    const resumeRow = section('Options')
      .split('\n')
      .find((line) => line.startsWith('| `resume`'));
    for (const field of resumeFields) expect(resumeRow).toContain(field);
  });

  it.each([...[...options].filter(([name]) => rows.has(name)), ...retry])('gives `%s` the default its TSDoc gives (%s)', (name, value) => {
    const cell = rows.get(name)!;
    if (value === 'undefined') expect(cell).not.toMatch(/^`/);
    else if (value === 'exponential') expect(cell).toMatch(/1 s, doubling, to 30 s/);
    else expect(cell).toBe(`\`${value}\``);
  });
});

describe("the README's bulk import", () => {
  const client = readFileSync(join(__dirname, '..', '..', 'examples', 'node-bulk-import', 'client.ts'), 'utf8');
  /** Lines of code: neither blank nor only a comment. */
  const code = client.split('\n').filter((line) => line.trim() !== '' && !line.trim().startsWith('//'));

  it('is examples/node-bulk-import/client.ts, verbatim', () => {
    expect(section('A bulk import that survives its process')).toContain('```ts\n' + client.trimEnd() + '\n```');
  });

  it('is at most 60 lines of code, as many as the README says', () => {
    expect(code.length).toBeLessThanOrEqual(60);
    expect(section('A bulk import that survives its process')).toContain(`in ${code.length} lines of code`);
  });
});

describe('the README', () => {
  it('keeps to about 350 lines: the rest belongs in the guides of docs/', () => {
    expect(readDocument('README.md').trimEnd().split('\n').length).toBeLessThanOrEqual(350);
  });
});
