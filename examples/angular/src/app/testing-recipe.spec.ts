import { provideHttpClient } from '@angular/common/http';
import { HttpTestingController, provideHttpClientTesting } from '@angular/common/http/testing';
import { TestBed } from '@angular/core/testing';
import { ItemCreator, RETRY_DELAY } from './recipe.service';

describe('ItemCreator, tested with HttpTestingController and fake timers', () => {
  let creator: ItemCreator;
  let httpTesting: HttpTestingController;

  beforeEach(() => {
    vi.useFakeTimers(); // the pause before a retry is a timer
    TestBed.configureTestingModule({
      // A fixed retry delay: the default backoff has jitter.
      providers: [provideHttpClient(), provideHttpClientTesting(), { provide: RETRY_DELAY, useValue: 1000 }],
    });
    creator = TestBed.inject(ItemCreator);
    httpTesting = TestBed.inject(HttpTestingController);
  });

  afterEach(() => {
    httpTesting.verify(); // no request left unanswered
    vi.useRealTimers();
  });

  it('retries a 429 after the pause and counts the item created', () => {
    creator.start([{ name: 'item-1' }]);
    httpTesting.expectOne('/api/items').flush(null, { status: 429, statusText: 'Too Many Requests' });
    expect(creator.progress()).toMatchObject({ retrying: 1, succeeded: 0, ended: undefined });

    vi.advanceTimersByTime(999);
    httpTesting.expectNone('/api/items'); // still pausing
    vi.advanceTimersByTime(1);
    httpTesting.expectOne('/api/items').flush({ id: '1', name: 'item-1' });

    expect(creator.progress()).toMatchObject({ retrying: 0, succeeded: 1, failed: 0, ended: 'completed' });
  });
});
