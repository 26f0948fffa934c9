// The live state of a run as an RxJS operator: one `toSignal()` away from an Angular template.
import { defer, map, startWith, type OperatorFunction } from 'rxjs';
import type { SlowStartEvent } from './events.js';
import { initialState, nextState, type SlowStartState } from './run-state.js';

/**
 * Folds a run's events into its live state: the state before any event at once, then one state per
 * event that changes it. Each subscription folds on its own.
 *
 * ```
 * events:  -s-p-r-r-t-t--v-v-e|     start, pace, received, started, succeeded, end
 * state:   i-a-b-c-d-e-f--g-h-j|    i: the state before any event
 * ```
 *
 * @example
 * ```ts
 * import { Subject } from 'rxjs';
 * import { slowStart, slowStartState, type SlowStartEvent } from 'rxjs-slow-start';
 *
 * const events = new Subject<SlowStartEvent<Response>>();
 * events.pipe(slowStartState()).subscribe((state) => console.log(`${state.succeeded} done, ${state.inFlight} in flight`));
 * slowStart(uploads, { events }).subscribe();
 * ```
 *
 * @return An operator from a run's events to its states.
 */
export function slowStartState<T>(): OperatorFunction<SlowStartEvent<T>, SlowStartState> {
  return (events) =>
    defer(() => {
      let state = initialState();
      return events.pipe(
        map((event) => (state = nextState(state, event))),
        startWith(state),
      );
    });
}
