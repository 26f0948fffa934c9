import { HttpClient, HttpErrorResponse } from '@angular/common/http';
import { DestroyRef, Injectable, PendingTasks, computed, inject, signal } from '@angular/core';
import { toSignal } from '@angular/core/rxjs-interop';
import { BehaviorSubject, Subject, Subscription, catchError, finalize, map, of, scan, switchMap, throwError } from 'rxjs';
import {
  isSlowStartBatchError,
  readCheckpoint,
  retryAfter,
  slowStart,
  slowStartCheckpoint,
  slowStartState,
  type RunEnd,
  type SlowStartCheckpoint,
  type SlowStartEvent,
  type SlowStartOptions,
  type TaskFactory,
  type TaskKey,
} from 'rxjs-slow-start';

/** What the client sends to `POST /api/items`. */
export interface NewItem {
  name: string;
}

/** What the server answers with `201 Created`. */
export interface Item extends NewItem {
  id: string;
}

/** How one item ended up on the server. */
export type CreateOutcome =
  | { kind: 'created'; item: Item }
  // 409 Conflict: the item is already there (created by an earlier, interrupted run, say).
  | { kind: 'existed'; request: NewItem };

export type BulkCreateStatus = 'idle' | 'running' | 'completed' | 'failed' | 'cancelled';

/**
 * One request on the wire, as the batch view shows it. `retrying` is a throttle (429, 503, or no
 * answer at all) that the run will send again after the pause; `abandoned` is such a throttle that the
 * run stopped (Cancel, or a failure elsewhere) before sending it again; `cancelled` is a request
 * aborted by `cancel()`.
 */
export type RequestState = 'in-flight' | 'created' | 'existed' | 'failed' | 'retrying' | 'abandoned' | 'cancelled';

export interface RequestCell {
  /** Position of the item in the job (0-based). */
  readonly item: number;
  readonly name: string;
  readonly state: RequestState;
}

/** The requests of one batch of one run, in the order they were sent. */
export interface BatchRow {
  /** 1-based: the first `create()` is run 1, each `resume()` starts the next. */
  readonly run: number;
  /** 0-based index of the batch within its run. */
  readonly batch: number;
  readonly requests: readonly RequestCell[];
}

export interface BulkCreateProgress {
  status: BulkCreateStatus;
  /** Items of the job, counted once even when a run is resumed. */
  total: number;
  /** Items the server now has: created, or already there (409). */
  done: number;
  /** Items whose last request failed for good (403, 500, a throttle out of tries...). */
  failed: number;
  /** Items a stopped run did not get to: never sent, or aborted by `cancel()`. */
  skipped: number;
  /** Items whose last request was throttled (429, 503, no answer) and that the run will send again. */
  retrying: number;
  /**
   * Items whose last request was throttled when the run stopped (Cancel, or a failure of another
   * item): the server refused them for now, it did not fail them. `resume()` sends them again.
   */
  abandoned: number;
  /** 0-based index of the batch of the current run that is (or was last) on the wire; -1 before the first. */
  batch: number;
  /** The failure that stopped the last run, usually an `HttpErrorResponse`. */
  error: unknown;
}

/** One request sent, as the job's events tell of it: its cell, less the name, in its run and batch. */
type SentRequest = Omit<RequestCell, 'name'> & Pick<BatchRow, 'run' | 'batch'>;

/** A job's events, added up besides the counts: runs so far, the requests sent, the last run's end. */
interface JobView {
  readonly run: number;
  readonly sent: readonly SentRequest[];
  readonly end?: RunEnd<CreateOutcome>;
}

const noRun: JobView = { run: 0, sent: [] };

/** Where the job is kept in `localStorage`, so that a reload mid-job finishes it: its items, and its last checkpoint. */
const stored = { items: 'bulk-create:items', checkpoint: 'bulk-create:checkpoint' } as const;

/** The cell state each event of a try leaves its request in; a success says its outcome's kind. */
const cellOf = {
  started: 'in-flight',
  failed: 'failed',
  throttled: 'retrying',
  retrying: 'retrying',
  abandoned: 'abandoned',
  cancelled: 'cancelled',
} as const;

/**
 * Creates many items through `POST /api/items` the way Kubernetes' ReplicaSet controller creates pods:
 * in batches of 1, 2, 4, ... requests (up to 6 at a time: see `options`), each batch
 * sent only after the previous one has fully succeeded.
 *
 * A throttle (429 or 503 with the server's `Retry-After`, or a dropped connection) slows the run down
 * instead of stopping it: the pace drops back to one request, every start waits for the time the
 * server asked for, and the throttled requests go again first. A real failure (403, 500, ...) costs
 * one small batch of requests, not one request per item: the run stops after that batch, and
 * `resume()` sends what is left.
 *
 * Everything it shows is read from the run's events (the library's `events` option), keyed by the
 * item's position in the job (`keys`): the counts through `slowStartState()`, the cells and the end of
 * each run through a fold of its own.
 *
 * Provided in root, a run outlives the component that started it; provided in a component's
 * `providers`, it is cancelled with that component (see the README beside this file).
 */
@Injectable({ providedIn: 'root' })
export class ItemBulkCreator {
  private readonly http = inject(HttpClient);
  private readonly pendingTasks = inject(PendingTasks);
  private readonly items = signal<readonly NewItem[]>([]);
  private subscription?: Subscription;

  /**
   * How runs are paced and retried: the one place to tune them.
   *
   * `maxBatchSize: 6` because a browser speaks HTTP/1.1 to most APIs over about six connections per
   * host: a bigger batch gets no more requests on the wire, only more of them queued in the browser,
   * and more of them to fail if the first ones hit a quota. Behind HTTP/2 a larger cap pays off.
   *
   * `retry`: 429 and 503 say "not so fast", status 0 is a request that got no answer; each is tried
   * again, up to 4 tries in all, no sooner than the server's `Retry-After` (or after the library's
   * backoff when there is none). Anything else stops the run, for `resume()`.
   */
  private readonly options = {
    maxBatchSize: 6,
    retry: {
      maxAttempts: 4,
      when: (error: unknown) => {
        const throttled = error instanceof HttpErrorResponse && [0, 429, 503].includes(error.status);
        return throttled && (retryAfter(error) ?? true);
      },
    },
  } satisfies SlowStartOptions<CreateOutcome>;

  // Each job (each `create()`) has events of its own: its counts carry on across the runs that resume
  // it, and the next job starts again from zero.
  private readonly jobs = new BehaviorSubject(new Subject<SlowStartEvent<CreateOutcome>>());
  private readonly counts = toSignal(this.jobs.pipe(switchMap((events) => events.pipe(slowStartState()))), { requireSync: true });
  private readonly view = toSignal(this.jobs.pipe(switchMap((events) => events.pipe(scan(record, noRun)))), { initialValue: noRun });

  /** Progress of the current job, updated as each response arrives. */
  readonly progress = computed((): BulkCreateProgress => {
    const { succeeded: done, failed, retrying, abandoned, cancelled, skipped } = this.counts();
    const { run, sent, end } = this.view();
    const status = end?.how ?? (run === 0 ? 'idle' : 'running');
    const batch = sent.findLast((request) => request.run === run)?.batch ?? -1;
    // A failed batch carries its first failure as the cause; anything else is a bug, shown as is.
    const error = isSlowStartBatchError(end?.error) ? end.error.cause : end?.error;
    return { status, total: this.items().length, done, failed, skipped: skipped + cancelled, retrying, abandoned, batch, error };
  });

  /** The requests of the job, batch by batch, run after run; a request sent again joins its batch's row. */
  readonly batches = computed((): BatchRow[] => {
    const names = this.items();
    const rows = new Map<string, { run: number; batch: number; requests: RequestCell[] }>();
    for (const { run, batch, item, state } of this.view().sent) {
      const key = `${run}:${batch}`;
      const row = rows.get(key) ?? { run, batch, requests: [] };
      rows.set(key, row);
      row.requests.push({ item, name: names[item].name, state });
    }
    return [...rows.values()];
  });

  constructor() {
    // When the injector that holds this service is destroyed (the application, or the component
    // that provides it), the requests in flight go with it.
    inject(DestroyRef).onDestroy(() => this.subscription?.unsubscribe());
    // Each job's checkpoints are stored as they come: a success is stored before it is shown.
    this.jobs.pipe(switchMap((events) => events.pipe(slowStartCheckpoint()))).subscribe((checkpoint) => {
      localStorage.setItem(stored.checkpoint, JSON.stringify(checkpoint));
    });
    this.resumeStoredJob();
  }

  /**
   * A run that a reload (or a closed tab) cut off goes on where its last checkpoint left it: what was
   * created is not sent again, what was on the wire is sent again with its key, and the counts carry
   * on. A run that had ended (completed, failed, cancelled) is left as it was.
   */
  private resumeStoredJob(): void {
    const items = localStorage.getItem(stored.items);
    const checkpoint = localStorage.getItem(stored.checkpoint);
    if (items === null || checkpoint === null) return;
    const resume = readCheckpoint(JSON.parse(checkpoint));
    if (resume.ended !== null) return;
    this.items.set(JSON.parse(items) as NewItem[]);
    this.start(
      this.items().map((_, item) => this.createTask(item)),
      undefined,
      resume,
    );
  }

  /**
   * Starts creating `items`, replacing any finished job.
   * @throws Error if a run is still in progress (`cancel()` it first).
   */
  create(items: readonly NewItem[]): void {
    this.assertNotRunning();
    this.items.set(items);
    localStorage.setItem(stored.items, JSON.stringify(items));
    localStorage.removeItem(stored.checkpoint);
    this.jobs.next(new Subject());
    // No `keys`: a task's key is its index, which is the item's position in the job.
    this.start(items.map((_, item) => this.createTask(item)));
  }

  /**
   * Goes on with a job that a failure or `cancel()` stopped: the items the last run did not finish
   * (failed, abandoned, cancelled or never sent), in the order of its tasks, starting again with a
   * batch of one request. Does nothing unless the last run failed or was cancelled.
   * @throws Error if a run is still in progress.
   */
  resume(): void {
    this.assertNotRunning();
    const { end } = this.view();
    // The keys go with the tasks, so the resumed run reports each item under the same key.
    if (end && end.how !== 'completed') this.start(end.unfinished, end.unfinishedKeys);
  }

  /**
   * Stops the run: requests still in flight are cancelled (the browser aborts them), throttled ones
   * are not sent again, and no further request is sent. Items whose response had already arrived stay
   * counted in `done`; `resume()` sends the others.
   */
  cancel(): void {
    if (this.progress().status === 'running') this.subscription?.unsubscribe();
  }

  private start(tasks: TaskFactory<CreateOutcome>[], keys?: TaskKey[], resume?: SlowStartCheckpoint): void {
    // Until the run ends, the application is not stable: a server render, or `whenStable()`, waits
    // for it, through the pauses of its retries too (when no request is open to say so).
    const runEnded = this.pendingTasks.add();
    this.subscription = slowStart(tasks, { ...this.options, events: this.jobs.value, keys, resume })
      .pipe(finalize(runEnded))
      // The `end` event tells how the run ended, failures included: nothing is left to do here.
      .subscribe({ error: () => undefined });
  }

  /**
   * One item's request, as a factory: slow start calls it only when the item's batch starts.
   * HttpClient's observable is cold, so nothing is sent before that; unsubscribing from it aborts
   * the request, which is how `cancel()` reaches requests in flight.
   */
  private createTask(item: number): TaskFactory<CreateOutcome> {
    return (context) => {
      const request = this.items()[item];
      // The same key in every run of the job: a server that honours it creates nothing twice.
      const headers = { 'Idempotency-Key': String(context.key) };
      return this.http.post<Item>('/api/items', request, { headers }).pipe(
        map((created): CreateOutcome => ({ kind: 'created', item: created })),
        catchError((error: unknown) =>
          // Like Kubernetes' AlreadyExists on create: the goal (the item exists) is reached.
          error instanceof HttpErrorResponse && error.status === 409
            ? of<CreateOutcome>({ kind: 'existed', request })
            : throwError(() => error),
        ),
      );
    };
  }

  private assertNotRunning(): void {
    if (this.progress().status === 'running') {
      throw new Error('ItemBulkCreator: a run is in progress; cancel() it or wait for it to end');
    }
  }
}

/** The view after one event: a run starts or ends, a request is sent or settles (its key is the item's position). */
function record(view: JobView, event: SlowStartEvent<CreateOutcome>): JobView {
  const { run, sent, end } = view;
  if (event.type === 'start') return { run: run + 1, sent };
  if (event.type === 'end') return { run, sent, end: event };
  if (!('attempt' in event)) return view; // not an event of a request: received, skipped, a pause...
  const item = Number(event.key);
  // Every request emits its outcome; `undefined` is only the library's type for a task without one.
  const state = event.type === 'succeeded' ? (event.value?.kind ?? 'created') : cellOf[event.type];
  if (event.type === 'started') return { run, end, sent: [...sent, { run, batch: event.batch, item, state }] };
  // An item has one request at a time: its latest is the one the event tells of.
  const latest = sent.findLastIndex((request) => request.item === item);
  return { run, end, sent: sent.with(latest, { ...sent[latest], state }) };
}
