// How many tasks may start now, and which first: what the pacing's room, `concurrency`, the waiting
// tasks and the gate allow. The admission reads no clock and keeps no timer: the waits and their gate
// (waits/) say when starts may come; the outcomes (outcomes.ts) book how each try ended.
import type { Backlog, Pacing } from '../pacing/pacing.js';
import type { Backoffs } from './backoffs.js';
import { startNextTask, type StartParts } from './next-task.js';
import type { Reporter } from './reporter.js';
import type { StartGate } from './waits/start-gate.js';

/** The run's pieces the admission reads and starts tasks into. */
export interface AdmissionParts<T> extends StartParts<T> {
  /** The tasks waiting out a backoff alone: not startable until they are due, but still to start. */
  readonly backoffs: Backoffs<T>;
  /** Only when someone listens to the run's events. */
  readonly reporter: Reporter<T> | undefined;
}

/** What the admission tells the pacing: one object, filled in anew before each question. */
class Observed implements Backlog {
  inFlight!: number;
  waiting!: number;
  retrying!: number;
  mayStartShort!: boolean;
}

export class Admission<T> {
  /** What the pacing is told; filled in by `observe` before each question. */
  private readonly backlog = new Observed();
  /**
   * Set when a throttle or a wait changes what may start, since `startable()` last answered; it has
   * no value before that first answer, which nothing reads.
   */
  private startsChanged!: boolean;
  /** Set once the run stops starting (a failure for good, or the source's error): no task is retried. */
  private stopping = false;

  /**
   * @param pacing How many may be in flight, and how tasks group into results.
   * @param concurrency How many tasks may be in flight at most, whatever the pacing allows.
   * @param gate Whether a wait holds every start now.
   * @param parts What waits, the tasks in flight, the results, the flush clock and the reporter.
   */
  constructor(
    private readonly pacing: Pacing,
    private readonly concurrency: number,
    private readonly gate: StartGate,
    private readonly parts: AdmissionParts<T>,
  ) {}

  /** How many tasks wait to start: retried ones and new factories. */
  get waiting(): number {
    return this.parts.retries.length + this.parts.intake.length;
  }

  /** How many tasks are still to start: waiting now, or waiting out a backoff. */
  get pending(): number {
    return this.waiting + this.parts.backoffs.length;
  }

  /** Whether a retried task waits. */
  get retrying(): boolean {
    return this.parts.retries.length > 0;
  }

  /** Whether the run has stopped starting: no task is tried again. */
  get isStopping(): boolean {
    return this.stopping;
  }

  /**
   * How many tasks the pacing lets start now, before `concurrency` and what waits are counted. Not a
   * plain question: in batch pacing, once a batch has settled, it opens the next.
   */
  openRoom(): number {
    return this.pacing.openRoom(this.observe());
  }

  /**
   * How many tasks may start now: none while the gate holds them, else what the pacing, `concurrency`
   * and the waiting tasks allow. The answer holds until `changed()`.
   */
  startable(): number {
    if (this.gate.isShut()) return 0;
    this.startsChanged = false;
    return Math.min(this.openRoom(), this.concurrency - this.parts.tasks.active, this.waiting);
  }

  /**
   * Whether a throttle or a wait has changed what may start since `startable()` answered, even when the
   * pause it asks for is already under way: the runner stops starting, and asks again.
   */
  changed(): boolean {
    return this.startsChanged;
  }

  /** What may start has changed: see `changed()`. */
  invalidate(): void {
    this.startsChanged = true;
  }

  /** Whether nothing can start now, with a factory just arrived. Only a shortcut: the runner's `pump` would start nothing. */
  cannotStartNow(): boolean {
    return this.gate.isShut() || this.openRoom() === 0;
  }

  /** Starts the next task: a retried one if the pacing takes it, or else the oldest waiting factory. */
  startNext(): void {
    startNextTask(this.pacing, this.parts);
  }

  /** Asks a lazy source for the factories the pacing would start now and that are not waiting yet. */
  askSource(): void {
    const { intake } = this.parts;
    if (!intake.pulls) return;
    // The source's own code runs: a start after it reads the clock again.
    this.parts.reporter?.forgetReading();
    const backlog = this.observe();
    intake.request(Math.max(0, this.pacing.wants(backlog) - backlog.waiting));
  }

  /**
   * Asks a lazy source for what the pacing would start now, and arms the flush timer if it may fire:
   * not during a pause, whose own timer looks again when it ends, and not once the run stops starting.
   */
  askForFactories(): void {
    this.askSource();
    if (this.parts.tasks.active === 0 && !this.stopping && !this.gate.isShut()) this.parts.flush?.arm();
  }

  /** The run stops starting: no new round of the pace opens, and no task is tried again. */
  stop(): void {
    this.stopping = true;
    this.pacing.stop();
    this.parts.tasks.stopWaiting();
  }

  /** Updates what the pacing is told: what is in flight, and what could start now. */
  private observe(): Backlog {
    const { backlog } = this;
    const { intake, tasks, flush, retries } = this.parts;
    backlog.inFlight = tasks.active;
    backlog.retrying = retries.length;
    backlog.waiting = backlog.retrying + intake.length;
    backlog.mayStartShort = intake.done || flush?.due === true;
    return backlog;
  }
}
