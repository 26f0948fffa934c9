// A run's events folded into its checkpoints (§15): what succeeded, failed for good or is in doubt,
// and the pace, as plain data after each event that changes them.
import type { SlowStartEvent, TaskKey } from '../events.js';
import { CHECKPOINT_VERSION, type SlowStartCheckpoint } from './checkpoint.js';
import { KeySet } from './key-set.js';

export class CheckpointFold {
  /** The checkpoint the run resumed, if any: its counts carry on in this run's. */
  private sequence = 0;
  private fingerprint = '';
  private succeeded = new KeySet();
  private failed = new KeySet();
  /** Started, and no answer yet that says the task did not take effect. */
  private inDoubt = new KeySet();
  /**
   * In doubt from the run resumed: invoked again in this one, they stay in doubt until they succeed or
   * fail as items, whatever their new tries hear first (the lost try may still have taken effect).
   */
  private carried = new KeySet();
  private limit = 1;
  private threshold: number | null = null;
  private perSecond: number | null = null;
  private pausedUntil: number | null = null;
  private ended: SlowStartCheckpoint['ended'] = null;

  /** Folds `event` in; returns the checkpoint it makes, or `undefined` for an event that changes none. */
  next(event: SlowStartEvent): SlowStartCheckpoint | undefined {
    switch (event.type) {
      case 'start':
        this.begin(event.fingerprint, event.resumed);
        break;
      case 'started':
        this.inDoubt.add(event.key);
        break;
      case 'succeeded':
        this.answered(event.key, this.succeeded);
        break;
      case 'failed':
        // A fatal failure stops the run; the task is run again when the job resumes.
        if (event.kind === 'item') this.answered(event.key, this.failed);
        break;
      case 'throttled':
        // The server turned the try away: it took no effect, unless an earlier try of the task did.
        if (!this.carried.has(event.key)) this.inDoubt.delete(event.key);
        break;
      case 'pace':
        this.limit = event.limit;
        this.threshold = event.threshold ?? null;
        break;
      case 'rate':
        this.perSecond = event.perSecond;
        break;
      case 'paused':
        this.pausedUntil = event.until;
        break;
      case 'end':
        this.ended = event.how;
        break;
      case 'retrying':
      case 'abandoned':
      case 'cancelled':
        // No answer, or one that does not say the try took no effect: the task stays in doubt.
        break;
      default:
        return undefined;
    }
    return this.checkpoint(event.time);
  }

  /** A run starts, resuming `resumed` if given: its keys and its sequence carry on. */
  private begin(fingerprint: string, resumed: SlowStartCheckpoint | undefined): void {
    // A run that goes on with the end's `unfinished` runs part of the job: the job keeps the source it
    // began with, which a new process resumes whole.
    if (this.sequence === 0 || resumed !== undefined) this.fingerprint = fingerprint;
    this.ended = null;
    if (resumed === undefined) return;
    this.sequence = resumed.sequence;
    this.succeeded = KeySet.from(resumed.succeeded);
    this.failed = KeySet.from(resumed.failed);
    this.inDoubt = KeySet.from(resumed.inDoubt);
    this.carried = KeySet.from(resumed.inDoubt);
  }

  /** The task `key` has its answer for good: it goes into `set`, and is no longer in doubt. */
  private answered(key: TaskKey, set: KeySet): void {
    set.add(key);
    this.inDoubt.delete(key);
    this.carried.delete(key);
  }

  private checkpoint(now: number): SlowStartCheckpoint {
    const { pausedUntil } = this;
    return {
      version: CHECKPOINT_VERSION,
      sequence: ++this.sequence,
      fingerprint: this.fingerprint,
      savedAt: now,
      succeeded: this.succeeded.toList(),
      failed: this.failed.toList(),
      inDoubt: this.inDoubt.toList(),
      pace: {
        limit: this.limit,
        threshold: this.threshold,
        perSecond: this.perSecond,
        pausedUntil: pausedUntil !== null && pausedUntil > now ? pausedUntil : null,
      },
      ended: this.ended,
    };
  }
}
