// Each task's key (§15): the `keys` option's (an array by position, or a function asked as each task
// comes), or its position; and, on a run that resumes a checkpoint, which tasks are done already and
// which are in doubt.
import { KeySet } from '../checkpoint/key-set.js';
import type { TaskKey } from '../events.js';
import { expected } from '../expected.js';
import type { ResolvedOptions, ResolvedResume } from '../resolve-options.js';

export class TaskKeys {
  /** The `keys` array, read by position; `undefined` for a function or no option. */
  private readonly array: readonly TaskKey[] | undefined;
  /** The `keys` function, asked once for each task that comes. */
  private readonly ask: ((index: number) => unknown) | undefined;
  /**
   * The keys of the tasks the run keeps, by their index in it, when their position cannot give them:
   * on a resumed run, which leaves tasks out, and with a `keys` function. `undefined` otherwise.
   */
  private readonly kept: TaskKey[] | undefined;
  /** Under a `keys` function: the position that first gave each key, to refuse it a second time. */
  private readonly seen: Map<TaskKey, number> | undefined;
  /** On a resumed run: the tasks done already (succeeded, or failed for good as items), and those in doubt. */
  private readonly succeeded: KeySet | undefined;
  private readonly failed: KeySet | undefined;
  private readonly doubted: KeySet | undefined;

  /**
   * @param keys The `keys` option.
   * @param resume The checkpoint the run resumes, if any.
   */
  constructor(keys: ResolvedOptions['keys'], resume: ResolvedResume | undefined) {
    if (typeof keys === 'function') {
      this.ask = keys;
      this.seen = new Map();
    } else {
      this.array = keys;
    }
    if (resume === undefined && this.ask === undefined) return;
    this.kept = [];
    if (resume === undefined) return;
    const { checkpoint } = resume;
    this.succeeded = KeySet.from(checkpoint.succeeded);
    this.failed = KeySet.from(checkpoint.failed);
    this.doubted = KeySet.from(checkpoint.inDoubt);
  }

  /** The key of the task at `index` in the run. */
  keyOf(index: number): TaskKey {
    return this.kept !== undefined ? this.kept[index] : this.positionKey(index);
  }

  /**
   * The factory at `position` in the source has arrived: returns whether the run leaves it out, as a
   * checkpoint it resumes has it done. A task it keeps takes the next index of the run. Throws what
   * refuses the task: its key from the `keys` function is not a key, or is another task's already.
   */
  leavesOut(position: number): boolean {
    const { kept } = this;
    if (kept === undefined) return false;
    const key = this.keyAt(position);
    if (this.succeeded?.has(key) === true || this.failed?.has(key) === true) return true;
    kept.push(key);
    return false;
  }

  /** Whether the task at `index` in the run was in doubt in the checkpoint it resumes: it may have taken effect. */
  inDoubt(index: number): boolean {
    return this.doubted !== undefined && this.doubted.has(this.keyOf(index));
  }

  /** The key of the task at `position` in the source: from the `keys` array or function, else the position. */
  private keyAt(position: number): TaskKey {
    const { ask, seen } = this;
    if (ask === undefined || seen === undefined) return this.positionKey(position);
    const key = ask(position);
    if (typeof key !== 'string' && (typeof key !== 'number' || !Number.isFinite(key))) {
      throw new TypeError(expected(`keys(${position})`, 'a string or a finite number', key));
    }
    const first = seen.get(key);
    if (first !== undefined)
      throw new RangeError(expected(`keys(${position})`, `a key of its own (\`keys(${first})\` gave the same key)`, key));
    seen.set(key, position);
    return key;
  }

  /** The key of the task at `position` in the source without a `keys` function: the array's, else the position. */
  private positionKey(position: number): TaskKey {
    const { array } = this;
    return array !== undefined && position < array.length ? array[position] : position;
  }
}
