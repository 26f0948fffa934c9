import { config, NEVER, Observable, Subject } from 'rxjs';
import { slowStartBatch, type TaskFactory } from '../../src/index';

describe('a consumer that unsubscribes while a task is subscribing', () => {
  it('tears that task down: its subscription is closed and its signal aborts (§7)', () => {
    let tornDown = false;
    let signal: AbortSignal | undefined;
    const task = new Observable<number>(() => {
      consumer.unsubscribe();
      return () => {
        tornDown = true;
      };
    });
    const source = new Subject<TaskFactory<number>>();
    const consumer = source.pipe(slowStartBatch()).subscribe();
    source.next((context) => {
      signal = context.signal;
      return task;
    });
    expect(tornDown).toBe(true);
    expect(signal?.aborted).toBe(true);
  });
});

describe('a consumer that unsubscribes while a factory runs', () => {
  afterEach(() => {
    config.onUnhandledError = null;
  });

  it('invokes nothing more and raises no error, not even an unhandled one', async () => {
    const unhandled: unknown[] = [];
    config.onUnhandledError = (error) => unhandled.push(error);
    const invoked: number[] = [];
    const errors: unknown[] = [];
    let subscribedTasks = 0;
    let signal: AbortSignal | undefined;
    const source = new Subject<TaskFactory<number>>();
    const consumer = source.pipe(slowStartBatch({ initialBatchSize: 2 })).subscribe({ error: (error: unknown) => errors.push(error) });
    source.next((context) => {
      invoked.push(0);
      signal = context.signal;
      consumer.unsubscribe();
      // What the factory returns after the unsubscription is never subscribed to.
      return new Observable<number>((subscriber) => {
        subscribedTasks++;
        subscriber.next(0);
        subscriber.complete();
      });
    });
    source.next(() => {
      invoked.push(1);
      return NEVER;
    });
    // RxJS reports an error thrown inside a subscriber from a timeout: wait for it.
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(invoked).toEqual([0]);
    expect(subscribedTasks).toBe(0);
    expect(signal?.aborted).toBe(true);
    expect(errors).toEqual([]);
    expect(unhandled).toEqual([]);
  });
});
