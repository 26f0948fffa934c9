import { HttpClient, HttpErrorResponse } from '@angular/common/http';
import { DestroyRef, Injectable, computed, inject, signal } from '@angular/core';
import { Subscription, catchError, map, of, tap, throwError } from 'rxjs';
import { isSlowStartBatchError, retryAfter, slowStart, type SlowStartOptions, type TaskContext, type TaskFactory } from 'rxjs-slow-start';

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
 * answer at all) that the run will send again after the pause; `cancelled` is a request aborted by
 * `cancel()`.
 */
export type RequestState = 'in-flight' | 'created' | 'existed' | 'failed' | 'retrying' | 'cancelled';

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
  /** Items whose last request failed and will not be tried again in this run (403, 500, a throttle out of tries...). */
  failed: number;
  /** Items a stopped run did not get to: never sent after a failure, or aborted by `cancel()`. */
  skipped: number;
  /** Items whose last request was throttled (429, 503, no answer) and that the run will send again. */
  retrying: number;
  /** 0-based index of the batch of the current run that is (or was last) on the wire; -1 before the first. */
  batch: number;
  /** The failure that stopped the last run, usually an `HttpErrorResponse`. */
  error: unknown;
}

/** Tries per item within a run, the first included: a throttled request goes out at most 3 more times. */
const maxAttempts = 4;

interface Run {
  readonly number: number;
  /** Item positions in task order: task `i` of the run creates item `items[i]`. */
  readonly items: readonly number[];
  readonly subscription: Subscription;
}

interface SentRequest {
  readonly run: number;
  readonly batch: number;
  readonly item: number;
  readonly state: RequestState;
}

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
 * Provided in root, a run outlives the component that started it; provided in a component's
 * `providers`, it is cancelled with that component (see the README beside this file).
 */
@Injectable({ providedIn: 'root' })
export class ItemBulkCreator {
  private readonly http = inject(HttpClient);
  private readonly status = signal<BulkCreateStatus>('idle');
  private readonly items = signal<readonly NewItem[]>([]);
  /** Every request sent for the job, in order; a cell is replaced when its request settles. */
  private readonly sent = signal<readonly SentRequest[]>([]);
  private readonly currentBatch = signal(-1);
  private readonly stopError = signal<unknown>(undefined);
  private run?: Run;

  /**
   * How runs are paced and retried: the one place to tune them.
   *
   * `maxBatchSize: 6` because a browser speaks HTTP/1.1 to most APIs over about six connections per
   * host: a bigger batch gets no more requests on the wire, only more of them queued in the browser,
   * and more of them to fail if the first ones hit a quota. Behind HTTP/2 a larger cap pays off.
   *
   * `retry`: 429 and 503 say "not so fast", status 0 is a request that got no answer; each is tried
   * again, up to `maxAttempts` tries in all, no sooner than the server's `Retry-After` (or after the
   * library's backoff when there is none). Anything else stops the run, for `resume()`.
   */
  private readonly options: SlowStartOptions = {
    maxBatchSize: 6,
    retry: {
      maxAttempts,
      when: (error, { index, attempt }) => {
        const throttled = error instanceof HttpErrorResponse && [0, 429, 503].includes(error.status);
        if (!throttled || attempt >= maxAttempts || !this.run) return false;
        this.settle(this.run.number, this.run.items[index], 'retrying'); // the "retrying" count and cell
        return retryAfter(error) ?? true;
      },
    },
  };

  /** Progress of the current job, updated as each response arrives. */
  readonly progress = computed((): BulkCreateProgress => {
    const status = this.status();
    const total = this.items().length;
    const last = this.lastStates();
    let done = 0;
    let failed = 0;
    let retrying = 0;
    let inFlight = 0;
    for (const state of last.values()) {
      if (state === 'created' || state === 'existed') done++;
      else if (state === 'failed') failed++;
      else if (state === 'retrying') retrying++;
      else if (state === 'in-flight') inFlight++;
    }
    const stopped = status === 'failed' || status === 'cancelled';
    return {
      status,
      total,
      done,
      failed,
      skipped: stopped ? total - done - failed - retrying - inFlight : 0,
      retrying,
      batch: this.currentBatch(),
      error: this.stopError(),
    };
  });

  /**
   * The requests of the job, batch by batch, run after run: what the batch view draws. A request
   * sent again within its run (with `retry`) joins its batch's row.
   */
  readonly batches = computed((): BatchRow[] => {
    const names = this.items();
    const rows = new Map<string, { run: number; batch: number; requests: RequestCell[] }>();
    for (const { run, batch, item, state } of this.sent()) {
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
    inject(DestroyRef).onDestroy(() => this.run?.subscription.unsubscribe());
  }

  /**
   * Starts creating `items`, replacing any finished job.
   * @throws Error if a run is still in progress (`cancel()` it first).
   */
  create(items: readonly NewItem[]): void {
    this.assertNotRunning();
    this.items.set(items);
    this.sent.set([]);
    this.start(items.map((_, index) => index));
  }

  /**
   * Goes on with a job that a failure or `cancel()` stopped: first the items whose request failed,
   * then the rest not yet done, in order, starting again with a batch of one request. Does nothing
   * unless the last run failed or was cancelled.
   * @throws Error if a run is still in progress.
   */
  resume(): void {
    this.assertNotRunning();
    const status = this.status();
    if (status !== 'failed' && status !== 'cancelled') return;
    const last = this.lastStates();
    const notDone = this.items()
      .map((_, index) => index)
      .filter((index) => last.get(index) !== 'created' && last.get(index) !== 'existed');
    const failedFirst = [
      ...notDone.filter((index) => last.get(index) === 'failed'),
      ...notDone.filter((index) => last.get(index) !== 'failed'),
    ];
    this.start(failedFirst);
  }

  /**
   * Stops the run: requests still in flight are cancelled (the browser aborts them) and no further
   * request is sent. Items whose response had already arrived stay counted in `done`; `resume()`
   * sends the others.
   */
  cancel(): void {
    if (this.status() !== 'running' || !this.run) return;
    const { number } = this.run;
    this.run.subscription.unsubscribe();
    this.sent.update((sent) =>
      sent.map((request) => (request.run === number && request.state === 'in-flight' ? { ...request, state: 'cancelled' } : request)),
    );
    this.giveUpRetries(number);
    this.status.set('cancelled');
  }

  /**
   * A stopped run sends nothing more, not even the throttled requests it was waiting to send again:
   * their items count as failed, and `resume()` sends them first.
   */
  private giveUpRetries(run: number): void {
    this.sent.update((sent) =>
      sent.map((request, index) =>
        request.run === run && request.state === 'retrying' && sent.findLastIndex((each) => each.item === request.item) === index
          ? { ...request, state: 'failed' }
          : request,
      ),
    );
  }

  private start(itemIndexes: readonly number[]): void {
    const number = (this.run?.number ?? 0) + 1;
    this.status.set('running');
    this.currentBatch.set(-1);
    this.stopError.set(undefined);
    const tasks = itemIndexes.map((item) => this.createTask(number, item));
    const subscription = slowStart(tasks, this.options).subscribe({
      complete: () => this.status.set('completed'),
      error: (error: unknown) => {
        // A failed batch carries its first failure as the cause; anything else is a bug, shown as is.
        this.stopError.set(isSlowStartBatchError(error) ? error.cause : error);
        this.giveUpRetries(number);
        this.status.set('failed');
      },
    });
    this.run = { number, items: itemIndexes, subscription };
  }

  /**
   * One item's request, as a factory: slow start calls it only when the item's batch starts.
   * HttpClient's observable is cold, so nothing is sent before that; unsubscribing from it aborts
   * the request, which is how `cancel()` reaches requests in flight.
   */
  private createTask(run: number, item: number): TaskFactory<CreateOutcome> {
    return (context: TaskContext) => {
      this.currentBatch.set(context.batch);
      const request = this.items()[item];
      this.sent.update((all) => [...all, { run, batch: context.batch, item, state: 'in-flight' }]);
      return this.http.post<Item>('/api/items', request).pipe(
        map((created): CreateOutcome => ({ kind: 'created', item: created })),
        catchError((error: unknown) =>
          // Like Kubernetes' AlreadyExists on create: the goal (the item exists) is reached.
          error instanceof HttpErrorResponse && error.status === 409
            ? of<CreateOutcome>({ kind: 'existed', request })
            : throwError(() => error),
        ),
        tap({
          next: (outcome) => this.settle(run, item, outcome.kind),
          error: () => this.settle(run, item, 'failed'),
        }),
      );
    };
  }

  /**
   * Records how the latest request for `item` in `run` ended (or, with `retry`, that it will be tried
   * again). An item has at most one request in flight at a time, so its latest one is the one.
   */
  private settle(run: number, item: number, state: RequestState): void {
    this.sent.update((all) => {
      const latest = all.findLastIndex((request) => request.run === run && request.item === item);
      return all.map((request, index) => (index === latest ? { ...request, state } : request));
    });
  }

  /** The state of each item's latest request. */
  private lastStates(): Map<number, RequestState> {
    const last = new Map<number, RequestState>();
    for (const request of this.sent()) last.set(request.item, request.state);
    return last;
  }

  private assertNotRunning(): void {
    if (this.status() === 'running') {
      throw new Error('ItemBulkCreator: a run is in progress; cancel() it or wait for it to end');
    }
  }
}
