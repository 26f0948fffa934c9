import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEFAULTS, USAGE, UsageError, parseDemoArgs } from './args';
import { EXIT_FAILURE, EXIT_OK, EXIT_USAGE, main } from './main';
import type { Output } from './report';
import { retryAfter } from '../src/index';
import { demoBackoffMs, demoRetryOptions, runDemo } from './run-demo';
import type { RunOptions } from './run-demo';
import type { RunRecord, TaskRecord } from './run-record';
import { QuotaExceededError, RateLimitedError, createSimulatedApi, is429, seededRandom, standardNormal } from './simulated-api';
import { escapeXml, makespanMs, niceTicks, renderComparisonSvg, renderTimelineSvg } from './timeline-svg';

const fixedSeed = () => 42;

describe('demo flags', () => {
  it('uses the defaults when no flag is given', () => {
    expect(parseDemoArgs([], fixedSeed)).toEqual({
      kind: 'run',
      options: { ...DEFAULTS, max: Infinity, spread: undefined, pacing: 'batch', seed: 42, svg: undefined, retry: undefined },
    });
  });

  it('reads every flag, in both --flag value and --flag=value forms', () => {
    const parsed = parseDemoArgs(
      [
        ...['--tasks', '50', '--quota=7', '--initial', '2', '--max', '16', '--latency', '12.5', '--seed', '9'],
        ...['--spread', '1.5', '--pacing=window', '--svg', 'out/t.svg'],
      ],
      fixedSeed,
    );
    expect(parsed).toEqual({
      kind: 'run',
      options: {
        ...{ tasks: 50, quota: 7, initial: 2, max: 16, latency: 12.5, spread: 1.5, pacing: 'window', seed: 9, svg: 'out/t.svg' },
        retry: undefined,
      },
    });
  });

  it.each(['batch', 'window', 'both'])('accepts --pacing %s', (pacing) => {
    const parsed = parseDemoArgs(['--pacing', pacing], fixedSeed);
    expect(parsed.kind === 'run' && parsed.options.pacing).toBe(pacing);
  });

  it('lists --pacing and --spread in the usage', () => {
    expect(USAGE).toMatch(/--pacing P +batch .*window .*both/s);
    expect(USAGE).toContain('--spread SIGMA');
  });

  it('accepts a quota of 0 (the very first call fails)', () => {
    const parsed = parseDemoArgs(['--quota', '0'], fixedSeed);
    expect(parsed.kind === 'run' && parsed.options.quota).toBe(0);
  });

  it.each([[['--help']], [['-h']], [['--tasks', '5', '--help']]])('treats %j as a request for help', (argv) => {
    expect(parseDemoArgs(argv, fixedSeed)).toEqual({ kind: 'help' });
  });

  it.each([
    [['--bogus'], /Unknown option '--bogus'/],
    [['extra'], /positional/i],
    [['--tasks'], /argument missing/],
    [['--tasks', 'ten'], /--tasks must be a whole number, got 'ten'/],
    [['--tasks', ''], /--tasks must be a whole number, got ''/],
    [['--tasks', '1e3'], /--tasks must be a whole number/],
    [['--tasks', '0x10'], /--tasks must be a whole number/],
    [['--tasks', '2.5'], /--tasks must be a whole number/],
    [['--tasks=-3'], /--tasks must be a whole number, got '-3'/],
    [['--tasks', '0'], /--tasks must be between 1 and 10000, got 0/],
    [['--tasks', '10001'], /--tasks must be between 1 and 10000, got 10001/],
    [['--initial', '0'], /--initial must be between 1 and 10000, got 0/],
    [['--initial', '4', '--max', '2'], /--max must not be below --initial \(4\), got 2/],
    [['--latency', 'fast'], /--latency must be a number, got 'fast'/],
    [['--latency', '60001'], /--latency must be between 0 and 60000, got 60001/],
    [['--seed', '4294967296'], /--seed must be between 0 and 4294967295/],
    [['--svg', ''], /--svg needs a file path/],
    [['--pacing', 'windows'], /--pacing must be batch, window or both, got 'windows'/],
    [['--pacing', ''], /--pacing must be batch, window or both, got ''/],
    [['--pacing'], /argument missing/],
    [['--spread', 'wide'], /--spread must be a number, got 'wide'/],
    [['--spread', '2.5'], /--spread must be between 0 and 2, got 2.5/],
  ])('rejects %j with a usage error', (argv, message) => {
    expect(() => parseDemoArgs(argv, fixedSeed)).toThrow(UsageError);
    expect(() => parseDemoArgs(argv, fixedSeed)).toThrow(message);
  });
});

/** Collects what the demo writes, optionally pretending to be a terminal. */
function captureOutput(isTTY = false, columns = 100): Output & { text: () => string } {
  const chunks: string[] = [];
  return {
    isTTY,
    columns,
    write: (chunk: string) => chunks.push(chunk),
    text: () => chunks.join(''),
  };
}

describe('demo command', () => {
  it('answers a bad flag with the message, the usage and exit code 2', async () => {
    const stdout = captureOutput();
    const stderr = captureOutput();
    const code = await main(['--tasks', 'many'], { stdout, stderr, env: {} });
    expect(code).toBe(EXIT_USAGE);
    expect(stderr.text()).toContain("--tasks must be a whole number, got 'many'");
    expect(stderr.text()).toContain(USAGE);
    expect(stdout.text()).toBe('');
  });

  it('prints the usage for --help and exits with 0', async () => {
    const stdout = captureOutput();
    const stderr = captureOutput();
    expect(await main(['--help'], { stdout, stderr, env: {} })).toBe(EXIT_OK);
    expect(stdout.text()).toContain('Usage: npm run demo:simulated');
    expect(stderr.text()).toBe('');
  });

  describe('a real run (no latency)', () => {
    let dir: string;
    beforeAll(async () => {
      dir = await mkdtemp(join(tmpdir(), 'slow-start-demo-'));
    });
    afterAll(async () => {
      await rm(dir, { recursive: true, force: true });
    });

    it('writes plain lines when not on a terminal, then the summary and the SVG', async () => {
      const stdout = captureOutput(false);
      const svgPath = join(dir, 'nested', 'timeline.svg');
      const argv = ['--tasks', '20', '--quota', '5', '--latency', '0', '--seed', '1', '--svg', svgPath];
      expect(await main(argv, { stdout, stderr: captureOutput(), env: {} })).toBe(EXIT_OK);

      const text = stdout.text();
      expect(text).not.toContain('\r');
      expect(text).not.toContain('\x1b[');
      expect(text).toContain('batch 2: tasks 3-6, 4 calls, 2 ok, 2 failed');
      expect(text).toMatch(/calls saved +13 +compared with firing all 20 tasks at once/);
      expect(text).toContain(`Timeline written to ${svgPath}`);

      const svg = await readFile(svgPath, 'utf8');
      expect(svg.match(/class="bar /g)).toHaveLength(7);
    });

    it('runs both pacings over the same latencies and draws them one above the other', async () => {
      const stdout = captureOutput(false);
      const svgPath = join(dir, 'pacing.svg');
      const argv = [
        '--tasks',
        '7',
        '--quota',
        '100',
        '--latency',
        '1',
        '--spread',
        '1',
        '--seed',
        '3',
        '--pacing',
        'both',
        '--svg',
        svgPath,
      ];
      expect(await main(argv, { stdout, stderr: captureOutput(), env: {} })).toBe(EXIT_OK);

      const text = stdout.text();
      // The batch run first, then the window run, each with its own summary.
      expect(text.indexOf('batch 2: tasks 3-6')).toBeGreaterThan(-1);
      expect(text.indexOf('Slow start demo: window pacing')).toBeGreaterThan(text.indexOf('batch 2: tasks 3-6'));
      expect(text.indexOf('result 2: tasks 3-6')).toBeGreaterThan(text.indexOf('Slow start demo: window pacing'));
      expect(text.match(/Summary after/g)).toHaveLength(2);
      expect(text).toMatch(/Makespan: batch pacing \d+ ms, window pacing \d+ ms/);

      const svg = await readFile(svgPath, 'utf8');
      expectWellFormed(svg);
      expect([...svg.matchAll(/<g class="run" data-pacing="(\w+)"/g)].map(([, pacing]) => pacing)).toEqual(['batch', 'window']);
      expect(svg.match(/class="bar /g)).toHaveLength(14);
      expect(svg).toMatch(/Batch pacing: 7 tasks in \d+ ms/);
      expect(svg).toMatch(/Window pacing: 7 tasks in \d+ ms/);
      expect(svg).toContain('result 2');
    });

    it('says so, with exit code 1, when the SVG cannot be written', async () => {
      const stderr = captureOutput();
      // A path below a file can never be created.
      const blocker = join(dir, 'a-file');
      await writeFile(blocker, '');
      const svgPath = join(blocker, 'timeline.svg');
      const argv = ['--tasks', '2', '--latency', '0', '--svg', svgPath];
      expect(await main(argv, { stdout: captureOutput(), stderr, env: {} })).toBe(EXIT_FAILURE);
      expect(stderr.text()).toContain(`demo: could not write the timeline to ${svgPath}:`);
    });

    it('rewrites a progress line in place on a terminal', async () => {
      const stdout = captureOutput(true);
      const argv = ['--tasks', '6', '--quota', '6', '--latency', '0', '--seed', '1'];
      expect(await main(argv, { stdout, stderr: captureOutput(), env: {} })).toBe(EXIT_OK);
      expect(stdout.text()).toContain('\r\x1b[2Kbatch 1: 2 running');
      // Every batch line starts on a cleared line, so no progress text is left in front of it.
      expect(stdout.text()).toContain('\r\x1b[2Kbatch 2: tasks 3-5, 3 calls');
    });

    it('cuts the progress line to the width of the terminal, so that \\r can rewrite it', async () => {
      const narrow = captureOutput(true, 20);
      await main(['--tasks', '3', '--quota', '3', '--latency', '0'], { stdout: narrow, stderr: captureOutput(), env: {} });
      expect(narrow.text()).toContain('\r\x1b[2Kbatch 1: 2 running…\r');

      // A terminal of unknown size (as under `script`) reports 0 columns: assume 80, not nothing.
      const unknown = captureOutput(true, 0);
      await main(['--tasks', '3', '--quota', '3', '--latency', '0'], { stdout: unknown, stderr: captureOutput(), env: {} });
      expect(unknown.text()).toContain('\r\x1b[2Kbatch 1: 2 running, 0 ok, 0 failed | 1 succeeded in all');
    });

    it('leaves colour out when NO_COLOR is set', async () => {
      const stdout = captureOutput(true);
      const argv = ['--tasks', '3', '--quota', '1', '--latency', '0', '--seed', '1'];
      await main(argv, { stdout, stderr: captureOutput(), env: { NO_COLOR: '1' } });
      // eslint-disable-next-line no-control-regex -- matches ANSI colour codes
      expect(stdout.text()).not.toMatch(/\x1b\[\d+m/);
    });
  });
});

describe('runDemo', () => {
  const options = (overrides: Partial<RunOptions>): RunOptions => ({
    tasks: 20,
    quota: 5,
    initial: 1,
    max: Infinity,
    latency: 0,
    spread: undefined,
    pacing: 'batch',
    seed: 1,
    svg: undefined,
    retry: undefined,
    ...overrides,
  });

  it('stops at the batch that hits the quota and counts the calls saved', async () => {
    const started: number[] = [];
    const { summary, batches, record } = await runDemo(options({}), {
      onTaskStart: ({ index }) => started.push(index),
    });
    // Batches of 1, 2 and 4: calls 0-4 fit in the quota of 5, calls 5 and 6 get a 429.
    expect(batches.map((batch) => [batch.size, batch.failed])).toEqual([
      [1, 0],
      [2, 0],
      [4, 2],
    ]);
    expect(summary).toMatchObject({
      totalTasks: 20,
      succeeded: 5,
      failed: 2,
      skipped: 13,
      callsMade: 7,
      callsSaved: 13,
      failedWithoutSlowStart: 15,
    });
    expect(summary.cause).toBeInstanceOf(QuotaExceededError);
    expect(started).toEqual([0, 1, 2, 3, 4, 5, 6]);
    expect(record.tasks.map((task) => `${task.index}:${task.batch}:${task.outcome}`)).toEqual([
      '0:0:succeeded',
      '1:1:succeeded',
      '2:1:succeeded',
      '3:2:succeeded',
      '4:2:succeeded',
      '5:2:failed',
      '6:2:failed',
    ]);
    expect(record.skipped).toBe(13);
  });

  it('runs every task when the quota is large enough, in batches capped by --max', async () => {
    const { summary, batches } = await runDemo(options({ tasks: 20, quota: 100, initial: 2, max: 4 }));
    expect(batches.map((batch) => batch.size)).toEqual([2, 4, 4, 4, 4, 2]);
    expect(summary).toMatchObject({ succeeded: 20, failed: 0, skipped: 0, callsMade: 20, callsSaved: 0 });
    expect(summary.cause).toBeUndefined();
  });
});

describe('runDemo with window pacing', () => {
  const options = (overrides: Partial<RunOptions>): RunOptions => ({
    tasks: 7,
    quota: 100,
    initial: 1,
    max: Infinity,
    latency: 0,
    spread: undefined,
    pacing: 'window',
    seed: 1,
    svg: undefined,
    retry: undefined,
    ...overrides,
  });

  it('reports results of the sizes batch pacing would use, and names each task by its result', async () => {
    const { summary, batches, record } = await runDemo(options({}));
    expect(batches.map((batch) => [batch.batch, batch.startIndex, batch.size])).toEqual([
      [0, 0, 1],
      [1, 1, 2],
      [2, 3, 4],
    ]);
    expect(record.pacing).toBe('window');
    expect(record.tasks.map((task) => task.batch)).toEqual([0, 1, 1, 2, 2, 2, 2]);
    expect(summary).toMatchObject({ succeeded: 7, failed: 0, skipped: 0 });
  });

  it('does not wait for a slow call, where batch pacing does', async () => {
    // Seed 9 draws task 1 slow (~54 ms of 40) and task 2 fast (~26 ms): once task 2 settles, window
    // pacing has room for task 3 while task 1 still runs; batch pacing waits for the whole batch.
    const overrides = { tasks: 4, latency: 40, seed: 9 };
    const window = (await runDemo(options(overrides))).record.tasks;
    const batch = (await runDemo(options({ ...overrides, pacing: 'batch' }))).record.tasks;
    expect(window[3].startMs).toBeLessThan(window[1].endMs);
    expect(batch[3].startMs).toBeGreaterThanOrEqual(batch[1].endMs);
    // Never more than the bound of §9: with 1 or 2 successes, at most 2 tasks in flight.
    const inFlightAt = (ms: number) => window.filter((task) => task.startMs <= ms && ms < task.endMs).length;
    expect(Math.max(...window.map((task) => inFlightAt(task.startMs)))).toBeLessThanOrEqual(2);
  });

  it('stops admitting tasks after a failure and reports the unreported tasks', async () => {
    const { summary, batches } = await runDemo(options({ tasks: 20, quota: 5 }));
    expect(summary.cause).toBeInstanceOf(QuotaExceededError);
    expect(summary.callsMade).toBeLessThan(20);
    expect(summary.failed).toBeGreaterThan(0);
    expect(batches.at(-1)!.failed).toBe(summary.failed);
    expect(summary.succeeded + summary.failed + summary.skipped).toBe(20);
  });
});

describe('simulated API', () => {
  afterEach(() => {
    jest.useRealTimers();
  });

  it('accepts `quota` calls, then rejects every call with a 429', async () => {
    const api = createSimulatedApi({ quota: 3, latencyMs: 0, random: () => 0.5 });
    const outcomes = await Promise.allSettled([api.call(), api.call(), api.call(), api.call(), api.call()]);

    expect(outcomes.map((outcome) => outcome.status)).toEqual(['fulfilled', 'fulfilled', 'fulfilled', 'rejected', 'rejected']);
    const rejected = outcomes[3] as PromiseRejectedResult;
    expect(rejected.reason).toBeInstanceOf(QuotaExceededError);
    expect(rejected.reason).toMatchObject({ status: 429, callNumber: 3, quota: 3 });
    // The fourth call, counted from 1 in the message, as a reader counts.
    expect((rejected.reason as Error).message).toBe('429 Too Many Requests: call 4 is over the quota of 3 calls');
    expect(api.callsMade).toBe(5);
    expect(api.callsRejected).toBe(2);
  });

  it('fails the first call with a quota of 0', async () => {
    const api = createSimulatedApi({ quota: 0, latencyMs: 0, random: () => 0 });
    await expect(api.call()).rejects.toThrow('429 Too Many Requests: call 1 is over the quota of 0 calls');
  });

  it('takes between half and one and a half of the latency, as drawn', async () => {
    jest.useFakeTimers();
    const api = createSimulatedApi({ quota: 10, latencyMs: 100, random: () => 0.25 });
    let settled = false;
    const call = api.call().then((result) => {
      settled = true;
      return result;
    });

    await jest.advanceTimersByTimeAsync(74);
    expect(settled).toBe(false);
    await jest.advanceTimersByTimeAsync(1);
    expect(settled).toBe(true);
    await expect(call).resolves.toEqual({ callNumber: 0, latencyMs: 75 });
  });

  it('draws log-normal latencies around the median when given a spread', async () => {
    const draws = [0.5, 0.25, 0.5, 0.75];
    const api = createSimulatedApi({ quota: 10, latencyMs: 10, random: () => draws.shift()!, spread: 1 });
    jest.useFakeTimers();
    const calls = Promise.all([api.call(), api.call()]);
    await jest.advanceTimersByTimeAsync(100);
    const [first, second] = (await calls).map((result) => result.latencyMs);
    // z = sqrt(-2 ln 0.5) cos(pi / 2) = 0: the median itself; then cos(3 pi / 2) = 0 again.
    expect(first).toBeCloseTo(10, 9);
    expect(second).toBeCloseTo(10, 9);
  });

  it('draws standard normal numbers: mean near 0, deviation near 1', () => {
    const random = seededRandom(11);
    const draws = Array.from({ length: 20_000 }, () => standardNormal(random));
    const mean = draws.reduce((sum, value) => sum + value, 0) / draws.length;
    const variance = draws.reduce((sum, value) => sum + (value - mean) ** 2, 0) / draws.length;
    expect(Math.abs(mean)).toBeLessThan(0.03);
    expect(Math.abs(Math.sqrt(variance) - 1)).toBeLessThan(0.03);
    expect(draws.every(Number.isFinite)).toBe(true);
  });

  it('gives up its timer and rejects with the reason when the signal aborts', async () => {
    jest.useFakeTimers();
    const api = createSimulatedApi({ quota: 10, latencyMs: 1000, random: () => 0.5 });
    const controller = new AbortController();
    const call = api.call(controller.signal);
    expect(jest.getTimerCount()).toBe(1);

    controller.abort(new Error('torn down'));
    await expect(call).rejects.toThrow('torn down');
    expect(jest.getTimerCount()).toBe(0);
  });

  it('rejects at once when the signal has already aborted', async () => {
    const api = createSimulatedApi({ quota: 10, latencyMs: 1000, random: () => 0.5 });
    await expect(api.call(AbortSignal.abort(new Error('too late')))).rejects.toThrow('too late');
  });

  it('draws the same latencies from the same seed', () => {
    const draw = (seed: number) => Array.from({ length: 5 }, seededRandom(seed));
    expect(draw(7)).toEqual(draw(7));
    expect(draw(7)).not.toEqual(draw(8));
    for (const value of draw(123)) {
      expect(value).toBeGreaterThanOrEqual(0);
      expect(value).toBeLessThan(1);
    }
  });
});

/**
 * A small well-formedness check: every tag is closed in the right order, attribute values are
 * quoted, and every `&` starts an entity. Enough to catch a broken template or a missing escape.
 */
function expectWellFormed(svg: string): void {
  const stack: string[] = [];
  const tag = /<(\/?)([A-Za-z][\w:-]*)((?:\s+[\w:-]+="[^"<]*")*)\s*(\/?)>/g;
  let position = 0;
  for (const match of svg.matchAll(tag)) {
    const between = svg.slice(position, match.index);
    expect(between).not.toMatch(/[<>]/);
    position = match.index + match[0].length;
    const [, closing, name, , selfClosing] = match;
    if (closing) expect(stack.pop()).toBe(name);
    else if (!selfClosing) stack.push(name);
  }
  expect(svg.slice(position).trim()).toBe('');
  expect(stack).toEqual([]);
  expect(svg).not.toMatch(/&(?!(amp|lt|gt|quot|apos);)/);
}

describe('timeline SVG', () => {
  const task = (index: number, batch: number, startMs: number, endMs: number, outcome: TaskRecord['outcome']) => ({
    index,
    batch,
    startMs,
    endMs,
    outcome,
  });
  const record: RunRecord = {
    totalTasks: 10,
    tasks: [task(0, 0, 0, 100, 'succeeded'), task(1, 1, 100, 180, 'succeeded'), task(2, 1, 100, 250, 'failed')],
    skipped: 7,
    subtitle: 'quota <2> & "friends"',
  };

  it('is one well-formed SVG document', () => {
    const svg = renderTimelineSvg(record);
    expect(svg.startsWith('<svg xmlns="http://www.w3.org/2000/svg"')).toBe(true);
    expectWellFormed(svg);
  });

  it('draws one bar per invoked task, coloured by outcome', () => {
    const svg = renderTimelineSvg(record);
    const bars = [...svg.matchAll(/<rect class="bar (\w+)" data-index="(\d+)"/g)].map(([, outcome, index]) => [Number(index), outcome]);
    expect(bars).toEqual([
      [0, 'succeeded'],
      [1, 'succeeded'],
      [2, 'failed'],
    ]);
  });

  it('marks each failure, and only failures, with a cross', () => {
    const svg = renderTimelineSvg(record);
    const marks = [...svg.matchAll(/class="fail-mark" data-index="(\d+)"/g)].map(([, index]) => Number(index));
    expect(marks).toEqual([2]);
  });

  it('groups rows by batch with a label per batch', () => {
    const svg = renderTimelineSvg(record);
    expect([...svg.matchAll(/<g class="batch" data-batch="(\d+)">/g)].map(([, batch]) => batch)).toEqual(['0', '1']);
    expect(svg).toContain('batch 0');
    expect(svg).toContain('tasks 1-2');
  });

  it('places bars on the time axis: a longer task gets a wider bar, a later one starts further right', () => {
    const svg = renderTimelineSvg(record);
    const geometry = (index: number) => {
      const match = new RegExp(`data-index="${index}" x="([\\d.]+)" y="[\\d.]+" width="([\\d.]+)"`).exec(svg);
      return { x: Number(match![1]), width: Number(match![2]) };
    };
    expect(geometry(1).x).toBeGreaterThan(geometry(0).x);
    expect(geometry(2).x).toBe(geometry(1).x);
    expect(geometry(2).width).toBeGreaterThan(geometry(1).width);
  });

  it('notes the skipped count and the counts of the legend', () => {
    const svg = renderTimelineSvg(record);
    expect(svg).toContain('skipped, never called: 7');
    expect(svg).toContain('succeeded (2)');
    expect(svg).toContain('failed (1)');
  });

  it('escapes text taken from the run', () => {
    const svg = renderTimelineSvg(record);
    expect(svg).toContain('quota &lt;2&gt; &amp; &quot;friends&quot;');
    expect(escapeXml(`<a href='x'>&</a>`)).toBe('&lt;a href=&apos;x&apos;&gt;&amp;&lt;/a&gt;');
  });

  it('draws runs one above the other on one time axis, each titled with its makespan', () => {
    const window: RunRecord = {
      pacing: 'window',
      totalTasks: 3,
      tasks: [task(0, 0, 0, 100, 'succeeded'), task(1, 1, 100, 180, 'succeeded'), task(2, 1, 100, 150, 'succeeded')],
      skipped: 0,
      subtitle: 'window',
    };
    const batch: RunRecord = {
      ...window,
      pacing: 'batch',
      tasks: [task(0, 0, 0, 100, 'succeeded'), task(1, 1, 100, 400, 'succeeded'), task(2, 1, 100, 150, 'succeeded')],
    };
    expect(makespanMs(batch)).toBe(400);
    const svg = renderComparisonSvg([
      { label: 'Batch pacing', record: batch },
      { label: 'Window pacing', record: window },
    ]);
    expectWellFormed(svg);
    expect(svg.match(/<svg /g)).toHaveLength(1);
    expect(svg).toContain('Batch pacing: 3 tasks in 400 ms');
    expect(svg).toContain('Window pacing: 3 tasks in 180 ms');
    const offsets = [...svg.matchAll(/<g class="run" data-pacing="(\w+)" transform="translate\(0 ([\d.]+)\)">/g)];
    expect(offsets.map(([, pacing]) => pacing)).toEqual(['batch', 'window']);
    expect(Number(offsets[0][2])).toBe(0);
    expect(Number(offsets[1][2])).toBeGreaterThan(100);
    // The same scale in both: task 0 (0-100 ms) has the same width above and below.
    const widths = [...svg.matchAll(/data-index="0" x="[\d.]+" y="[\d.]+" width="([\d.]+)"/g)].map(([, width]) => width);
    expect(widths).toHaveLength(2);
    expect(widths[0]).toBe(widths[1]);
    // Window pacing labels its rows by result, batch pacing by batch.
    expect(svg).toContain('result 1');
    expect(svg).toContain('batch 1');
  });

  it('still draws a valid picture when no task was called', () => {
    const svg = renderTimelineSvg({ totalTasks: 0, tasks: [], skipped: 0, subtitle: 'empty' });
    expectWellFormed(svg);
    expect(svg).not.toContain('class="bar ');
    expect(svg).toContain('No task was called.');
  });

  it.each([0.4, 7, 100, 987, 1234, 60_000])('chooses round ticks from 0 past %d', (max) => {
    const ticks = niceTicks(max);
    expect(ticks[0]).toBe(0);
    expect(ticks[ticks.length - 1]).toBeGreaterThanOrEqual(max);
    const step = ticks[1];
    ticks.forEach((tick, i) => expect(tick).toBeCloseTo(i * step, 9));
    // The step is 1, 2 or 5 times a power of ten.
    const mantissa = step / 10 ** Math.floor(Math.log10(step));
    expect([1, 2, 5].some((allowed) => Math.abs(mantissa - allowed) < 1e-9)).toBe(true);
    expect(ticks.length).toBeGreaterThanOrEqual(5);
    expect(ticks.length).toBeLessThanOrEqual(10);
  });
});

describe('demo flags for --retry', () => {
  it('leaves retry off without --retry, and fills in its defaults with it', () => {
    const plain = parseDemoArgs([], fixedSeed);
    expect(plain.kind === 'run' && plain.options.retry).toBeUndefined();
    const parsed = parseDemoArgs(['--retry'], fixedSeed);
    expect(parsed.kind === 'run' && parsed.options.retry).toEqual({ rate: 20, burst: 20, attempts: 5 });
  });

  it('reads --rate, --burst (default: the rate) and --attempts', () => {
    const parsed = parseDemoArgs(['--retry', '--rate', '7', '--attempts=3'], fixedSeed);
    expect(parsed.kind === 'run' && parsed.options.retry).toEqual({ rate: 7, burst: 7, attempts: 3 });
    const burst = parseDemoArgs(['--retry', '--rate', '7', '--burst', '2'], fixedSeed);
    expect(burst.kind === 'run' && burst.options.retry).toEqual({ rate: 7, burst: 2, attempts: 5 });
  });

  it.each([
    [['--rate', '5'], /--rate only applies with --retry/],
    [['--attempts', '2'], /--attempts only applies with --retry/],
    [['--retry', '--quota', '5'], /--quota does not apply with --retry/],
    [['--retry', '--rate', '0'], /--rate must be between 1 and/],
    [['--retry', '--attempts', '0'], /--attempts must be between 1 and 20/],
    [['--retry', '--burst', 'x'], /--burst must be a whole number/],
  ])('rejects %j', (argv, message) => {
    expect(() => parseDemoArgs(argv, fixedSeed)).toThrow(UsageError);
    expect(() => parseDemoArgs(argv, fixedSeed)).toThrow(message);
  });

  it('lists the retry flags in the usage', () => {
    expect(USAGE).toMatch(/--retry .*Retry-After/s);
    expect(USAGE).toMatch(/--rate N.*--burst N.*--attempts N/s);
  });
});

describe('simulated API with a rate limit', () => {
  it('accepts a burst, answers 429 with a Retry-After until the bucket refills, then accepts again', async () => {
    let clock = 0;
    const api = createSimulatedApi({
      quota: Infinity,
      latencyMs: 0,
      random: seededRandom(1),
      rateLimit: { perSecond: 2, burst: 3 },
      now: () => clock,
    });
    const first = await Promise.allSettled([api.call(), api.call(), api.call(), api.call()]);
    expect(first.map((outcome) => outcome.status)).toEqual(['fulfilled', 'fulfilled', 'fulfilled', 'rejected']);
    const error = (first[3] as PromiseRejectedResult).reason as RateLimitedError;
    expect(error).toBeInstanceOf(RateLimitedError);
    expect(error.status).toBe(429);
    expect(error.headers.get('retry-after')).toBe('1');
    expect(retryAfter(error)).toBe(1000);
    expect(is429(error)).toBe(true);
    expect(api.callsRejected).toBe(1);

    clock = 400; // 0.8 of a token: still none
    await expect(api.call()).rejects.toBeInstanceOf(RateLimitedError);
    clock = 1000; // 2 tokens
    await expect(api.call()).resolves.toMatchObject({ callNumber: 5 });
    await expect(api.call()).resolves.toMatchObject({ callNumber: 6 });
    await expect(api.call()).rejects.toBeInstanceOf(RateLimitedError);
    expect([api.callsMade, api.callsRejected]).toEqual([8, 3]);
  });

  it('asks for more than a second when the rate is below one call a second', async () => {
    const api = createSimulatedApi({
      quota: Infinity,
      latencyMs: 0,
      random: seededRandom(1),
      rateLimit: { perSecond: 0.25, burst: 1 },
      now: () => 0,
    });
    await api.call();
    const error: unknown = await api.call().catch((reason: unknown) => reason);
    expect(retryAfter(error)).toBe(4000);
  });

  it('does not treat other errors as 429s', () => {
    expect(is429(new Error('boom'))).toBe(false);
    expect(is429(new QuotaExceededError(3, 3))).toBe(true);
  });
});

describe('runDemo with --retry', () => {
  const options = (overrides: Partial<RunOptions>): RunOptions => ({
    tasks: 12,
    quota: 0, // ignored with --retry: a quota of 0 would fail the very first call
    initial: 1,
    max: Infinity,
    latency: 0,
    spread: undefined,
    pacing: 'window',
    seed: 1,
    svg: undefined,
    retry: { rate: 4, burst: 4, attempts: 5 },
    ...overrides,
  });

  it('slows down instead of stopping: every task completes, after pauses of at least the Retry-After', async () => {
    const paused: number[] = [];
    const { summary, record } = await runDemo(options({}), { onPause: (pause) => paused.push(pause.endMs - pause.startMs) });

    expect(summary.cause).toBeUndefined();
    expect(summary.succeeded).toBe(12);
    expect(new Set(record.tasks.filter((task) => task.outcome === 'succeeded').map((task) => task.index)).size).toBe(12);
    // A burst of 5, then the pace of 1, 2, 4, 8 runs into the bucket at least once.
    expect(summary.throttled).toBeGreaterThan(0);
    expect(summary.retries).toBe(summary.throttled);
    expect(summary.callsMade).toBe(12 + summary.retries);
    expect(summary.pauses.length).toBeGreaterThan(0);
    expect(paused).toEqual(summary.pauses.map((pause) => pause.endMs - pause.startMs));
    expect(summary.pauses[0].drop).toMatchObject({ threshold: expect.any(Number) });
    for (const pause of summary.pauses) {
      expect(pause.retryAfterMs).toBe(1000);
      expect(pause.endMs - pause.startMs).toBeGreaterThanOrEqual(990);
      // No call starts during a pause.
      expect(record.tasks.filter((task) => task.startMs > pause.startMs && task.startMs < pause.endMs)).toEqual([]);
    }
    // A throttled try is followed by a try of the same task with the next attempt number.
    for (const task of record.tasks.filter((entry) => entry.outcome === 'throttled')) {
      expect(record.tasks).toContainEqual(expect.objectContaining({ index: task.index, attempt: (task.attempt ?? 1) + 1 }));
    }
    expect(record.pauses).toBe(summary.pauses);
    expect(summary.makespanMs).toBeGreaterThanOrEqual(1000);
  }, 20_000);

  it('stops the run when a task is out of tries, with the 429 as its cause', async () => {
    const { summary } = await runDemo(options({ retry: { rate: 1, burst: 2, attempts: 1 } }));
    expect(summary.cause).toBeInstanceOf(RateLimitedError);
    expect(summary.failed).toBeGreaterThan(0);
    expect(summary.retries).toBe(0);
    expect(summary.pauses).toEqual([]);
    expect(summary.succeeded).toBeLessThan(12);
  });

  it('passes the server Retry-After to slow start, and no other error', () => {
    const when = demoRetryOptions({ rate: 1, burst: 1, attempts: 4 }).when!;
    const context = { index: 0, batch: 0, attempt: 1, key: 0, inDoubt: false, signal: new AbortController().signal };
    expect(when(new RateLimitedError(0, 3), context)).toBe(3000);
    expect(when(new QuotaExceededError(0, 0), context)).toBe(true);
    expect(when(new Error('500'), context)).toBe(false);
    expect(demoRetryOptions({ rate: 1, burst: 1, attempts: 4 }).maxAttempts).toBe(4);
    expect([1, 2, 3, 10].map(demoBackoffMs)).toEqual([250, 500, 1000, 8000]);
  });
});

describe('demo command with --retry', () => {
  it('prints each pause and the totals, and draws throttles, retries and pauses', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'demo-retry-'));
    try {
      const file = join(dir, 'retry.svg');
      let out = '';
      const stdout: Output = { write: (text: string) => (out += text) };
      const code = await main(
        ['--retry', '--tasks', '10', '--rate', '4', '--burst', '4', '--latency', '0', '--seed', '3', '--pacing', 'window', '--svg', file],
        { stdout, stderr: stdout, env: {} },
      );
      expect(code).toBe(EXIT_OK);
      expect(out).toContain('answers the others 429 with a Retry-After');
      expect(out).toMatch(
        /throttled at \d+ ms: \d+ calls? answered 429 \(Retry-After 1 s\); pace dropped at \d+ ms with \d+ in flight, threshold now \d+; paused \d+ ms/,
      );
      expect(out).toMatch(/tasks done +10 +of 10/);
      expect(out).toMatch(/429s +[1-9]/);
      expect(out).toMatch(/retries +[1-9]/);
      expect(out).toMatch(/makespan +\d+\.\d\d s/);
      const svg = await readFile(file, 'utf8');
      expect(svg).toContain('class="pause"');
      expect(svg).toContain('class="drop"');
      expect(svg).toMatch(/class="bar throttled"/);
      expect(svg).toMatch(/class="bar succeeded retried"[^>]*data-attempt="2"/);
      expect(svg).toMatch(/<title id="title">Slow start with retry: 10 of 10 tasks done/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }, 20_000);
});

describe('timeline SVG with retries', () => {
  const record: RunRecord = {
    pacing: 'window',
    totalTasks: 2,
    subtitle: 'hand-made',
    tasks: [
      { index: 0, batch: 0, startMs: 0, endMs: 10, outcome: 'succeeded', attempt: 1 },
      { index: 1, batch: 1, startMs: 10, endMs: 12, outcome: 'throttled', attempt: 1 },
      { index: 1, batch: 1, startMs: 1012, endMs: 1030, outcome: 'succeeded', attempt: 2 },
    ],
    skipped: 0,
    pauses: [{ startMs: 12, endMs: 1012, throttles: 1, retryAfterMs: 1000, drop: { atMs: 12, inFlight: 1, threshold: 1 } }],
  };

  it('draws every try of a task on its row, the pause as a band and the drop as a line', () => {
    const svg = renderTimelineSvg(record);
    const y = (pattern: RegExp) => pattern.exec(svg)?.[1];
    expect(y(/class="bar throttled" data-index="1" data-attempt="1" x="[\d.]+" y="([\d.]+)"/)).toBeDefined();
    expect(y(/class="bar throttled" data-index="1" data-attempt="1" x="[\d.]+" y="([\d.]+)"/)).toBe(
      y(/class="bar succeeded retried" data-index="1" data-attempt="2" x="[\d.]+" y="([\d.]+)"/),
    );
    expect(svg.match(/class="bar /g)).toHaveLength(3);
    expect(svg.match(/class="pause"/g)).toHaveLength(1);
    expect(svg.match(/class="drop"/g)).toHaveLength(1);
    expect(svg).toContain('pause 1.0 s');
    expect(svg).toContain('429, tried again (1)');
    expect(svg).toContain('retry ok (1)');
  });

  it('keeps the plain picture for a run without --retry', () => {
    const { pauses, ...plain } = record;
    expect(pauses).toBeDefined();
    const svg = renderTimelineSvg({ ...plain, tasks: plain.tasks.filter((task) => task.outcome !== 'throttled') });
    expect(svg).not.toContain('class="pause"');
    expect(svg).toContain('skipped, never called');
  });
});
