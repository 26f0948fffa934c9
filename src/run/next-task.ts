// Which task starts next, and where its result goes: a retried task if the pacing takes one, or else
// the oldest waiting factory, placed in the results as the pacing groups them.
import type { Pacing } from '../pacing/pacing.js';
import type { ResultBook } from '../result-book.js';
import type { FlushClock } from './flush-clock.js';
import type { Intake } from './intake.js';
import type { RetryQueue } from './retry-queue.js';
import type { TaskSet } from './task-set.js';

/** What starting a task reads from and writes to. */
export interface StartParts<T> {
  readonly intake: Intake;
  readonly retries: RetryQueue<T>;
  readonly tasks: TaskSet<T>;
  readonly book: ResultBook<T>;
  /** Only when `flushAfter` is set. */
  readonly flush: FlushClock | undefined;
}

/** Starts the next task: a retried one if `pacing` takes it, or else the oldest waiting factory. */
export function startNextTask<T>(pacing: Pacing, { intake, retries, tasks, book, flush }: StartParts<T>): void {
  // Most starts find no retry waiting: no call into the queue for them.
  const retry = retries.length > 0 && pacing.takesRetry() ? retries.shift() : undefined;
  if (retry !== undefined) {
    // The same result and index, the next attempt, a fresh context.
    tasks.start(retry.group, retry.position, retry.factory, retry.attempt + 1, pacing.start(true).drops);
    return;
  }
  // A flush is spent by the batch it starts, and so is its timer, armed for the oldest factory.
  flush?.started();
  const factory = intake.take();
  const start = pacing.start(false);
  // A result holds no more tasks than wait now and may join it: its nominal size can be far larger.
  const group = book.join(start.beginsResult, Math.min(start.resultSize, intake.length + 1));
  if (start.closesResult) book.closeLast();
  tasks.start(group, group.joined - 1, factory, 1, start.drops);
}
