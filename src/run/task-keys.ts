// Each task's key (§15): the `keys` option's, or its position; and, on a run that resumes a
// checkpoint, which tasks are done already and which are in doubt.
import { KeySet } from '../checkpoint/key-set.js';
import type { TaskKey } from '../events.js';
import type { ResolvedResume } from '../resolve-options.js';

export class TaskKeys {
  /** On a resumed run, the keys of the tasks it runs, by their index in it; `undefined` otherwise. */
  private readonly kept: TaskKey[] | undefined;
  /** On a resumed run: the tasks done already (succeeded, or failed for good as items), and those in doubt. */
  private readonly succeeded: KeySet | undefined;
  private readonly failed: KeySet | undefined;
  private readonly doubted: KeySet | undefined;
  /** How many tasks a resumed run has left out, done already. */
  skipped = 0;

  /**
   * @param keys The `keys` option: a task's key by its position in the source.
   * @param resume The checkpoint the run resumes, if any.
   */
  constructor(
    private readonly keys: readonly TaskKey[] | undefined,
    resume: ResolvedResume | undefined,
  ) {
    if (resume === undefined) return;
    const { checkpoint } = resume;
    this.kept = [];
    this.succeeded = KeySet.from(checkpoint.succeeded);
    this.failed = KeySet.from(checkpoint.failed);
    this.doubted = KeySet.from(checkpoint.inDoubt);
  }

  /** The key of the task at `position` in the source. */
  private sourceKey(position: number): TaskKey {
    const { keys } = this;
    return keys !== undefined && position < keys.length ? keys[position] : position;
  }

  /** The key of the task at `index` in the run. */
  keyOf(index: number): TaskKey {
    return this.kept === undefined ? this.sourceKey(index) : this.kept[index];
  }

  /**
   * The factory at `position` in the source has arrived: returns whether the run leaves it out, as a
   * checkpoint it resumes has it done. A task it keeps takes the next index of the run.
   */
  leavesOut(position: number): boolean {
    const { kept } = this;
    if (kept === undefined) return false;
    const key = this.sourceKey(position);
    if ((this.succeeded as KeySet).has(key) || (this.failed as KeySet).has(key)) {
      this.skipped++;
      return true;
    }
    kept.push(key);
    return false;
  }

  /** Whether the task at `index` in the run was in doubt in the checkpoint it resumes: it may have taken effect. */
  inDoubt(index: number): boolean {
    return this.doubted !== undefined && this.doubted.has(this.keyOf(index));
  }
}
