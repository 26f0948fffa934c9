// Type tests: `npm test` type-checks this file first (tsc --noEmit), so broken inference fails the run.
import { expectTypeOf } from 'expect-type';
import { from, of, type Observable, type OperatorFunction } from 'rxjs';
import {
  isSlowStartBatchError,
  readRateLimit,
  readRateLimits,
  slowStart,
  slowStartBatch,
  type BatchResult,
  type RateLimitState,
  type SlowStartBatchError,
  type SlowStartEvent,
  type SlowStartOptions,
  type TaskContext,
  type TaskFactory,
  type TaskOutcome,
} from '../../src/index';

describe('types', () => {
  it('infer T for the operator from the factories, with no type arguments written', () => {
    const factories = [() => of(1), () => of(2)];
    expectTypeOf(from(factories).pipe(slowStartBatch())).toEqualTypeOf<Observable<BatchResult<number>>>();
    expectTypeOf(from([async () => 'text']).pipe(slowStartBatch())).toEqualTypeOf<Observable<BatchResult<string>>>();
    expectTypeOf(slowStartBatch<number>()).toEqualTypeOf<OperatorFunction<TaskFactory<number>, BatchResult<number>>>();
  });

  it('infer T for slowStart from arrays, iterables, async iterables, observables and promises', () => {
    expectTypeOf(slowStart([() => of(1)])).toEqualTypeOf<Observable<BatchResult<number>>>();
    expectTypeOf(slowStart([() => Promise.resolve({ id: 'a' })])).toEqualTypeOf<Observable<BatchResult<{ id: string }>>>();
    expectTypeOf(slowStart(new Set([({ signal }: TaskContext) => fetchLike(signal)]))).toEqualTypeOf<Observable<BatchResult<Response>>>();
    async function* factories() {
      yield () => of(true);
    }
    expectTypeOf(slowStart(factories())).toEqualTypeOf<Observable<BatchResult<boolean>>>();
    expectTypeOf(slowStart(of(() => of(1n)))).toEqualTypeOf<Observable<BatchResult<bigint>>>();
  });

  it('infer the union for factories of mixed types', () => {
    expectTypeOf(slowStart([() => of(1), () => of('s')])).toEqualTypeOf<Observable<BatchResult<number | string>>>();
    expectTypeOf(slowStart([() => of(1), async () => true])).toEqualTypeOf<Observable<BatchResult<number | boolean>>>();
    const mixed = [() => of(1), () => of('s')];
    expectTypeOf(from(mixed).pipe(slowStartBatch())).toEqualTypeOf<Observable<BatchResult<number | string>>>();
  });

  it('type the context of a factory written inline', () => {
    slowStart([
      ({ signal, index }) => {
        expectTypeOf(signal).toEqualTypeOf<AbortSignal>();
        return of(index);
      },
    ]);
  });

  it('type results and errors', () => {
    expectTypeOf<BatchResult<number>['values']>().toEqualTypeOf<(number | undefined)[]>();
    expectTypeOf<TaskContext>().toEqualTypeOf<{
      readonly index: number;
      readonly batch: number;
      readonly attempt: number;
      readonly key: string | number;
      readonly inDoubt: boolean;
      readonly signal: AbortSignal;
    }>();
    const error: unknown = undefined;
    if (isSlowStartBatchError<number>(error)) {
      expectTypeOf(error).toEqualTypeOf<SlowStartBatchError<number>>();
      expectTypeOf(error.results).toEqualTypeOf<TaskOutcome<number>[]>();
      expectTypeOf(error.remaining).toEqualTypeOf<TaskFactory<number>[]>();
      expectTypeOf(error.unfinished).toEqualTypeOf<TaskFactory<number>[]>();
    }
  });

  it('reject what is not a stream of task factories', () => {
    // @ts-expect-error numbers are not task factories
    expect(() => from([1, 2]).pipe(slowStartBatch())).not.toThrow();
    // @ts-expect-error options are checked, by the compiler and at run time
    expect(() => slowStartBatch({ initialBatchSize: '2' })).toThrow(TypeError);
    // @ts-expect-error flushAfter has no meaning with window pacing, for the compiler and at run time
    expect(() => slowStart([() => of(1)], { pacing: 'window', flushAfter: 10 })).toThrow(TypeError);
    expect(() => slowStart([() => of(1)], { pacing: 'window', maxBatchSize: 64 })).not.toThrow();
    // @ts-expect-error unknown options are rejected, by the compiler and at run time
    expect(() => slowStart([() => of(1)], { initalBatchSize: 2 })).toThrow(TypeError);
  });

  it('keep options written apart from the call with `satisfies`; without it, a literal widens and the call fails', () => {
    const widened = { pacing: 'window' };
    // @ts-expect-error `pacing` widened to `string` matches neither shape of the options
    expect(() => slowStart([], widened)).not.toThrow();
    const kept = { pacing: 'window', maxBatchSize: 6 } satisfies SlowStartOptions;
    expectTypeOf(slowStart([() => of(1)], kept)).toEqualTypeOf<Observable<BatchResult<number>>>();
  });

  it('take as the rateLimit reader a function that returns one budget, several, or none, the readers among them', () => {
    expectTypeOf(readRateLimits).returns.toEqualTypeOf<RateLimitState[]>();
    expectTypeOf(readRateLimit).returns.toEqualTypeOf<RateLimitState | undefined>();
    const state: RateLimitState = { limit: undefined, remaining: 1, resetIn: 1000, window: undefined };
    for (const rateLimit of [readRateLimits, readRateLimit, () => [state] as const, () => state, () => undefined]) {
      expect(() => slowStart([() => of(1)], { rateLimit })).not.toThrow();
    }
    // @ts-expect-error a reader that returns anything else is refused by the compiler (and ignored at run time)
    expect(() => slowStart([() => of(1)], { rateLimit: () => 5 })).not.toThrow();
  });

  it("type the events by the tasks' values", () => {
    slowStart([() => of(1)], {
      events: (event) => {
        expectTypeOf(event).toEqualTypeOf<SlowStartEvent<number>>();
        if (event.type === 'succeeded') expectTypeOf(event.value).toEqualTypeOf<number | undefined>();
      },
    });
    expectTypeOf<Extract<TaskOutcome<number>, { status: 'abandoned' }>>().toEqualTypeOf<{
      readonly index: number;
      readonly status: 'abandoned';
      readonly reason: unknown;
    }>();
  });
});

declare function fetchLike(signal: AbortSignal): Promise<Response>;
