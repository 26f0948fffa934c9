import { provideHttpClient } from '@angular/common/http';
import { HttpTestingController, TestRequest, provideHttpClientTesting } from '@angular/common/http/testing';
import { TestBed } from '@angular/core/testing';
import { ItemCreator } from './recipe.service';

describe('ItemCreator (the README recipe)', () => {
  let creator: ItemCreator;
  let httpTesting: HttpTestingController;

  beforeEach(() => {
    TestBed.configureTestingModule({ providers: [provideHttpClient(), provideHttpClientTesting()] });
    creator = TestBed.inject(ItemCreator);
    httpTesting = TestBed.inject(HttpTestingController);
  });

  afterEach(() => httpTesting.verify());

  const items = (...names: string[]) => names.map((name) => ({ name }));
  const sentNow = (): TestRequest[] => httpTesting.match({ method: 'POST', url: '/api/items' });
  const namesOf = (requests: TestRequest[]): string[] => requests.map((request) => (request.request.body as { name: string }).name);
  const respondCreated = (request: TestRequest): void => request.flush({ id: 'id', ...(request.request.body as object) });

  it('counts a run that creates every item, batch after batch', () => {
    creator.start(items('a', 'b', 'c', 'd'));
    const batches: string[][] = [];
    for (let batch = sentNow(); batch.length > 0; batch = sentNow()) {
      batches.push(namesOf(batch));
      batch.forEach(respondCreated);
    }

    expect(batches).toEqual([['a'], ['b', 'c'], ['d']]);
    expect(creator.progress()).toMatchObject({ succeeded: 4, failed: 0, inFlight: 0, waiting: 0, ended: 'completed' });
  });

  it('cancel() aborts the requests in flight; resume() sends those and the rest, under the same keys', () => {
    creator.start(items('a', 'b', 'c', 'd'));
    sentNow().forEach(respondCreated);
    const inFlight = sentNow();
    expect(namesOf(inFlight)).toEqual(['b', 'c']);

    creator.cancel();
    expect(inFlight.map((request) => request.cancelled)).toEqual([true, true]);
    expect(creator.progress()).toMatchObject({ succeeded: 1, cancelled: 2, skipped: 1, inFlight: 0, ended: 'cancelled' });

    creator.resume();
    const resumed = sentNow();
    expect(namesOf(resumed)).toEqual(['b']); // slow start again from one request
    resumed.forEach(respondCreated);
    sentNow().forEach(respondCreated);

    expect(creator.progress()).toMatchObject({ succeeded: 4, cancelled: 0, skipped: 0, ended: 'completed' });
    expect(Object.fromEntries(creator.progress().tasks)).toEqual({ a: 'succeeded', b: 'succeeded', c: 'succeeded', d: 'succeeded' });
  });

  it('resume() does nothing after a run that completed', () => {
    creator.start(items('a'));
    sentNow().forEach(respondCreated);
    creator.resume();
    expect(sentNow()).toEqual([]);
    expect(creator.progress()).toMatchObject({ succeeded: 1, ended: 'completed' });
  });
});
