import { Component } from '@angular/core';
import { HttpErrorResponse, HttpHeaders, provideHttpClient } from '@angular/common/http';
import { HttpTestingController, TestRequest, provideHttpClientTesting } from '@angular/common/http/testing';
import { type ComponentFixture, TestBed } from '@angular/core/testing';
import { BulkCreatePanel, describeError } from './bulk-create-panel';
import { ItemBulkCreator, type NewItem } from './bulk-create.service';

/** The panel with a service of its own: `providers` scopes the service (and its run) to this component. */
@Component({
  imports: [BulkCreatePanel],
  providers: [ItemBulkCreator],
  template: `<app-bulk-create-panel [count]="3" />`,
})
class PanelWithItsOwnCreator {}

describe('BulkCreatePanel', () => {
  let httpTesting: HttpTestingController;

  beforeEach(() => {
    // A job stored by an earlier test would be resumed as the service starts.
    localStorage.clear();
    TestBed.configureTestingModule({ providers: [provideHttpClient(), provideHttpClientTesting()] });
    httpTesting = TestBed.inject(HttpTestingController);
  });

  afterEach(() => {
    httpTesting.verify();
  });

  const sentNow = (): TestRequest[] => httpTesting.match({ method: 'POST', url: '/api/items' });
  const respondCreated = (request: TestRequest): void => {
    const body = request.request.body as NewItem;
    request.flush({ id: `id-${body.name}`, ...body }, { status: 201, statusText: 'Created' });
  };

  async function render(count: number): Promise<ComponentFixture<BulkCreatePanel>> {
    const fixture = TestBed.createComponent(BulkCreatePanel);
    fixture.componentRef.setInput('count', count);
    await fixture.whenStable();
    return fixture;
  }

  const element = (fixture: ComponentFixture<unknown>): HTMLElement => fixture.nativeElement as HTMLElement;
  const button = (fixture: ComponentFixture<unknown>, label: string): HTMLButtonElement => {
    const found = [...element(fixture).querySelectorAll('button')].find((each) => each.textContent.trim().startsWith(label));
    if (!found) throw new Error(`no button ${label}`);
    return found;
  };
  const count = (fixture: ComponentFixture<unknown>, name: string): string | undefined =>
    element(fixture).querySelector(`[data-count="${name}"]`)?.textContent.trim();
  const cellStates = (fixture: ComponentFixture<unknown>): string[][] =>
    [...element(fixture).querySelectorAll('.batches li')].map((row) =>
      [...row.querySelectorAll('[data-state]')].map((cell) => cell.getAttribute('data-state') ?? ''),
    );

  it('runs in a real browser, not jsdom', () => {
    expect(navigator.userAgent).toMatch(/Chrome\//);
    expect(navigator.userAgent).not.toMatch(/jsdom/);
  });

  it('shows the batches, the counts and the progress bar as responses arrive, and the error that stops the run', async () => {
    const fixture = await render(7);
    expect(button(fixture, 'Create 7 items').disabled).toBe(false);
    expect(button(fixture, 'Cancel').disabled).toBe(true);

    button(fixture, 'Create').click();
    // While a run is under way the application is not stable (the service registers the run with
    // PendingTasks), so whenStable() would wait for its end: render now instead.
    fixture.detectChanges();
    expect(cellStates(fixture)).toEqual([['in-flight']]);
    expect(button(fixture, 'Create').disabled).toBe(true);
    expect(button(fixture, 'Cancel').disabled).toBe(false);

    sentNow().forEach(respondCreated);
    const [second, third] = sentNow();
    respondCreated(second);
    third.flush({ message: 'item-3 is not allowed' }, { status: 403, statusText: 'Forbidden' });
    await fixture.whenStable();

    expect(cellStates(fixture)).toEqual([['created'], ['created', 'failed']]);
    expect(count(fixture, 'done')).toBe('2 / 7');
    expect(count(fixture, 'failed')).toBe('1');
    expect(count(fixture, 'skipped')).toBe('4');
    expect(count(fixture, 'retrying')).toBe('0');
    expect(element(fixture).querySelector('progress')?.value).toBe(2);
    expect(element(fixture).querySelector('[role="alert"]')?.textContent.trim()).toBe('HTTP 403: item-3 is not allowed.');
    expect(button(fixture, 'Resume').disabled).toBe(false);

    button(fixture, 'Resume').click();
    fixture.detectChanges();
    expect(element(fixture).querySelector('[role="alert"]')).toBeNull();
    for (let batch = sentNow(); batch.length > 0; batch = sentNow()) batch.forEach(respondCreated);
    await fixture.whenStable();
    expect(cellStates(fixture)).toEqual([['created'], ['created', 'failed'], ['created'], ['created', 'created'], ['created', 'created']]);
    expect(count(fixture, 'done')).toBe('7 / 7');
    expect(element(fixture).querySelector('[data-status]')?.textContent).toBe('completed');
  });

  it('shows a throttled request as retrying, and the run goes on by itself after Retry-After', async () => {
    const fixture = await render(3);
    button(fixture, 'Create').click();
    sentNow().forEach(respondCreated);
    const [second, third] = sentNow();
    second.flush({ message: 'Quota used up' }, { status: 429, statusText: 'Too Many Requests', headers: { 'Retry-After': '1' } });
    respondCreated(third);
    fixture.detectChanges();

    expect(cellStates(fixture)).toEqual([['created'], ['retrying', 'created']]);
    expect(count(fixture, 'retrying')).toBe('1');
    expect(count(fixture, 'failed')).toBe('0');
    expect(element(fixture).querySelector('[data-status]')?.textContent).toBe('running');
    expect(element(fixture).querySelector('[role="alert"]')).toBeNull(); // not an error: nothing to resume
    expect(button(fixture, 'Resume').disabled).toBe(true);
    expect(sentNow()).toEqual([]);

    // The server asked for 1 s; the retry goes out then, with no click.
    const started = performance.now();
    const retried = await vi.waitFor(
      () => {
        const sent = sentNow();
        if (sent.length === 0) throw new Error('not sent yet');
        return sent;
      },
      { timeout: 3_000, interval: 20 },
    );
    expect(performance.now() - started).toBeGreaterThan(900);
    expect(retried.length).toBe(1);
    respondCreated(retried[0]);
    await fixture.whenStable();
    expect(cellStates(fixture)).toEqual([['created'], ['retrying', 'created', 'created']]);
    expect(count(fixture, 'done')).toBe('3 / 3');
    expect(count(fixture, 'retrying')).toBe('0');
    expect(element(fixture).querySelector('[data-status]')?.textContent).toBe('completed');
  });

  it('Cancel during a retry pause shows the throttled request as abandoned, not failed', async () => {
    const fixture = await render(3);
    button(fixture, 'Create').click();
    sentNow().forEach(respondCreated);
    const [second, third] = sentNow();
    second.flush({ message: 'Quota used up' }, { status: 429, statusText: 'Too Many Requests', headers: { 'Retry-After': '1' } });
    respondCreated(third);
    fixture.detectChanges();
    expect(count(fixture, 'retrying')).toBe('1');

    button(fixture, 'Cancel').click();
    await fixture.whenStable(); // the run has ended: nothing keeps the application unstable
    expect(cellStates(fixture)).toEqual([['created'], ['abandoned', 'created']]);
    expect(count(fixture, 'abandoned')).toBe('1');
    expect(count(fixture, 'failed')).toBe('0');
    expect(count(fixture, 'retrying')).toBe('0');
    expect(element(fixture).querySelector('[role="alert"]')).toBeNull(); // nothing failed
    expect(button(fixture, 'Resume').disabled).toBe(false);
  });

  it('reads the Retry-After of an error that stopped the run (a throttle out of tries) in words', () => {
    const error = new HttpErrorResponse({
      status: 429,
      statusText: 'Too Many Requests',
      error: { message: 'Quota of 2 requests used up' },
      headers: new HttpHeaders({ 'Retry-After': '3' }),
    });
    expect(describeError(error)).toBe(
      'HTTP 429: Quota of 2 requests used up. The server asks to wait 3 s before trying again (Retry-After).',
    );
  });

  it('Cancel aborts the requests in flight, and Resume sends the items again', async () => {
    const fixture = await render(3);
    button(fixture, 'Create').click();
    sentNow().forEach(respondCreated);
    const inFlight = sentNow();
    fixture.detectChanges(); // Cancel is enabled once the page shows the run
    expect(inFlight.length).toBe(2);

    button(fixture, 'Cancel').click();
    await fixture.whenStable();
    expect(inFlight.map((request) => request.cancelled)).toEqual([true, true]);
    expect(cellStates(fixture)).toEqual([['created'], ['cancelled', 'cancelled']]);
    expect(count(fixture, 'skipped')).toBe('2');

    button(fixture, 'Resume').click();
    sentNow().forEach(respondCreated);
    sentNow().forEach(respondCreated);
    await fixture.whenStable();
    expect(count(fixture, 'done')).toBe('3 / 3');
  });

  it('with the service provided in root, a run goes on after the component is destroyed', async () => {
    const fixture = await render(3);
    button(fixture, 'Create').click();
    const [first] = sentNow();

    fixture.destroy();

    expect(first.cancelled).toBe(false);
    respondCreated(first);
    sentNow().forEach(respondCreated);
    expect(TestBed.inject(ItemBulkCreator).progress()).toMatchObject({ status: 'completed', done: 3 });
  });

  it("with the service in a component's providers, destroying the component cancels its run", async () => {
    const fixture = TestBed.createComponent(PanelWithItsOwnCreator);
    await fixture.whenStable();
    button(fixture, 'Create 3 items').click();
    const [first] = sentNow();
    expect(first.cancelled).toBe(false);

    fixture.destroy();

    expect(first.cancelled).toBe(true);
    // The root service was never used: the component had a service of its own.
    expect(TestBed.inject(ItemBulkCreator).progress().status).toBe('idle');
  });
});
