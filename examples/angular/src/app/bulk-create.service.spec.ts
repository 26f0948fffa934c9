import { HttpErrorResponse, provideHttpClient } from '@angular/common/http';
import { HttpTestingController, TestRequest, provideHttpClientTesting } from '@angular/common/http/testing';
import { ApplicationRef } from '@angular/core';
import { TestBed } from '@angular/core/testing';
import { ItemBulkCreator, type NewItem } from './bulk-create.service';

/** The progress of a run in which all `total` items were created, the last of them in batch `batch`. */
function completed(total: number, batch: number) {
  return { status: 'completed', total, done: total, failed: 0, skipped: 0, retrying: 0, abandoned: 0, batch, error: undefined };
}

describe('ItemBulkCreator', () => {
  let creator: ItemBulkCreator;
  let httpTesting: HttpTestingController;

  beforeEach(() => {
    // A job stored by an earlier test would be resumed as the service starts.
    localStorage.clear();
    TestBed.configureTestingModule({
      providers: [provideHttpClient(), provideHttpClientTesting()],
    });
    creator = TestBed.inject(ItemBulkCreator);
    httpTesting = TestBed.inject(HttpTestingController);
  });

  afterEach(() => {
    // No request may be left unanswered or unexpected; the tests call it themselves at their end too.
    httpTesting.verify();
    vi.useRealTimers();
  });

  const items = (count: number): NewItem[] => Array.from({ length: count }, (_, i) => ({ name: `item-${i}` }));

  /** Takes every request on the wire now (removing them from the controller's open list). */
  const sentNow = (): TestRequest[] => httpTesting.match({ method: 'POST', url: '/api/items' });
  const namesOf = (requests: TestRequest[]): string[] => requests.map((request) => (request.request.body as NewItem).name);

  const respondCreated = (request: TestRequest): void => {
    const body = request.request.body as NewItem;
    request.flush({ id: `id-${body.name}`, ...body }, { status: 201, statusText: 'Created' });
  };
  const respondError = (request: TestRequest, status: number, statusText: string): void =>
    request.flush({ message: statusText }, { status, statusText });

  /** Answers every request with 201, batch after batch, and returns the batches as names. */
  const createAll = (): string[][] => {
    const batches: string[][] = [];
    for (let batch = sentNow(); batch.length > 0; batch = sentNow()) {
      batches.push(namesOf(batch));
      batch.forEach(respondCreated);
    }
    return batches;
  };

  it('sends 1, 2, 4, 8, ... requests, each batch only after the last response of the previous one', () => {
    creator.create(items(20));

    // maxBatchSize is 6 (the service's options): a browser has about six HTTP/1.1 connections per host.
    const expectedSizes = [1, 2, 4, 6, 6, 1];
    let next = 0;
    expectedSizes.forEach((size, batchIndex) => {
      const batch = sentNow();
      expect(batch.length).toBe(size);
      expect(namesOf(batch)).toEqual(
        items(20)
          .slice(next, next + size)
          .map((item) => item.name),
      );
      expect(creator.progress().batch).toBe(batchIndex);
      next += size;

      batch.slice(0, -1).forEach((request) => {
        respondCreated(request);
        expect(sentNow()).toEqual([]); // the batch is not over: nothing new goes out
      });
      respondCreated(batch[batch.length - 1]);
    });

    expect(sentNow()).toEqual([]);
    expect(creator.progress()).toEqual(completed(20, 5));
    httpTesting.verify();
  });

  it('retries a 429 after its Retry-After, ahead of new items, with the pace dropped back to one request', () => {
    vi.useFakeTimers(); // the pause is a timer of the library's scheduler
    creator.create(items(20));
    sentNow().forEach(respondCreated); // batch 0: item-0
    sentNow().forEach(respondCreated); // batch 1: item-1, item-2

    const third = sentNow(); // batch 2: item-3 .. item-6
    respondCreated(third[0]);
    third[1].flush({ message: 'Quota used up' }, { status: 429, statusText: 'Too Many Requests', headers: { 'Retry-After': '2' } });
    respondError(third[2], 409, 'Conflict');
    respondCreated(third[3]);

    // A throttle is not a failure of the run: the item waits for its retry, nothing else is sent.
    expect(creator.progress()).toEqual({ ...completed(20, 2), status: 'running', done: 6, retrying: 1 });
    expect(creator.batches()[2].requests.map((request) => request.state)).toEqual(['created', 'retrying', 'existed', 'created']);
    vi.advanceTimersByTime(1999);
    expect(sentNow()).toEqual([]); // Retry-After: 2 s, and no request at all before

    vi.advanceTimersByTime(1);
    const [retried, ...others] = sentNow();
    expect(others).toEqual([]); // a batch of one: the pace starts again from one request
    expect(namesOf([retried])).toEqual(['item-4']); // the throttled item first, ahead of item-7
    // The request sent again joins its batch's row; the item counts once.
    expect(creator.batches()[2].requests.map((request) => request.state)).toEqual([
      'created',
      'retrying',
      'existed',
      'created',
      'in-flight',
    ]);
    expect(creator.progress()).toMatchObject({ status: 'running', done: 6, retrying: 0 });
    respondCreated(retried);

    // Then slow start again, up to half of what was in flight, and one more request per batch above it.
    const rest = createAll();
    expect(rest.map((batch) => batch.length)).toEqual([2, 3, 4, 4]);
    expect(rest.flat()).toEqual(
      items(20)
        .slice(7)
        .map((item) => item.name),
    );
    expect(creator.progress()).toEqual(completed(20, 6));
    httpTesting.verify();
  });

  it('stops a throttled item after 4 tries, as failed, with the last refusal as the error', () => {
    vi.useFakeTimers();
    creator.create(items(3));
    for (let attempt = 1; attempt <= 4; attempt++) {
      const [request, ...others] = sentNow();
      expect(others).toEqual([]);
      expect(namesOf([request])).toEqual(['item-0']);
      request.flush({ message: 'Slow down' }, { status: 503, statusText: 'Service Unavailable' });
      vi.advanceTimersByTime(30_000); // no Retry-After: the library's backoff
    }

    const { error, ...counts } = creator.progress();
    expect(counts).toEqual({ status: 'failed', total: 3, done: 0, failed: 1, skipped: 2, retrying: 0, abandoned: 0, batch: 0 });
    expect((error as HttpErrorResponse).status).toBe(503);
    httpTesting.verify();
  });

  it('stops after a batch with a 500, reports exact counts, and resume() sends exactly the failed and skipped items', () => {
    creator.create(items(20));
    sentNow().forEach(respondCreated); // batch 0: item-0
    sentNow().forEach(respondCreated); // batch 1: item-1, item-2

    const third = sentNow(); // batch 2: item-3 .. item-6
    expect(namesOf(third)).toEqual(['item-3', 'item-4', 'item-5', 'item-6']);
    respondCreated(third[0]);
    respondError(third[1], 500, 'Internal Server Error');
    respondError(third[2], 409, 'Conflict');
    // The siblings of the failed request still run to the end, like Kubernetes' wg.Wait().
    expect(creator.progress().status).toBe('running');
    respondCreated(third[3]);

    const { error, ...counts } = creator.progress();
    expect(counts).toEqual({
      status: 'failed',
      total: 20,
      done: 6, // 1 + 2 + 3 (the 409 included)
      failed: 1,
      skipped: 13, // item-7 .. item-19
      retrying: 0,
      abandoned: 0,
      batch: 2,
    });
    expect(error).toBeInstanceOf(HttpErrorResponse);
    expect((error as HttpErrorResponse).status).toBe(500);
    httpTesting.verify(); // no further request: the failure cost 4 requests, not 17

    creator.resume();
    const resumedNames = createAll();

    expect(resumedNames.map((batch) => batch.length)).toEqual([1, 2, 4, 6, 1]);
    expect(resumedNames.flat()).toEqual([
      'item-4',
      ...items(20)
        .slice(7)
        .map((item) => item.name),
    ]);
    expect(creator.progress()).toEqual(completed(20, 4));
    httpTesting.verify();
  });

  it('cancel() during the pause of a throttle sends nothing more; the throttled item counts as abandoned, not failed, and resume() sends it first', () => {
    vi.useFakeTimers();
    creator.create(items(4));
    sentNow().forEach(respondCreated);
    const [second, third] = sentNow();
    second.flush({ message: 'Quota used up' }, { status: 429, statusText: 'Too Many Requests', headers: { 'Retry-After': '1' } });
    respondCreated(third);
    expect(creator.progress()).toMatchObject({ status: 'running', done: 2, retrying: 1 });

    creator.cancel();
    vi.advanceTimersByTime(60_000);
    expect(sentNow()).toEqual([]); // the pause was cancelled with the run

    // The server refused item-1 for now; it did not fail it.
    expect(creator.progress()).toMatchObject({ status: 'cancelled', done: 2, failed: 0, skipped: 1, retrying: 0, abandoned: 1 });
    expect(creator.batches()[1].requests.map((request) => request.state)).toEqual(['abandoned', 'created']);
    creator.resume();
    expect(createAll()).toEqual([['item-1'], ['item-3']]);
    expect(creator.progress()).toEqual(completed(4, 1));
  });

  it('a failure that stops the run abandons the retry of a throttled sibling: one failed item, one abandoned', () => {
    vi.useFakeTimers();
    creator.create(items(4));
    sentNow().forEach(respondCreated);
    const [throttled, failing] = sentNow();
    throttled.flush({ message: 'Quota used up' }, { status: 429, statusText: 'Too Many Requests', headers: { 'Retry-After': '1' } });
    respondError(failing, 500, 'Internal Server Error');

    const { error, ...counts } = creator.progress();
    expect(counts).toEqual({ status: 'failed', total: 4, done: 1, failed: 1, skipped: 1, retrying: 0, abandoned: 1, batch: 1 });
    expect((error as HttpErrorResponse).status).toBe(500);
    expect(creator.batches()[1].requests.map((request) => request.state)).toEqual(['abandoned', 'failed']);
    vi.advanceTimersByTime(60_000);
    httpTesting.verify(); // the abandoned retry is not sent

    creator.resume();
    expect(createAll()).toEqual([['item-1'], ['item-2', 'item-3']]);
    expect(creator.progress()).toEqual(completed(4, 1));
  });

  it('stops after the very first request when it is refused with 403', () => {
    creator.create(items(10));
    const [first, ...others] = sentNow();
    expect(others).toEqual([]);
    respondError(first, 403, 'Forbidden');

    expect(creator.progress()).toMatchObject({ status: 'failed', done: 0, failed: 1, skipped: 9 });
    expect((creator.progress().error as HttpErrorResponse).status).toBe(403);
    httpTesting.verify();
  });

  it('counts 409 Conflict as created: the item exists', () => {
    creator.create(items(3));
    respondError(sentNow()[0], 409, 'Conflict');
    const [second, third] = sentNow();
    respondCreated(second);
    respondError(third, 409, 'Conflict');

    expect(creator.progress()).toMatchObject({ status: 'completed', done: 3, failed: 0, skipped: 0 });
    httpTesting.verify();
  });

  it('cancel() mid-batch cancels the requests in flight and sends no more; resume() sends what is not done', () => {
    creator.create(items(10));
    sentNow().forEach(respondCreated); // 1
    sentNow().forEach(respondCreated); // 2
    const third = sentNow(); // 4 in flight
    respondCreated(third[0]);
    respondCreated(third[1]);
    // (Angular's testing backend marks a request `cancelled` whenever its subscription ends, so the two
    // answered ones read true as well; only the two still in flight tell anything.)
    const inFlight = third.slice(2);
    expect(inFlight.map((request) => request.cancelled)).toEqual([false, false]);

    creator.cancel();

    expect(inFlight.map((request) => request.cancelled)).toEqual([true, true]);
    // The two aborted items and the three never sent: none of them is on the server.
    expect(creator.progress()).toMatchObject({ status: 'cancelled', done: 5, failed: 0, skipped: 5 });
    expect(creator.batches()[2].requests.map((request) => request.state)).toEqual(['created', 'created', 'cancelled', 'cancelled']);
    httpTesting.verify(); // nothing was sent after the cancellation

    creator.resume();
    expect(createAll()).toEqual([['item-5'], ['item-6', 'item-7'], ['item-8', 'item-9']]);
    expect(creator.progress()).toEqual(completed(10, 2));
    httpTesting.verify();
  });

  it('shows every request in its batch, run after run, with how it ended', () => {
    creator.create(items(4));
    sentNow().forEach(respondCreated);
    const [second, third] = sentNow();
    respondError(second, 409, 'Conflict');
    respondError(third, 500, 'Internal Server Error');
    creator.resume();
    const [retried] = sentNow();
    expect(creator.batches().at(-1)).toEqual({ run: 2, batch: 0, requests: [{ item: 2, name: 'item-2', state: 'in-flight' }] });
    respondCreated(retried);
    sentNow().forEach(respondCreated);

    const states = creator.batches().map((row) => [row.run, row.batch, row.requests.map((request) => `${request.name} ${request.state}`)]);
    expect(states).toEqual([
      [1, 0, ['item-0 created']],
      [1, 1, ['item-1 existed', 'item-2 failed']],
      [2, 0, ['item-2 created']],
      [2, 1, ['item-3 created']],
    ]);
    expect(creator.progress()).toEqual(completed(4, 1));
  });

  it('cancels the requests in flight when the application is destroyed', () => {
    creator.create(items(3));
    const [first] = sentNow();

    TestBed.resetTestingModule(); // destroys the root injector, as closing the application does

    expect(first.cancelled).toBe(true);
    httpTesting.verify();
  });

  describe('keeps the application unstable while a run is under way, so that a server render waits for it', () => {
    /** Whether the application is stable now: no pending task, and no change detection scheduled. */
    const stableNow = (): boolean => {
      let stable = false;
      TestBed.inject(ApplicationRef)
        .isStable.subscribe((value) => (stable = value))
        .unsubscribe();
      return stable;
    };
    /** Throttles the first request, so that the run waits in a pause with no request open. */
    const startAndThrottle = (): void => {
      vi.useFakeTimers();
      creator.create(items(2));
      sentNow()[0].flush({ message: 'Slow down' }, { status: 429, statusText: 'Too Many Requests', headers: { 'Retry-After': '1' } });
      vi.advanceTimersByTime(500); // halfway through the pause; any scheduled change detection has run
      expect(httpTesting.match(() => true)).toEqual([]); // no request open: only the run is pending
    };

    it('through a retry pause, until the run completes', async () => {
      startAndThrottle();
      expect(stableNow()).toBe(false);

      vi.advanceTimersByTime(500);
      sentNow().forEach(respondCreated); // the retry
      expect(stableNow()).toBe(false); // the second item is yet to go
      sentNow().forEach(respondCreated);
      expect(creator.progress().status).toBe('completed');
      await vi.runAllTimersAsync(); // the change detection that the end of a pending task schedules

      expect(stableNow()).toBe(true);
      await TestBed.inject(ApplicationRef).whenStable();
    });

    it('until the run is cancelled during the pause', async () => {
      startAndThrottle();
      expect(stableNow()).toBe(false);

      creator.cancel();
      await vi.runAllTimersAsync();
      expect(stableNow()).toBe(true);
    });

    it('until a failure stops the run', async () => {
      vi.useFakeTimers();
      creator.create(items(2));
      await vi.runAllTimersAsync();
      expect(stableNow()).toBe(false); // (the testing backend's open request does not count)

      respondError(sentNow()[0], 403, 'Forbidden');
      expect(creator.progress().status).toBe('failed');
      await vi.runAllTimersAsync();
      expect(stableNow()).toBe(true);
    });
  });

  it('refuses to start a second run while one is in progress', () => {
    creator.create(items(2));
    expect(() => creator.create(items(2))).toThrow('a run is in progress');
    expect(() => creator.resume()).toThrow('a run is in progress');

    expect(createAll()).toEqual([['item-0'], ['item-1']]);
    expect(creator.progress()).toMatchObject({ status: 'completed', total: 2, done: 2 });
    httpTesting.verify();
  });

  it('a reload mid-job resumes it from the checkpoint in localStorage: what was created is not sent again, and the counts carry on', () => {
    creator.create(items(7));
    respondCreated(sentNow()[0]);
    const second = sentNow();
    expect(namesOf(second)).toEqual(['item-1', 'item-2']);
    respondCreated(second[0]);
    // The page goes away with item-2 and the batch after it not answered: nothing of Angular is torn down.
    const storage = Object.entries(localStorage) as [string, string][];
    httpTesting.match(() => true);
    TestBed.resetTestingModule();
    localStorage.clear();
    for (const [key, value] of storage) localStorage.setItem(key, value);

    TestBed.configureTestingModule({ providers: [provideHttpClient(), provideHttpClientTesting()] });
    httpTesting = TestBed.inject(HttpTestingController);
    const reloaded = TestBed.inject(ItemBulkCreator);
    expect(reloaded.progress()).toMatchObject({ status: 'running', total: 7, done: 2 });
    const resent = sentNow();
    // item-2 was on the wire: it goes again, with the same key, for the server to tell it apart; the
    // checkpoint is a second old, so the pace it had (2) is taken up.
    expect(namesOf(resent)).toEqual(['item-2', 'item-3']);
    expect(resent.map((request) => request.request.headers.get('Idempotency-Key'))).toEqual(['2', '3']);
    resent.forEach(respondCreated);
    expect(createAll()).toEqual([['item-4', 'item-5', 'item-6']]);
    expect(reloaded.progress()).toMatchObject({ status: 'completed', total: 7, done: 7 });
    httpTesting.verify();
  });
});
