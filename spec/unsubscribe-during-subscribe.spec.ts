import { Observable, Subject, type Subscription } from 'rxjs';
import { slowStartBatch, type TaskFactory } from '../src/index';

describe('a consumer that unsubscribes while a task is subscribing', () => {
  it('tears that task down: its subscription is closed and its signal aborts (§7)', () => {
    let consumer: Subscription | undefined;
    let tornDown = false;
    let signal: AbortSignal | undefined;
    const task = new Observable<number>(() => {
      consumer?.unsubscribe();
      return () => {
        tornDown = true;
      };
    });
    const source = new Subject<TaskFactory<number>>();
    consumer = source.pipe(slowStartBatch()).subscribe();
    source.next((context) => {
      signal = context.signal;
      return task;
    });
    expect(tornDown).toBe(true);
    expect(signal?.aborted).toBe(true);
  });
});
