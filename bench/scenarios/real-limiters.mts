import { spawn, type ChildProcess } from 'node:child_process';
import { resolve } from 'node:path';
import { benchDir, repoRoot } from '../child.mjs';
import { format, median, progress, type Figure, type Scenario, type TargetResult } from '../harness.mjs';

export const CLIENTS = 10;
/**
 * Seconds of the server's capacity each run's tasks take at the least, one size for each repetition.
 * With whole windows of work a strategy that leaves one request of the budget unspent in any window
 * pays a whole window more at the end, and one that over-asks never does; sizes spread over a window
 * measure the pace rather than where the run happens to end. Five of them: runs on loopback vary by a
 * tenth of the makespan and more from one to the next, and three repetitions leave a median to chance.
 */
export const SECONDS_OF_WORK = [3.5, 3.75, 4, 4.25, 4.5] as const;
export const RATES = [50, 200] as const;
export const KINDS = ['express', 'flexible'] as const;
export const STRATEGIES = ['baseline', 'gives-up', 'retry', 'learn-rate', 'rate-limit'] as const;
const REPETITIONS = SECONDS_OF_WORK.length;
/** In flight per client at most: the baseline's `mergeMap` concurrency, and `maxBatchSize` for ours. */
export const CONCURRENCY = 16;
/** One browser tab: as many in flight as a browser opens to one host, against a bucket of its own. */
export const TAB = { concurrency: 6, rate: 20, burst: 15, tasks: 200 } as const;
/** Time for every client to have its order before the instant they all begin. */
const START_MS = 500;

type Strategy = (typeof STRATEGIES)[number];

interface Run {
  refused: number;
  /** 429s in the second after the run's first request, before any client can know the budget. */
  refusedFirstSecond: number;
  served: number;
  completed: number;
  makespan: number;
  spread: number;
  /** The fewest and the most tasks one client completed in the run's first second. */
  firstSecondFewest: number;
  firstSecondMost: number;
  /**
   * The rank correlation of what each client completed in the run's first second with when it
   * finished: -1 when the clients that did most in the first second are the first to finish, in order.
   */
  firstSecondOrder: number;
  /** The budget left unspent in the limiter's windows before the run's last one. */
  unspent: number;
  /** Time between the end of one of the limiter's windows and the first request of the next: nobody asked. */
  idle: number;
  /** 429s to tries sent before their client heard its first 429. */
  unheard: number;
  /** How long a client's first 429 took to come back to it, in ms: the median over the clients that drew one. */
  firstHeardAfter: number;
}

/** What a client answers for a run (`bench/http/limiter-client.mts`). */
export interface Answer {
  completed: number;
  finishedAt: number;
  firstSecond: number;
  unheard: number;
  firstHeardAfter: number | null;
  /** When each task completed, in ms after the run's start. */
  completedAt: number[];
}

/** The server's counts after a run. */
export interface Stats {
  served: number;
  refused: number;
  refusedFirstSecond: number;
  windows: Array<{ start: number; accepted: number }>;
}

/** Both limiters here count the budget in windows of a second. */
const WINDOW_MS = 1000;
/** The server's median latency (`limiter-server.mts`). */
const MEDIAN_LATENCY_MS = 30;

/** The ranks of `values`, from 1, ties given the mean of the ranks they share. */
function ranks(values: readonly number[]): number[] {
  const order = values.map((value, index) => ({ value, index })).sort((a, b) => a.value - b.value);
  const result = new Array<number>(values.length);
  for (let first = 0; first < order.length;) {
    let last = first;
    while (last + 1 < order.length && order[last + 1].value === order[first].value) last++;
    for (let i = first; i <= last; i++) result[order[i].index] = (first + last) / 2 + 1;
    first = last + 1;
  }
  return result;
}

/** Spearman's rank correlation of `xs` with `ys`; 0 when either has no spread. */
function rankCorrelation(xs: readonly number[], ys: readonly number[]): number {
  const [rx, ry] = [ranks(xs), ranks(ys)];
  const mean = (xs.length + 1) / 2;
  let covariance = 0;
  let varianceX = 0;
  let varianceY = 0;
  for (let i = 0; i < xs.length; i++) {
    covariance += (rx[i] - mean) * (ry[i] - mean);
    varianceX += (rx[i] - mean) ** 2;
    varianceY += (ry[i] - mean) ** 2;
  }
  return varianceX === 0 || varianceY === 0 ? 0 : covariance / Math.sqrt(varianceX * varianceY);
}

/** Starts a limiter server and resolves with it and its port once it listens. */
export function startServer(kind: string, rate: number, burst?: number): Promise<{ child: ChildProcess; port: number }> {
  const args = [resolve(benchDir, 'http/limiter-server.mts'), kind, String(rate), ...(burst === undefined ? [] : [String(burst)])];
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', ...args], {
      cwd: repoRoot,
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    child.stdout?.setEncoding('utf8');
    child.stdout?.once('data', (line: string) => resolvePromise({ child, port: (JSON.parse(line) as { port: number }).port }));
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`limiter server exited with ${code}`)));
  });
}

/** A client process that runs one order per line of stdin and answers one line each. */
export class Client {
  private readonly child: ChildProcess;
  private readonly answers: Array<(line: string) => void> = [];
  /** Resolves once the process can take orders. */
  readonly ready: Promise<unknown>;

  constructor() {
    this.child = spawn(process.execPath, ['--import', 'tsx', resolve(benchDir, 'http/limiter-client.mts')], {
      cwd: repoRoot,
      stdio: ['pipe', 'pipe', 'inherit'],
    });
    this.ready = new Promise((resolvePromise) => this.answers.push(resolvePromise));
    this.child.stdout?.setEncoding('utf8');
    let buffered = '';
    this.child.stdout?.on('data', (chunk: string) => {
      buffered += chunk;
      let end;
      while ((end = buffered.indexOf('\n')) !== -1) {
        const line = buffered.slice(0, end);
        buffered = buffered.slice(end + 1);
        this.answers.shift()?.(line);
      }
    });
  }

  run(order: object): Promise<Answer> {
    return new Promise((resolvePromise) => {
      this.answers.push((line) => resolvePromise(JSON.parse(line) as Answer));
      this.child.stdin?.write(`${JSON.stringify(order)}\n`);
    });
  }

  close(): void {
    this.child.stdin?.end();
  }
}

/**
 * One run of `strategy` on the server at `base`: its counts reset, every client given `tasks` tasks to
 * start at one instant (`start`, ms since the epoch), what each answered, and the server's counts.
 */
export async function runClients(base: string, clients: readonly Client[], strategy: string, tasks: number, concurrency: number) {
  await fetch(`${base}/reset`, { method: 'POST' }).then((r) => r.arrayBuffer());
  const start = Date.now() + START_MS;
  const order = { url: `${base}/task`, strategy, tasks, start, concurrency };
  const answers = await Promise.all(clients.map((client) => client.run(order)));
  const stats = (await fetch(`${base}/stats`).then((r) => r.json())) as Stats;
  return { start, answers, stats };
}

async function runOnce(base: string, clients: readonly Client[], strategy: Strategy, tasks: number, setting: Setting): Promise<Run> {
  const { concurrency, rate } = setting;
  const { start, answers, stats: everything } = await runClients(base, clients, strategy, tasks, concurrency);
  const { windows, ...stats } = everything;
  const finished = answers.map((c) => c.finishedAt - start);
  const heard = answers.flatMap((c) => (c.firstHeardAfter === null ? [] : [c.firstHeardAfter]));
  return {
    ...stats,
    unspent: windows.slice(0, -1).reduce((sum, w) => sum + Math.max(0, rate - w.accepted), 0),
    idle: windows.slice(1).reduce((sum, w, i) => sum + Math.max(0, w.start - windows[i].start - WINDOW_MS), 0),
    unheard: answers.reduce((sum, c) => sum + c.unheard, 0),
    firstHeardAfter: heard.length === 0 ? 0 : median(heard),
    completed: answers.reduce((sum, c) => sum + c.completed, 0),
    makespan: Math.max(...finished),
    spread: Math.max(...finished) - Math.min(...finished),
    firstSecondFewest: Math.min(...answers.map((c) => c.firstSecond)),
    firstSecondMost: Math.max(...answers.map((c) => c.firstSecond)),
    firstSecondOrder: rankCorrelation(
      answers.map((c) => c.firstSecond),
      finished,
    ),
  };
}

/** One server and its clients: every strategy in turn, in every repetition. */
interface Setting {
  readonly label: string;
  readonly kind: (typeof KINDS)[number];
  readonly rate: number;
  readonly burst?: number;
  readonly clients: number;
  readonly concurrency: number;
  /** The tasks each client runs in repetition `rep`. */
  readonly tasksOf: (rep: number) => number;
}

/** The runs of each strategy in `setting`, in the order of the repetitions. */
async function compare(setting: Setting): Promise<Map<Strategy, Run[]>> {
  const { child, port } = await startServer(setting.kind, setting.rate, setting.burst);
  const base = `http://127.0.0.1:${port}`;
  const runs = new Map<Strategy, Run[]>(STRATEGIES.map((s) => [s, []]));
  const clients = Array.from({ length: setting.clients }, () => new Client());
  try {
    await Promise.all(clients.map((client) => client.ready));
    for (let rep = 0; rep < REPETITIONS; rep++) {
      for (const strategy of STRATEGIES) {
        const run = await runOnce(base, clients, strategy, setting.tasksOf(rep), setting);
        runs.get(strategy)?.push(run);
        progress(`${setting.label} ${strategy} #${rep + 1}: ${run.completed} done, ${run.refused} 429s, ${format.ms(run.makespan)}`);
      }
    }
  } finally {
    for (const client of clients) client.close();
    child.kill('SIGTERM');
  }
  return runs;
}

/** The targets a setting's new pace is held to, and which strategy is that pace there. */
interface Limits {
  /** `rate-limit` where the server announces its budget, `learn-rate` where it sends only `Retry-After`. */
  readonly judged: keyof typeof OPTION_OF;
  readonly makespan: number;
  readonly refused: number;
  /** Whether the clients' finish spread is held to the baseline's: there is none with one client. */
  readonly spread: boolean;
}

/** The option each judged strategy stands for, as the targets name it. */
const OPTION_OF = { 'rate-limit': 'rateLimit', 'learn-rate': 'learnRate' } as const;

/** What `runs` of `setting` show, strategy by strategy, and the targets the new pace is held to. */
function report(setting: Setting, runs: Map<Strategy, Run[]>, limits: Limits) {
  const { label, clients, rate } = setting;
  const at = (strategy: Strategy) => runs.get(strategy) ?? [];
  const med = (strategy: Strategy, field: keyof Run) => median(at(strategy).map((r) => r[field]));
  const range = (strategy: Strategy, field: keyof Run) => {
    const values = at(strategy).map((r) => r[field]);
    return `${format.count(Math.min(...values))} to ${format.count(Math.max(...values))}`;
  };
  /**
   * The median over the repetitions of `strategy`'s `field` against the baseline's in the same repetition:
   * its `field` too, unless `baselineField` names another.
   */
  const ratio = (strategy: Strategy, field: keyof Run, baselineField: keyof Run = field) =>
    median(at(strategy).map((run, rep) => run[field] / Math.max(1, at('baseline')[rep][baselineField])));
  const done = (strategy: Strategy) => at(strategy).filter((run, rep) => run.completed === clients * setting.tasksOf(rep)).length;
  const capacity = (strategy: Strategy) => median(at(strategy).map((run) => run.served / ((rate * run.makespan) / 1000)));
  const figures: Figure[] = STRATEGIES.map((strategy) => ({
    label: `${label}, ${strategy}`,
    value:
      `every task done in ${done(strategy)} of ${REPETITIONS} runs; ` +
      `429s ${format.count(med(strategy, 'refused'))} (${range(strategy, 'refused')}), ${format.ratio(ratio(strategy, 'refused'))} of the baseline's, ` +
      `${format.count(med(strategy, 'refusedFirstSecond'))} in the first second; ` +
      `makespan ${format.ms(med(strategy, 'makespan'))} (${range(strategy, 'makespan')} ms), ${format.ratio(ratio(strategy, 'makespan'))} of the baseline's; ` +
      `capacity used ${(capacity(strategy) * 100).toFixed(0)} %, ` +
      `${format.count(med(strategy, 'unspent'))} of the budget unspent in the windows before the last and ` +
      `${format.ms(med(strategy, 'idle'))} between windows with no request; ` +
      `${format.count(med(strategy, 'unheard'))} 429s to tries sent before their client heard its first, ` +
      `which took ${format.ms(med(strategy, 'firstHeardAfter'))} to come back` +
      (clients > 1
        ? `; finish spread ${format.ms(med(strategy, 'spread'))}; ` +
          `${format.count(med(strategy, 'firstSecondFewest'))} to ${format.count(med(strategy, 'firstSecondMost'))} tasks a client in the first second, ` +
          `whose rank correlation with the client's finish time was ${med(strategy, 'firstSecondOrder').toFixed(2)}`
        : ''),
  }));
  const { judged } = limits;
  const name = OPTION_OF[judged];
  const refusedFirst = med(judged, 'refusedFirstSecond');
  const targets: TargetResult[] = [
    {
      description: `${label}: runs in which every task completes with ${name}`,
      measured: format.count(done(judged)),
      limit: `= ${REPETITIONS}`,
      met: done(judged) === REPETITIONS,
    },
    {
      description: `${label}: makespan, ${name} / baseline`,
      measured: format.ratio(ratio(judged, 'makespan')),
      limit: `<= ${limits.makespan}`,
      met: ratio(judged, 'makespan') <= limits.makespan,
      note:
        `${name} used ${(capacity(judged) * 100).toFixed(0)} % of the server's capacity against the baseline's ` +
        `${(capacity('baseline') * 100).toFixed(0)} % (medians). In the limiter's windows before a run's last, ${name} left ` +
        `${format.count(med(judged, 'unspent'))} requests of the budget unspent (the baseline ${format.count(med('baseline', 'unspent'))}), ` +
        `and the budget waited ${format.ms(med(judged, 'idle'))} in all between one window's end and the next one's first request ` +
        `(the baseline ${format.ms(med('baseline', 'idle'))}).`,
    },
    {
      description: `${label}: 429s, ${name} / baseline`,
      measured: format.ratio(ratio(judged, 'refused')),
      limit: `<= ${limits.refused}`,
      met: ratio(judged, 'refused') <= limits.refused,
      note:
        `${format.count(refusedFirst)} of ${name}'s ${format.count(med(judged, 'refused'))} 429s (medians) came in the ` +
        `run's first second, its first window, while every client ramps up from its first try; that second alone is ` +
        `${format.ratio(refusedFirst / Math.max(1, med('baseline', 'refused')))} of the baseline's 429s. ` +
        `${format.count(med(judged, 'unheard'))} of the 429s were to tries sent before their client heard its first, ` +
        `which took ${format.ms(med(judged, 'firstHeardAfter'))} to come back against a success's median latency of ${MEDIAN_LATENCY_MS} ms: ` +
        `nothing a client learns from its own 429s could have spared those.` +
        (judged === 'learn-rate'
          ? ` Those alone are ${format.ratio(ratio(judged, 'unheard', 'refused'))} of the baseline's 429s (\`retry\`'s, ` +
            `on the same ramp: ${format.ratio(ratio('retry', 'unheard', 'refused'))}; medians of each repetition's ratio): ` +
            `until a client hears its first 429 its tries start when §9's ramp says, since with nothing announced §13 ` +
            `leaves a run exactly §9 and §10, and \`learnRate\` sets no limit before a throttle.`
          : ''),
    },
  ];
  if (limits.spread) {
    targets.push({
      description: `${label}: finish spread, ${name} / baseline`,
      measured: format.ratio(ratio(judged, 'spread')),
      limit: '<= 1',
      met: ratio(judged, 'spread') <= 1,
      note:
        `In the run's first second, from which each client learns its share, one client completed ` +
        `${format.count(med(judged, 'firstSecondFewest'))} to ${format.count(med(judged, 'firstSecondMost'))} tasks with ${name}, ` +
        `${format.count(med('baseline', 'firstSecondFewest'))} to ${format.count(med('baseline', 'firstSecondMost'))} with the baseline ` +
        `(medians of the fewest and the most). The rank correlation of what a client completed in that second with when it ` +
        `finished (-1: the clients that did most then finish first, in order) was ${med(judged, 'firstSecondOrder').toFixed(2)} ` +
        `with ${name} and ${med('baseline', 'firstSecondOrder').toFixed(2)} with the baseline (medians).`,
    });
  }
  return { figures, targets };
}

/**
 * Real rate limiters over real HTTP (§13): express-rate-limit and rate-limiter-flexible in a server
 * process on 127.0.0.1, ten client processes with real `fetch` sharing one budget, in real time; and
 * one client as a browser tab has it.
 */
export const realLimiters: Scenario = {
  name: 'real-limiters',
  title: 'Real rate limiters over real HTTP: ten clients sharing one budget, and one browser tab',
  async run() {
    const figures: Figure[] = [];
    const targets: TargetResult[] = [];
    for (const kind of KINDS) {
      for (const rate of RATES) {
        const setting: Setting = {
          label: `${kind} ${rate}/s`,
          kind,
          rate,
          clients: CLIENTS,
          concurrency: CONCURRENCY,
          tasksOf: (rep) => Math.round((rate * SECONDS_OF_WORK[rep]) / CLIENTS),
        };
        const headers = kind === 'express';
        const shown = report(setting, await compare(setting), {
          judged: headers ? 'rate-limit' : 'learn-rate',
          makespan: headers ? 1.05 : 1.1,
          refused: headers ? 0.05 : 0.1,
          spread: true,
        });
        figures.push(...shown.figures);
        targets.push(...shown.targets);
      }
    }
    const tab: Setting = {
      label: `one tab, ${TAB.rate}/s and a burst of ${TAB.burst}`,
      kind: 'flexible',
      rate: TAB.rate,
      burst: TAB.burst,
      clients: 1,
      concurrency: TAB.concurrency,
      tasksOf: () => TAB.tasks,
    };
    const shown = report(tab, await compare(tab), { judged: 'learn-rate', makespan: 1.05, refused: 0.25, spread: false });
    figures.push(...shown.figures);
    targets.push(...shown.targets);
    return {
      name: this.name,
      title: this.title,
      method:
        `A server process on 127.0.0.1 with a real limiter in front of a handler that sleeps a log-normal latency ` +
        `(median 30 ms, sigma 0.5): express 5.3 with express-rate-limit 8.7 (a fixed window of 1 s, draft-8 \`RateLimit\` ` +
        `headers on every response), and rate-limiter-flexible 11.4's \`BurstyRateLimiter\` (the rate, and a burst of ` +
        `half as many over 10 s; its 429 carries only \`Retry-After\`). ${CLIENTS} client processes with real \`fetch\` ` +
        `share one key, start at one instant, and run ${SECONDS_OF_WORK.join(', ')} seconds of the server's capacity between them, one size a repetition (a whole number of windows favours what over-asks), ` +
        `at ${RATES.join(' and ')} requests a second. Per client: \`baseline\` is \`mergeMap(task, ${CONCURRENCY})\` with ` +
        `RxJS \`retry({ count: 100, delay })\` honouring \`Retry-After\` (1 s without one); \`gives-up\` the same with ` +
        `\`count: 8\`; the others are \`slowStart\` with window pacing, \`maxBatchSize: ${CONCURRENCY}\` and \`retry\` reading ` +
        `\`retryAfter\`, then with \`learnRate\`, then with \`rateLimit: true\`. The strategies alternate in each of ` +
        `${REPETITIONS} repetitions; figures are medians, with ranges, and ratios are the medians of each repetition's ratio ` +
        `to the baseline's run beside it. Ours wait what the server asks, or a second, with no backoff of their own ` +
        `(\`delay: 0\`), as the baseline does. 429s are the server's count; capacity used is what it served against the ` +
        `rate times the makespan; the server also counts the 429s of the second after a run's first request, and each client what it completed in the run's first second. The targets ` +
        `judge \`rateLimit\` where the server announces its budget (express) and \`learnRate\` where it sends only ` +
        `\`Retry-After\` (rate-limiter-flexible, and the tab), the pace for each. One tab: a single client with ${TAB.concurrency} in flight (\`mergeMap(task, ${TAB.concurrency})\` ` +
        `for the baseline, \`maxBatchSize: ${TAB.concurrency}\` for ours) runs ${TAB.tasks} tasks against rate-limiter-flexible ` +
        `at ${TAB.rate} a second with a burst of ${TAB.burst}.`,
      figures,
      targets,
    };
  },
};
