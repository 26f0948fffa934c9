import { HttpErrorResponse } from '@angular/common/http';
import { ChangeDetectionStrategy, Component, computed, inject, input } from '@angular/core';
import { ItemBulkCreator, type NewItem } from './bulk-create.service';

/**
 * Creates `count` items with {@link ItemBulkCreator} and shows the run: a progress bar, the counts,
 * Cancel and Resume, the error that stopped it, and every request as a cell in its batch.
 * Everything on screen is read from the service's signals.
 */
@Component({
  selector: 'app-bulk-create-panel',
  changeDetection: ChangeDetectionStrategy.OnPush,
  template: `
    <div class="actions">
      <button type="button" (click)="create()" [disabled]="running()">Create {{ count() }} items</button>
      <button type="button" (click)="creator.cancel()" [disabled]="!running()">Cancel</button>
      <button type="button" (click)="creator.resume()" [disabled]="!resumable()">Resume</button>
      <span class="status" data-status>{{ progress().status }}</span>
    </div>

    <progress [value]="progress().done" [max]="progress().total || 1" aria-label="Items created"></progress>

    <dl class="counts">
      <div>
        <dt>done</dt>
        <dd data-count="done">{{ progress().done }} / {{ progress().total }}</dd>
      </div>
      <div>
        <dt>failed</dt>
        <dd data-count="failed">{{ progress().failed }}</dd>
      </div>
      <div>
        <dt>skipped</dt>
        <dd data-count="skipped">{{ progress().skipped }}</dd>
      </div>
      <div>
        <dt>retrying</dt>
        <dd data-count="retrying">{{ progress().retrying }}</dd>
      </div>
      <div>
        <dt>abandoned</dt>
        <dd data-count="abandoned">{{ progress().abandoned }}</dd>
      </div>
    </dl>

    @if (errorText(); as text) {
      <p class="error" role="alert">{{ text }}</p>
    }

    <ol class="batches" aria-label="Requests by batch">
      @for (row of creator.batches(); track row.run + ':' + row.batch) {
        <li [attr.data-run]="row.run" [attr.data-batch]="row.batch">
          <span class="label">run {{ row.run }} · batch {{ row.batch }}</span>
          @for (cell of row.requests; track $index) {
            <span class="cell" [class]="cell.state" [attr.data-state]="cell.state" [title]="cell.name + ': ' + cell.state"></span>
          }
        </li>
      }
    </ol>

    <ul class="legend">
      @for (state of legend; track state) {
        <li><span class="cell" [class]="state"></span>{{ state }}</li>
      }
    </ul>
  `,
  styles: `
    .actions {
      display: flex;
      gap: 0.5rem;
      align-items: center;
      margin-bottom: 0.75rem;
    }
    .status {
      margin-left: auto;
      font-weight: 600;
    }
    progress {
      width: 100%;
      height: 1rem;
    }
    .counts {
      display: flex;
      gap: 1.5rem;
      margin: 0.75rem 0;
    }
    .counts div {
      display: flex;
      gap: 0.4rem;
    }
    dt {
      color: #59636e;
    }
    dd {
      margin: 0;
      font-variant-numeric: tabular-nums;
    }
    .error {
      padding: 0.5rem 0.75rem;
      border-left: 4px solid #cf222e;
      background: #ffebe9;
    }
    .batches,
    .legend {
      list-style: none;
      padding: 0;
    }
    .batches li {
      display: flex;
      align-items: center;
      gap: 3px;
      margin: 3px 0;
    }
    .label {
      width: 9rem;
      color: #59636e;
      font-size: 0.85rem;
    }
    .legend {
      display: flex;
      gap: 1rem;
      font-size: 0.85rem;
    }
    .legend li {
      display: flex;
      align-items: center;
      gap: 0.3rem;
    }
    .cell {
      display: inline-block;
      width: 1.1rem;
      height: 1.1rem;
      border-radius: 3px;
    }
    .in-flight {
      background: #d0d7de;
    }
    .created {
      background: #2da44e;
    }
    .existed {
      background: #54aeff;
    }
    .failed {
      background: #cf222e;
    }
    .retrying {
      background: #fb8f44;
    }
    .abandoned {
      background: repeating-linear-gradient(45deg, #fb8f44 0 3px, #fff1e5 3px 6px);
    }
    .cancelled {
      background: repeating-linear-gradient(45deg, #d4a72c 0 3px, #fff8c5 3px 6px);
    }
  `,
})
export class BulkCreatePanel {
  /** How many items to create: `item-01`, `item-02`, ... */
  readonly count = input.required<number>();

  protected readonly creator = inject(ItemBulkCreator);
  protected readonly progress = this.creator.progress;
  protected readonly running = computed(() => this.progress().status === 'running');
  protected readonly resumable = computed(() => ['failed', 'cancelled'].includes(this.progress().status));
  protected readonly errorText = computed(() => describeError(this.progress().error));
  protected readonly legend = ['in-flight', 'created', 'existed', 'failed', 'retrying', 'abandoned', 'cancelled'] as const;

  protected create(): void {
    const width = String(this.count()).length;
    const items: NewItem[] = Array.from({ length: this.count() }, (_, i) => ({ name: `item-${String(i + 1).padStart(width, '0')}` }));
    this.creator.create(items);
  }
}

/** The failure that stopped a run, in words: status, the server's message, and how long it asks to wait. */
export function describeError(error: unknown): string | undefined {
  if (error === undefined) return undefined;
  if (!(error instanceof HttpErrorResponse)) {
    return error instanceof Error ? error.message : `The run stopped on ${JSON.stringify(error)}.`;
  }
  if (error.status === 0) return 'The server could not be reached (network error or aborted request).';
  const body: unknown = error.error;
  const message =
    typeof body === 'object' && body !== null && 'message' in body && typeof body.message === 'string' ? body.message : error.message;
  const retryAfter = error.headers.get('Retry-After');
  // Retry-After is either delta-seconds or an HTTP date.
  const until = retryAfter !== null && /^\d+$/.test(retryAfter) ? `${retryAfter} s` : `until ${retryAfter ?? ''}`;
  const wait = retryAfter === null ? '' : ` The server asks to wait ${until} before trying again (Retry-After).`;
  return `HTTP ${error.status}: ${message}.${wait}`;
}
