// The waits a run's options ask for.
import { AnnouncedBudget } from '../../announced-budget.js';
import type { ResolvedOptions } from '../../resolve-options.js';
import { LearnedRate } from '../../retry/learned-rate.js';
import type { Reporter } from '../reporter.js';
import { AnnouncedHold } from './announced-hold.js';
import { LearnedSpacing } from './learned-spacing.js';
import { RestoredPause } from './restored-pause.js';
import { ThrottlePause } from './throttle-pause.js';
import type { Wait } from './wait.js';

/** Every source of waiting of one run, by name, and all of them for the gate. */
export interface Waits {
  /** The pause after a throttle: every run has one; only `retry` throttles. */
  readonly throttle: ThrottlePause;
  /** Under `retry.learnRate`. */
  readonly learned: LearnedSpacing | undefined;
  /** Under `rateLimit`: the hold, and what reads the budget from a try's value or error. */
  readonly announced: { readonly hold: AnnouncedHold; readonly read: NonNullable<ResolvedOptions['rateLimit']> } | undefined;
  /** Under `resume`: a pause the checkpoint recorded, set when the run begins. */
  readonly restored: RestoredPause | undefined;
  readonly all: readonly Wait[];
}

/**
 * The waits `options` ask for; `reporter`, when someone listens, hears each rate learned; `toStart`
 * says how many tries the run has still to start, or `Infinity` while its source may bring more.
 */
export function createWaits(
  options: Pick<ResolvedOptions, 'retry' | 'rateLimit' | 'resume'>,
  reporter: Pick<Reporter<unknown>, 'rate'> | undefined,
  toStart?: () => number,
): Waits {
  const throttle = new ThrottlePause();
  const learned =
    options.retry?.learnRate === true
      ? new LearnedSpacing(new LearnedRate(reporter && ((perSecond) => reporter.rate(perSecond))))
      : undefined;
  const read = options.rateLimit;
  const announced = read === undefined ? undefined : { hold: new AnnouncedHold(new AnnouncedBudget(), toStart), read };
  const restored = options.resume === undefined ? undefined : new RestoredPause();
  const all: Wait[] = [throttle];
  if (learned !== undefined) all.push(learned);
  if (announced !== undefined) all.push(announced.hold);
  if (restored !== undefined) all.push(restored);
  return { throttle, learned, announced, restored, all };
}
