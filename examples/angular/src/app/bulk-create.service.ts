import { HttpClient, HttpErrorResponse } from '@angular/common/http';
import { DestroyRef, Injectable, inject, signal } from '@angular/core';
import { Subscription, catchError, map, of, tap, throwError } from 'rxjs';
import { isSlowStartBatchError, slowStart, type TaskFactory } from 'rxjs-slow-start';

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

export interface BulkCreateProgress {
  status: BulkCreateStatus;
  /** Items of the job, counted once even when a run is resumed. */
  total: number;
  /** Items the server now has: created, or already there (409). */
  done: number;
  /** Requests of the failing batch that failed (403, 429, 500, network...). */
  failed: number;
  /** Items never sent because an earlier batch failed. */
  skipped: number;
  /** 0-based index of the batch of the current run that is (or was last) on the wire; -1 before the first. */
  batch: number;
  /** The first failure of the failing batch, usually an `HttpErrorResponse`. */
  error: unknown;
}

const IDLE: BulkCreateProgress = {
  status: 'idle',
  total: 0,
  done: 0,
  failed: 0,
  skipped: 0,
  batch: -1,
  error: undefined,
};

/**
 * Creates many items through `POST /api/items` the way Kubernetes' ReplicaSet controller creates pods:
 * in batches of 1, 2, 4, 8, ... requests, each batch sent only after the previous one has fully
 * succeeded. A quota (429) or permission (403) error therefore costs one small batch of requests,
 * not one request per item; the run stops after that batch and `resume()` picks it up again later.
 */
@Injectable({ providedIn: 'root' })
export class ItemBulkCreator {
  private readonly http = inject(HttpClient);
  private readonly state = signal<BulkCreateProgress>(IDLE);
  private run?: Subscription;
  /** What a failed run left undone: its failed requests, then the items it never sent. */
  private retryable: TaskFactory<CreateOutcome>[] = [];

  /** Progress of the current job, updated as each response arrives. */
  readonly progress = this.state.asReadonly();

  constructor() {
    // When the application (or a test's injector) is destroyed, requests in flight go with it.
    inject(DestroyRef).onDestroy(() => this.run?.unsubscribe());
  }

  /**
   * Starts creating `items`, replacing any finished job.
   * @throws Error if a run is still in progress (`cancel()` it first).
   */
  create(items: readonly NewItem[]): void {
    this.assertNotRunning();
    this.state.set({ ...IDLE, total: items.length });
    this.start(items.map((item) => this.createTask(item)));
  }

  /**
   * Retries what the last run left undone after a failure: the failed requests of its failing batch,
   * then every item it skipped, again starting with a batch of one request. Does nothing if the
   * last run did not fail.
   * @throws Error if a run is still in progress.
   */
  resume(): void {
    this.assertNotRunning();
    if (this.state().status !== 'failed') return;
    this.start(this.retryable);
  }

  /**
   * Stops the run: requests still in flight are cancelled (the browser aborts them) and no further
   * request is sent. Items whose response had already arrived stay counted in `done`.
   */
  cancel(): void {
    if (this.state().status !== 'running') return;
    this.run?.unsubscribe();
    this.patch({ status: 'cancelled' });
  }

  private start(tasks: TaskFactory<CreateOutcome>[]): void {
    this.retryable = [];
    this.patch({ status: 'running', failed: 0, skipped: 0, batch: -1, error: undefined });
    this.run = slowStart(tasks).subscribe({
      complete: () => this.patch({ status: 'completed' }),
      error: (error: unknown) => {
        if (!isSlowStartBatchError<CreateOutcome>(error)) {
          // Not a failed batch: a bug rather than an answer from the server. Nothing sensible to resume.
          this.patch({ status: 'failed', error });
          return;
        }
        // `results[i].index` is the task's position in `tasks`, so the failed ones can be sent again.
        const failedTasks = error.results.filter((result) => result.status === 'rejected').map((result) => tasks[result.index]);
        this.retryable = [...failedTasks, ...error.remaining];
        this.patch({
          status: 'failed',
          failed: failedTasks.length,
          skipped: error.skipped,
          error: error.cause,
        });
      },
    });
  }

  /**
   * One item's request, as a factory: slow start calls it only when the item's batch starts.
   * HttpClient's observable is cold, so nothing is sent before that; unsubscribing from it aborts
   * the request, which is how `cancel()` reaches requests in flight.
   */
  private createTask(request: NewItem): TaskFactory<CreateOutcome> {
    return ({ batch }) => {
      this.patch({ batch });
      return this.http.post<Item>('/api/items', request).pipe(
        map((item): CreateOutcome => ({ kind: 'created', item })),
        catchError((error: unknown) =>
          // Like Kubernetes' AlreadyExists on create: the goal (the item exists) is reached.
          error instanceof HttpErrorResponse && error.status === 409
            ? of<CreateOutcome>({ kind: 'existed', request })
            : throwError(() => error),
        ),
        tap(() => this.state.update((progress) => ({ ...progress, done: progress.done + 1 }))),
      );
    };
  }

  private patch(change: Partial<BulkCreateProgress>): void {
    this.state.update((progress) => ({ ...progress, ...change }));
  }

  private assertNotRunning(): void {
    if (this.state().status === 'running') {
      throw new Error('ItemBulkCreator: a run is in progress; cancel() it or wait for it to end');
    }
  }
}
