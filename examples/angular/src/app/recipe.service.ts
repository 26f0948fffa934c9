import { HttpClient } from '@angular/common/http';
import { Injectable, InjectionToken, PendingTasks, inject } from '@angular/core';
import { toSignal } from '@angular/core/rxjs-interop';
import { Subject, finalize, type Subscription } from 'rxjs';
import { slowStart, slowStartState, type RunEnd, type SlowStartEvent, type TaskFactory, type TaskKey } from 'rxjs-slow-start';

/** Milliseconds before retrying a failure whose server did not say how long; tests provide a fixed one. */
export const RETRY_DELAY = new InjectionToken<number | undefined>('RETRY_DELAY', { factory: () => undefined });

/** Creates items with `POST /api/items` in slow-start batches; `progress` counts them live. */
@Injectable({ providedIn: 'root' })
export class ItemCreator {
  private readonly http = inject(HttpClient);
  private readonly pendingTasks = inject(PendingTasks);
  private readonly events = new Subject<SlowStartEvent>();
  private run?: Subscription;
  private lastEnd?: RunEnd<unknown>;
  // 429 (and 503 with Retry-After) slows the run down; no answer (status 0), 502, 503 and 504 retry that item alone; the rest stops it.
  private readonly retry = { maxAttempts: 4, delay: inject(RETRY_DELAY) };

  /** Waiting, in flight, retrying, succeeded, failed, abandoned...: over every run of this service. */
  readonly progress = toSignal(this.events.pipe(slowStartState()), { requireSync: true });

  /** Starts creating `items`; each item's events carry its name as their key, so names must be unique. */
  start(items: readonly { name: string }[]): void {
    const tasks = items.map((item) => () => this.http.post('/api/items', item));
    const keys = items.map((item) => item.name);
    this.go(tasks, keys);
  }

  /** Aborts the requests in flight and sends no more: the run ends as cancelled. */
  cancel(): void {
    this.run?.unsubscribe();
  }

  /** Sends what the last run did not finish (failed, abandoned, cancelled, skipped), under the same keys. */
  resume(): void {
    if (this.lastEnd && this.lastEnd.how !== 'completed') this.go(this.lastEnd.unfinished, this.lastEnd.unfinishedKeys);
  }

  private go(tasks: TaskFactory<unknown>[], keys: TaskKey[]): void {
    this.run?.unsubscribe(); // one run at a time
    const events = (event: SlowStartEvent): void => {
      if (event.type === 'end') this.lastEnd = event; // what resume() needs
      this.events.next(event);
    };
    this.run = slowStart(tasks, { maxBatchSize: 6, retry: this.retry, keys, events }) // about 6 HTTP/1.1 connections per host
      .pipe(finalize(this.pendingTasks.add())) // a server render waits for the run, retry pauses included
      .subscribe({ error: () => undefined }); // the `end` event tells of the failure
  }
}
