// The tasks that wait out their own backoff (src/run/backoffs.ts), alone, on a fake clock whose timers are
// a list: one timer for the earliest, tasks due in the order of their times, and nothing after a stop.
import { Backoffs } from '../../src/run/backoffs';
import type { Retry, RetryQueue } from '../../src/run/retry-queue';

/** Backoffs on a clock the test moves, with the retry queue as a log of what joined it. */
function backoffsOnAClock() {
  const clock = { time: 0, timers: [] as { delay: number; action: () => void; cancelled: boolean }[] };
  const log: string[] = [];
  const retries = {
    push: (retry: Retry<string>) => log.push(`retry ${String(retry.factory)}`),
    abandon: () => log.push('abandon'),
  } as unknown as RetryQueue<string>;
  const backoffs = new Backoffs<string>(
    {
      now: () => clock.time,
      schedule: (action, delay) => {
        const timer = { delay, action, cancelled: false };
        clock.timers.push(timer);
        return { unsubscribe: () => (timer.cancelled = true) };
      },
    },
    retries,
    () => log.push(`wake at ${clock.time}`),
  );
  const task = (name: string): Retry<string> => ({ group: undefined as never, position: 0, factory: name, attempt: 1, reason: name });
  /** The timers not cancelled and not fired, as their delays. */
  const armed = () => clock.timers.filter((timer) => !timer.cancelled).map((timer) => timer.delay);
  /** Moves the clock to `time` and fires the one armed timer. */
  const fire = (time: number) => {
    const live = clock.timers.filter((timer) => !timer.cancelled);
    expect(live).toHaveLength(1);
    clock.time = time;
    live[0].cancelled = true;
    live[0].action();
  };
  return { backoffs, clock, log, task, armed, fire };
}

describe('Backoffs', () => {
  it('arms one timer for the earliest task, and lets the tasks due go in the order of their times', () => {
    const { backoffs, clock, log, task, armed, fire } = backoffsOnAClock();
    backoffs.push(task('c'), 300, 0);
    expect(armed()).toEqual([300]);
    backoffs.push(task('b'), 200, 0);
    // A task due sooner needs the timer sooner: the one for 300 is cancelled.
    expect(armed()).toEqual([200]);
    backoffs.push(task('d'), 400, 0);
    expect(armed()).toEqual([200]);
    // A task due later leaves the timer as it is: two were ever armed, for 300 and for 200.
    expect(clock.timers.map((timer) => timer.delay)).toEqual([300, 200]);
    expect(backoffs.length).toBe(3);
    fire(200);
    expect(log).toEqual(['retry b', 'wake at 200']);
    expect(armed()).toEqual([100]);
    expect(backoffs.length).toBe(2);
    fire(350);
    expect(log).toEqual(['retry b', 'wake at 200', 'retry c', 'wake at 350']);
    expect(armed()).toEqual([50]);
    fire(400);
    expect(log.slice(4)).toEqual(['retry d', 'wake at 400']);
    expect(armed()).toEqual([]);
    expect(backoffs.length).toBe(0);
  });

  it('keeps tasks due at the same time in the order they came, and lets every task due by now go at once', () => {
    const { backoffs, log, task, fire } = backoffsOnAClock();
    backoffs.push(task('a'), 100, 0);
    backoffs.push(task('b'), 100, 0);
    backoffs.push(task('c'), 50, 0);
    backoffs.push(task('d'), 100, 0);
    fire(100);
    expect(log).toEqual(['retry c', 'retry a', 'retry b', 'retry d', 'wake at 100']);
  });

  it('wakes nobody when the timer fires before any task is due, and arms again for what is left', () => {
    const { backoffs, log, task, armed, fire } = backoffsOnAClock();
    backoffs.push(task('a'), 100, 0);
    fire(60);
    expect(log).toEqual([]);
    expect(armed()).toEqual([40]);
    fire(99);
    expect(log).toEqual([]);
    expect(armed()).toEqual([1]);
    fire(100);
    expect(log).toEqual(['retry a', 'wake at 100']);
  });

  it('arms a timer of 0 ms for a task already due, and one from the time it is given', () => {
    const { backoffs, clock, task, armed } = backoffsOnAClock();
    clock.time = 500;
    backoffs.push(task('a'), 400, 500);
    expect(armed()).toEqual([0]);
    const other = backoffsOnAClock();
    other.backoffs.push(other.task('b'), 700, 500);
    expect(other.armed()).toEqual([200]);
  });

  it('arms nothing after a stop, and cancels the timer armed', () => {
    const { backoffs, task, armed } = backoffsOnAClock();
    backoffs.push(task('a'), 100, 0);
    backoffs.stop();
    expect(armed()).toEqual([]);
    backoffs.push(task('b'), 50, 0);
    expect(armed()).toEqual([]);
    expect(backoffs.length).toBe(2);
  });

  it('hands every waiting task to the retry queue, in order, before the queue abandons them', () => {
    const { backoffs, log, task } = backoffsOnAClock();
    backoffs.push(task('b'), 200, 0);
    backoffs.push(task('a'), 100, 0);
    backoffs.abandon();
    expect(log).toEqual(['retry a', 'retry b', 'abandon']);
    expect(backoffs.length).toBe(0);
  });
});
