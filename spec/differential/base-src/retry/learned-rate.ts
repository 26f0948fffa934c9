// `retry.learnRate`: after a throttle, each pause's worth of time starts no more tasks than the server
// served the run in the last one.
//
// A server that sends only `Retry-After` says nothing of its budget until it is spent. Its 429 then
// says two things: the budget is spent, and when there is room again. What the run was served from the
// end of the last pause to the end of this one is its share of one budget, and the pause is how long a
// budget lasts: so the run may start that many tasks per pause, and no more, without being refused.
// The starts of each pause are spread over its first tenth, not sent at once: clients sharing the
// budget then find it spent one try each, not a volley each. A pause in which every allowed start went
// out unrefused allows twice as many, plus one, in the next, as TCP's slow start doubles: capacity that
// other clients leave (they finish, or the limit is raised) is found in fewer pauses, and a run's last
// pauses, when most clients are done, are not spent a few starts at a time. Unless the last two throttled
// pauses served about the same: then that count is the server's limit, not a share that other clients'
// demand moves, and doubling past it only buys the next throttle sooner. So the next clean pause allows
// that count again, and the one after it one more, before doubling resumes (CUBIC's reasoning: grow
// back to where the last loss was, and probe slowly there).
import { MAX_TIMER_DELAY } from '../timer-limit.js';

/**
 * The most a throttle's pause is lengthened at random, as a share of it: clients throttled in one
 * burst would otherwise all come back in one millisecond, and be throttled together again.
 */
export const JITTER = 0.05;

/** The share of what a pause served that the next one allows: readings are a latency old. */
export const MARGIN = 0.9;

/**
 * The least share of its allowance a throttle leaves: a throttle soon after a pause began has not
 * seen the pause's whole share served, and an outage serves nothing at all.
 */
export const KEPT_AT_A_THROTTLE = 0.7;

/** How much a pause's allowance grows when all of it started unrefused: by this share, plus one. */
export const GROWTH = 1;

/**
 * How close the counts two throttled pauses served must be, as a share of the larger, for the run to
 * take them as the server's limit: a client alone at a limit is served the same each time, one of many
 * a share that moves with the others' demand.
 */
export const STEADY = 0.1;

/**
 * The part of a pause over which its allowance is spread. Wide enough that clients sharing a budget
 * interleave their starts; narrow, because a limiter whose window opens at its first request holds the
 * next window back for as long as this one takes to spend.
 */
export const SPREAD = 0.1;

/**
 * The starts a run may make per pause, learned from its throttles, on the scheduler's clock (ms).
 * Before the first drop of the pace there is no limit. At a drop the pause (a throttle's wait) becomes
 * the length of a cycle; at the end of that pause the allowance becomes {@link MARGIN} of the successes
 * since the cycle before began (since the first start, for the first drop), tries in flight at the drop
 * included, and at least {@link KEPT_AT_A_THROTTLE} of the allowance before and at least one: a run is
 * never slower than one start per pause.
 */
export class LearnedRate {
  /**
   * @param onLearned Told each allowance measured, as tasks per second.
   * @param random A number in [0, 1): the jitter of a throttle's pause.
   */
  constructor(
    private readonly onLearned?: (perSecond: number) => void,
    private readonly random: () => number = Math.random,
  ) {}

  /** When the current cycle began: the first start, the end of a pause, or the first start after a cycle ran out. */
  private cycleStart: number | undefined;
  /** How long a cycle lasts: the last drop's pause. */
  private cycleLength = 0;
  /** Successes since the cycle began, and through a pause, until the allowance is measured. */
  private served = 0;
  /** Starts in the current cycle. */
  private startedInCycle = 0;
  /** Starts a cycle allows, once a drop has measured it. */
  private allowance: number | undefined;
  /** Set from a drop to the first start after its pause: the tries in flight at the drop still count. */
  private measuring = false;
  /** What the last throttled pause served, to compare the next one's with: none before the first. */
  private lastServed = 0;
  /**
   * What the last two throttled pauses both served, when they agreed: the server's limit, and whether a
   * clean pause has allowed one more than it since.
   */
  private limit: { readonly count: number; probed: boolean } | undefined;

  /** A task starts at `now`. Returns the earliest time the next one may start: `now` while there is no limit. */
  started(now: number): number {
    this.cycleStart ??= now;
    if (this.measuring && now >= this.cycleStart) this.measure();
    if (this.allowance === undefined) return now;
    if (now >= this.cycleStart + this.cycleLength) this.nextCycle(now, this.allowance);
    const allowed = Math.max(1, Math.floor(this.allowance));
    if (++this.startedInCycle >= allowed) return this.cycleStart + this.cycleLength;
    return now + (SPREAD * this.cycleLength) / allowed;
  }

  /** A throttle asks for a pause of `pause` ms: it lasts up to {@link JITTER} of that longer, at random, within what a timer holds. */
  jittered(pause: number): number {
    return Math.min(MAX_TIMER_DELAY, pause * (1 + JITTER * this.random()));
  }

  /** A task has succeeded. */
  succeeded(): void {
    this.served++;
  }

  /** The pace dropped at `now` after a throttle, and the pause ends at `pauseEnd`. */
  dropped(now: number, pauseEnd: number): void {
    this.cycleLength = Math.max(1, pauseEnd - now);
    this.cycleStart = pauseEnd;
    this.measuring = true;
  }

  /** The pause is over: what the cycle that ended with it served sets the next one's allowance. */
  private measure(): void {
    this.measuring = false;
    const { served, lastServed } = this;
    const allowance = Math.max(1, served * MARGIN, (this.allowance ?? 0) * KEPT_AT_A_THROTTLE);
    this.allowance = allowance;
    // Nothing served is an outage, not a limit; nor is a first count, against the none before it.
    const steady = served > 0 && Math.abs(served - lastServed) <= STEADY * Math.max(served, lastServed);
    this.limit = steady ? { count: served, probed: false } : undefined;
    this.lastServed = served;
    this.startedInCycle = 0;
    this.served = 0;
    this.onLearned?.((allowance * 1000) / this.cycleLength);
  }

  /** A cycle ran out without a throttle at `now`: the next begins, with more if all of this one started. */
  private nextCycle(now: number, allowance: number): void {
    if (this.startedInCycle >= Math.floor(allowance)) this.allowance = this.grown(allowance);
    this.cycleStart = now;
    this.startedInCycle = 0;
    this.served = 0;
  }

  /** The allowance after a cycle that started all of `allowance` unrefused: back to a known limit, one past it, or twice as many and one. */
  private grown(allowance: number): number {
    const { limit } = this;
    if (limit === undefined || limit.probed) return allowance * (1 + GROWTH) + 1;
    if (allowance < limit.count) return limit.count;
    limit.probed = true;
    return allowance + 1;
  }
}
