// N clients, each with its own `AnnouncedBudget`, drawing from one server's fixed-window budget, in
// virtual time: nothing but the pace decides when a client starts. The clients do not know how many
// they are; each hears only the answers to its own tries.
import { AnnouncedBudget } from '../../src/announced-budget';

/** mulberry32: the model's draws repeat from one run to the next. */
function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = Math.imul(state ^ (state >>> 15), state | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export interface FixedWindowModel {
  /** Requests the server serves in each window. */
  readonly limit: number;
  /** The window's length in ms; windows begin at 0, W, 2W, ... */
  readonly window: number;
  /** When each client begins, in ms: a client that begins late finds the others' split in place. */
  readonly begins: readonly number[];
  /** How long the model runs, in ms. */
  readonly until: number;
  /** The most tries a client has in flight, as `maxBatchSize` would allow. */
  readonly inFlight?: number;
  /** The seed of every draw: latencies and each client's jitter. */
  readonly seed?: number;
  /** Tasks each client has: it is done once that many are served. Unbounded without. */
  readonly tasks?: number;
  /**
   * When the server's windows begin: on the clock, at 0, W, 2W, ... (the default), or at the first try
   * it counts after the last one ended, as express-rate-limit's memory store does.
   */
  readonly windowsBegin?: 'on-the-clock' | 'at-first-try';
}

export interface ClientTally {
  /** Tries served in each window, by the window's index: its place in the order windows began. */
  readonly servedIn: number[];
  /** Tries refused (429). */
  refused: number;
  /** When its last task was served, if it has done them all. */
  finishedAt?: number;
}

/**
 * Runs the model: each client starts whenever its pace lets it and it has room in flight; a try is
 * counted by the server as it is sent and answered after a latency of 20 to 60 ms, with the budget
 * announced as draft-8 headers would (the reset in whole seconds, rounded up). A refused try is
 * retried, and the client pauses until the `Retry-After` the server sends, as `retry` does.
 */
export function runFixedWindowModel(model: FixedWindowModel): ClientTally[] {
  const { limit, window, begins, until, inFlight: maxInFlight = 16, seed = 1, tasks = Infinity, windowsBegin = 'on-the-clock' } = model;
  const random = seededRandom(seed);
  const served = new Map<number, number>();
  /** The server's latest window, and when it ends, when windows begin at a first try. */
  let latest = { index: -1, end: -Infinity };
  /** The window a try counted at `at` falls in. */
  const windowAt = (at: number) => {
    if (windowsBegin === 'on-the-clock') return { index: Math.floor(at / window), end: (Math.floor(at / window) + 1) * window };
    if (at >= latest.end) latest = { index: latest.index + 1, end: at + window };
    return latest;
  };
  const tallies: ClientTally[] = begins.map(() => ({ servedIn: [], refused: 0 }));
  /** Pending events, kept sorted by time (then by insertion). */
  const events: { at: number; seq: number; run: () => void }[] = [];
  let seq = 0;
  let now = 0;
  const schedule = (at: number, run: () => void) => {
    const event = { at, seq: seq++, run };
    let i = events.length;
    while (i > 0 && (events[i - 1].at > at || (events[i - 1].at === at && events[i - 1].seq > event.seq))) i--;
    events.splice(i, 0, event);
  };
  begins.forEach((begin, client) => {
    const pace = new AnnouncedBudget(seededRandom(seed * 1000 + client));
    const tally = tallies[client];
    let started = 0;
    let flying = 0;
    /** Tasks served. */
    let done = 0;
    let pausedUntil = begin;
    /** The time of the wake-up armed, so that one is armed at a time. */
    let wakeAt = Infinity;
    /** Runs `pump` again at `at`, unless a wake-up no later is armed. */
    const wakeUp = (at: number) => {
      if (at >= wakeAt) return;
      wakeAt = at;
      schedule(at, () => {
        if (wakeAt === at) wakeAt = Infinity;
        pump();
      });
    };
    const pump = () => {
      // Slow start: one in flight, and one more for each success, up to the most.
      while (flying < Math.min(maxInFlight, 1 + done) && done + flying < tasks && now >= pausedUntil) {
        // The tries still to start, as the run tells them once its source is done.
        const next = pace.nextStart(now, started, tasks - done - flying);
        if (next > now) {
          wakeUp(next);
          return;
        }
        send();
      }
      if (now < pausedUntil) wakeUp(pausedUntil);
    };
    const send = () => {
      const order = ++started;
      flying++;
      pace.nextStart(now, started);
      const { index, end } = windowAt(now);
      const count = (served.get(index) ?? 0) + 1;
      const refused = count > limit;
      if (!refused) {
        served.set(index, count);
        tally.servedIn[index] = (tally.servedIn[index] ?? 0) + 1;
      }
      const resetIn = Math.ceil((end - now) / 1000) * 1000;
      const remaining = refused ? 0 : limit - count;
      const latency = 20 + 40 * random();
      schedule(now + latency, () => {
        flying--;
        pace.announced({ limit, remaining, resetIn, window }, now, order);
        if (refused) {
          tally.refused++;
          pausedUntil = Math.max(pausedUntil, now + resetIn);
        } else if (++done === tasks) tally.finishedAt = now;
        pump();
      });
    };
    schedule(begin, pump);
  });
  while (events.length > 0 && events[0].at <= until) {
    const event = events.shift()!;
    now = event.at;
    event.run();
  }
  return tallies;
}

/** Each client's part of what the server served in windows `from` to `to` (excluded). */
export function partsServed(tallies: readonly ClientTally[], from: number, to: number): number[] {
  const each = tallies.map(({ servedIn }) => {
    let sum = 0;
    for (let index = from; index < to; index++) sum += servedIn[index] ?? 0;
    return sum;
  });
  const total = each.reduce((a, b) => a + b, 0);
  return each.map((part) => part / total);
}
