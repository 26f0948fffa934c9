import { ChangeDetectionStrategy, Component } from '@angular/core';
import { BulkCreatePanel } from './bulk-create-panel';

@Component({
  selector: 'app-root',
  imports: [BulkCreatePanel],
  changeDetection: ChangeDetectionStrategy.OnPush,
  template: `
    <main>
      <h1>Bulk create with slow start</h1>
      <p>
        Requests go out in batches of 1, 2, 4, then 6 at a time, each batch after the previous one succeeded. A throttled request (429) is
        sent again after the server's Retry-After, and the batches ramp up again from 1. Any other refusal stops the run after its batch;
        Resume goes on from there.
      </p>
      <app-bulk-create-panel [count]="count" />
    </main>
  `,
  styles: `
    main {
      max-width: 52rem;
      margin: 1.5rem auto;
      padding: 0 1rem;
    }
    h1 {
      font-size: 1.4rem;
    }
  `,
})
export class App {
  /** How many items the page creates. */
  protected readonly count = 32;
}
