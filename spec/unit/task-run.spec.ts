// One task alone: what it reports to the runner, and how it is torn down.
import { ResultBook } from '../../src/result-book';
import { TaskRun } from '../../src/task-run';

function taskRun(onSettle: (run: TaskRun<number>, fulfilled: boolean, outcome: unknown) => void = () => undefined) {
  const group = new ResultBook<number>().join(true, 1);
  return new TaskRun<number>(group, 0, () => undefined, 1, 0, 1, 0, false, onSettle);
}

describe('TaskRun', () => {
  it('reports the last value it was given when it completes, and the reason when it errors', () => {
    const outcomes: unknown[] = [];
    const completing = taskRun((_run, fulfilled, outcome) => outcomes.push([fulfilled, outcome]));
    completing.next(1);
    completing.next(2);
    completing.complete();
    const failing = taskRun((_run, fulfilled, outcome) => outcomes.push([fulfilled, outcome]));
    failing.error('broke');
    expect(outcomes).toEqual([
      [true, 2],
      [false, 'broke'],
    ]);
  });

  it('closes its subscription and aborts its signal when torn down', () => {
    const run = taskRun();
    const { signal } = run.context;
    let closed = 0;
    run.subscription = { unsubscribe: () => closed++ };
    const reported: unknown[] = [];
    run.tearDown((error) => reported.push(error));
    expect([closed, signal.aborted, reported]).toEqual([1, true, []]);
  });

  // Found by mutation testing.
  it('is torn down before its subscription exists with nothing to report, and its signal is born aborted', () => {
    const run = taskRun();
    const reported: unknown[] = [];
    run.tearDown((error) => reported.push(error));
    expect(reported).toEqual([]);
    expect(run.context.signal.aborted).toBe(true);
  });

  it('reports what its teardown throws, and aborts its signal all the same', () => {
    const run = taskRun();
    const { signal } = run.context;
    const failure = new Error('teardown failed');
    run.subscription = {
      unsubscribe: () => {
        throw failure;
      },
    };
    const reported: unknown[] = [];
    run.tearDown((error) => reported.push(error));
    expect([reported, signal.aborted]).toEqual([[failure], true]);
  });
});
