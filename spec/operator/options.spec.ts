import { of, VirtualTimeScheduler } from 'rxjs';
import { slowStart, slowStartBatch, type SlowStartOptions } from '../../src/index';
import { resolveOptions } from '../../src/resolve-options';

// Options are validated when the function is called, not on subscribe (contract §8), so every case
// below calls the function and never subscribes.
const entryPoints = [
  ['slowStartBatch', (options: unknown) => slowStartBatch(options as SlowStartOptions)],
  ['slowStart', (options: unknown) => slowStart([], options as SlowStartOptions)],
] as const;

describe.each(entryPoints)('%s(options)', (_name, call) => {
  it('accepts no options, an empty object and explicit undefined values', () => {
    expect(() => call(undefined)).not.toThrow();
    expect(() => call({})).not.toThrow();
    expect(() => call({ initialBatchSize: undefined, flushAfter: undefined, scheduler: undefined })).not.toThrow();
  });

  it.each([
    // [options, error class, message]
    [{ initialBatchSize: 0 }, RangeError, 'Expected `initialBatchSize` to be an integer >= 1, got 0 (number)'],
    [{ initialBatchSize: 1.5 }, RangeError, 'Expected `initialBatchSize` to be an integer >= 1, got 1.5 (number)'],
    [{ initialBatchSize: -1 }, RangeError, 'Expected `initialBatchSize` to be an integer >= 1, got -1 (number)'],
    [{ initialBatchSize: NaN }, RangeError, 'Expected `initialBatchSize` to be an integer >= 1, got NaN (number)'],
    [{ initialBatchSize: Infinity }, RangeError, 'Expected `initialBatchSize` to be an integer >= 1, got Infinity (number)'],
    [{ initialBatchSize: '2' }, TypeError, 'Expected `initialBatchSize` to be an integer >= 1, got "2" (string)'],
    [{ growthFactor: 0.99 }, RangeError, 'Expected `growthFactor` to be a finite number >= 1, got 0.99 (number)'],
    [{ growthFactor: Infinity }, RangeError, 'Expected `growthFactor` to be a finite number >= 1, got Infinity (number)'],
    [{ growthFactor: NaN }, RangeError, 'Expected `growthFactor` to be a finite number >= 1, got NaN (number)'],
    [{ growthFactor: null }, TypeError, 'Expected `growthFactor` to be a finite number >= 1, got null (null)'],
    [{ maxBatchSize: 0 }, RangeError, 'Expected `maxBatchSize` to be an integer >= `initialBatchSize` (1) or Infinity, got 0 (number)'],
    [
      { initialBatchSize: 4, maxBatchSize: 3 },
      RangeError,
      'Expected `maxBatchSize` to be an integer >= `initialBatchSize` (4) or Infinity, got 3 (number)',
    ],
    [{ maxBatchSize: 2.5 }, RangeError, 'Expected `maxBatchSize` to be an integer >= `initialBatchSize` (1) or Infinity, got 2.5 (number)'],
    [
      { maxBatchSize: -Infinity },
      RangeError,
      'Expected `maxBatchSize` to be an integer >= `initialBatchSize` (1) or Infinity, got -Infinity (number)',
    ],
    [{ concurrency: 0 }, RangeError, 'Expected `concurrency` to be an integer >= 1 or Infinity, got 0 (number)'],
    [{ concurrency: 1.5 }, RangeError, 'Expected `concurrency` to be an integer >= 1 or Infinity, got 1.5 (number)'],
    [{ concurrency: 2n }, TypeError, 'Expected `concurrency` to be an integer >= 1 or Infinity, got 2n (bigint)'],
    [{ flushAfter: -1 }, RangeError, 'Expected `flushAfter` to be a finite number of milliseconds from 0 to 2147483647, got -1 (number)'],
    [
      { flushAfter: -0.001 },
      RangeError,
      'Expected `flushAfter` to be a finite number of milliseconds from 0 to 2147483647, got -0.001 (number)',
    ],
    [
      { flushAfter: Infinity },
      RangeError,
      'Expected `flushAfter` to be a finite number of milliseconds from 0 to 2147483647, got Infinity (number)',
    ],
    [
      { flushAfter: '10' },
      TypeError,
      'Expected `flushAfter` to be a finite number of milliseconds from 0 to 2147483647, got "10" (string)',
    ],
    [
      { scheduler: {} },
      TypeError,
      'Expected `scheduler` to be a SchedulerLike (an object with `schedule()` and `now()`), got an object (object)',
    ],
    [
      { scheduler: () => 0 },
      TypeError,
      'Expected `scheduler` to be a SchedulerLike (an object with `schedule()` and `now()`), got function scheduler (function)',
    ],
    [
      { scheduler: { schedule: () => undefined, now: 0 } },
      TypeError,
      'Expected `scheduler` to be a SchedulerLike (an object with `schedule()` and `now()`), got an object (object)',
    ],
    [{ concurrency: [() => 1][0] }, TypeError, 'Expected `concurrency` to be an integer >= 1 or Infinity, got a function (function)'],
    [
      { initalBatchSize: 2 },
      TypeError,
      'Unknown option `initalBatchSize`: expected one of `initialBatchSize`, `growthFactor`, `maxBatchSize`, `concurrency`, `flushAfter`, `scheduler`',
    ],
    [
      { rateLimit: 'yes' },
      TypeError,
      'Expected `rateLimit` to be a boolean, or a function from a value or an error to a RateLimitState, an array of them, or undefined, got "yes" (string)',
    ],
    [
      { rateLimit: null },
      TypeError,
      'Expected `rateLimit` to be a boolean, or a function from a value or an error to a RateLimitState, an array of them, or undefined, got null (null)',
    ],
    [null, TypeError, 'Expected `options` to be an object or undefined, got null (null)'],
    [5, TypeError, 'Expected `options` to be an object or undefined, got 5 (number)'],
    [[1], TypeError, 'Expected `options` to be an object or undefined, got an array of 1 (object)'],
  ])('rejects %p', (options, errorClass, message) => {
    expect(() => call(options)).toThrow(errorClass);
    expect(() => call(options)).toThrow(message);
  });

  it.each([
    { initialBatchSize: 1 },
    { initialBatchSize: 1000 },
    { growthFactor: 1 },
    { growthFactor: 1.5 },
    { maxBatchSize: 1 },
    { initialBatchSize: 4, maxBatchSize: 4 },
    { maxBatchSize: Infinity },
    { concurrency: 1 },
    { concurrency: Infinity },
    { rateLimit: true },
    { rateLimit: false },
    { rateLimit: () => undefined },
    { flushAfter: 0 },
    { flushAfter: 0.5 },
    { scheduler: new VirtualTimeScheduler() },
    // RxJS asks no more of a scheduler than these two methods.
    { scheduler: Object.assign(() => undefined, { schedule: () => undefined, now: () => 0 }) },
  ])('accepts %p', (options) => {
    expect(() => call(options)).not.toThrow();
  });
});

describe('slowStart(tasks)', () => {
  it.each([
    [
      undefined,
      'Expected `tasks` to be an array, an iterable, an async iterable or an ObservableInput of task factories, got undefined (undefined)',
    ],
    [null, 'Expected `tasks` to be an array, an iterable, an async iterable or an ObservableInput of task factories, got null (null)'],
    [42, 'Expected `tasks` to be an array, an iterable, an async iterable or an ObservableInput of task factories, got 42 (number)'],
    [{}, 'Expected `tasks` to be an array, an iterable, an async iterable or an ObservableInput of task factories, got an object (object)'],
  ])('rejects %p when called', (tasks, message) => {
    expect(() => slowStart(tasks as never)).toThrow(TypeError);
    expect(() => slowStart(tasks as never)).toThrow(message);
  });

  it('accepts an array, a Set, a generator, an async generator, an observable and a promise', () => {
    const factory = () => of(1);
    async function* asyncFactories() {
      yield factory;
    }
    function* factories() {
      yield factory;
    }
    for (const tasks of [[factory], new Set([factory]), factories(), asyncFactories(), of(factory), Promise.resolve(factory)]) {
      expect(() => slowStart(tasks)).not.toThrow();
    }
  });
});

// Found by mutation testing (see MUTATION.md): objects that miss one of the two methods.
describe('the scheduler option (§8)', () => {
  it.each([null, 42, {}, { schedule: () => undefined }, { now: () => 0 }])('rejects %p with a TypeError', (scheduler) => {
    expect(() => slowStartBatch({ scheduler: scheduler as never })).toThrow(TypeError);
    expect(() => slowStart([], { scheduler: scheduler as never })).toThrow(/`scheduler`/);
  });
});

// Found by mutation testing: the options both entry points run with when given none.
describe('resolveOptions (§8)', () => {
  const defaults = {
    initialBatchSize: 1,
    growthFactor: 2,
    maxBatchSize: Infinity,
    concurrency: Infinity,
    flushAfter: undefined,
    pacing: 'batch',
    retry: undefined,
    httpErrors: true,
    scheduler: undefined,
  };

  it.each([undefined, {}, { pacing: undefined }])('fills in every default for %p, batch pacing included', (options) => {
    expect(resolveOptions(options)).toEqual(defaults);
  });

  it('keeps the pacing it is given', () => {
    expect(resolveOptions({ pacing: 'window' }).pacing).toBe('window');
    expect(resolveOptions({ pacing: 'batch' }).pacing).toBe('batch');
  });
});
