// The `events` option (§12): what a run reports, event by event, in virtual time. Each spec logs the
// events and the stream's own notifications in one list, one line each, so that their order reads
// as it happened: `time what`.
import { asyncScheduler, from, map, merge, NEVER, Observable, of, share, Subject, take, takeUntil, throwError, timer } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import {
  isSlowStartBatchError,
  slowStart,
  slowStartBatch,
  slowStartState,
  type SlowStartEvent,
  type SlowStartState,
  type TaskFactory,
} from '../../src/index.js';
import { after, failsAfter } from '../support/virtual-tasks.js';
import { errorsReportedLater } from '../support/helpers.js';

/** One line for an event. */
function line(e: SlowStartEvent): string {
  // A factory's arrival is not timed by the run: in virtual time, the scheduler's clock tells when it came.
  const at = `${'time' in e ? e.time : asyncScheduler.now()} `;
  switch (e.type) {
    case 'start':
      return `${at}start`;
    case 'pace':
      return `${at}pace ${e.limit}${e.threshold === undefined ? '' : ` from ${e.threshold}`}${e.dropped ? ' dropped' : ''}`;
    case 'received':
    case 'skipped':
      return `${at}${e.type} ${e.key}`;
    case 'started':
    case 'cancelled':
      return `${at}${e.type} ${e.key}#${e.attempt}`;
    case 'succeeded':
      return `${at}succeeded ${e.key}#${e.attempt} = ${String(e.value)} after ${e.duration}`;
    case 'failed':
      return `${at}failed${e.kind === 'item' ? ' item' : ''} ${e.key}#${e.attempt}: ${String(e.reason)} after ${e.duration}`;
    case 'throttled':
    case 'retrying':
      return `${at}${e.type} ${e.key}#${e.attempt}: ${String(e.reason)} after ${e.duration}, again at ${e.retryAt}`;
    case 'abandoned':
      return `${at}abandoned ${e.key}#${e.attempt}: ${String(e.reason)}`;
    case 'paused':
      return `${at}paused until ${e.until} (${e.cause})`;
    case 'rate':
      return `${at}rate ${e.perSecond.toFixed(0)}/s`;
    case 'result':
      return `${at}result ${e.result.batch} [${e.result.values.join(', ')}]`;
    case 'end': {
      const items = e.itemFailed > 0 ? `, ${e.itemFailed} items failed` : '';
      const counts = `${e.succeeded} succeeded, ${e.failed} failed${items}, ${e.abandoned} abandoned, ${e.cancelled} cancelled, ${e.skipped} skipped`;
      return `${at}end ${e.how}: ${counts}; unfinished [${e.unfinishedKeys.join(', ')}]`;
    }
  }
}

/** Runs `body` in virtual time with a log that the events and `watch`'s notifications both write to. */
function logged(body: (log: string[], helpers: { watch: (o: Observable<unknown>) => void; now: () => number }) => void): string[] {
  const log: string[] = [];
  const scheduler = new TestScheduler(() => {});
  scheduler.run(({ flush }) => {
    const now = () => scheduler.now();
    body(log, {
      now,
      watch: (output) =>
        output.subscribe({
          next: (result) => log.push(`${now()} next ${(result as { batch: number }).batch}`),
          error: (error: unknown) => log.push(`${now()} error ${isSlowStartBatchError(error) ? error.message : String(error)}`),
          complete: () => log.push(`${now()} complete`),
        }),
    });
    flush();
  });
  return log;
}

describe('events: a run that succeeds', () => {
  it('batch pacing: each task received, started and succeeded; each result reported just before it is emitted; the end before complete', () => {
    const log = logged((log, { watch }) => {
      const events = (e: SlowStartEvent) => log.push(line(e));
      watch(slowStart([after(3, 'a'), after(2, 'b'), after(4, 'c')], { events, keys: ['a', 'b', 'c'] }));
    });
    expect(log).toEqual([
      '0 start',
      '0 pace 1',
      '0 received a',
      '0 started a#1',
      '3 succeeded a#1 = a after 3',
      // The batch of 1 has succeeded: the next may hold 2.
      '3 pace 2',
      '3 result 0 [a]',
      '3 next 0',
      '3 received b',
      '3 received c',
      '3 started b#1',
      '3 started c#1',
      '5 succeeded b#1 = b after 2',
      '7 succeeded c#1 = c after 4',
      '7 pace 4',
      '7 result 1 [b, c]',
      '7 next 1',
      '7 end completed: 3 succeeded, 0 failed, 0 abandoned, 0 cancelled, 0 skipped; unfinished []',
      '7 complete',
    ]);
  });

  it('window pacing: a task starts as soon as the pace has room, without waiting for its batch', () => {
    const log = logged((log, { watch }) => {
      const events = (e: SlowStartEvent) => log.push(line(e));
      watch(slowStart([after(3, 'a'), after(2, 'b'), after(4, 'c'), after(1, 'd')], { pacing: 'window', events }));
    });
    expect(log).toEqual([
      '0 start',
      '0 pace 1',
      '0 received 0',
      '0 started 0#1',
      '3 succeeded 0#1 = a after 3',
      '3 pace 2',
      '3 result 0 [a]',
      '3 next 0',
      '3 received 1',
      '3 received 2',
      '3 started 1#1',
      '3 started 2#1',
      '5 succeeded 1#1 = b after 2',
      // Two in flight at most until 3 tasks have succeeded: task 3 starts in task 1's place.
      '5 received 3',
      '5 started 3#1',
      '6 succeeded 3#1 = d after 1',
      // Three successes: up to 4 in flight (there is no task left to start).
      '6 pace 4',
      '7 succeeded 2#1 = c after 4',
      '7 result 1 [b, c]',
      '7 next 1',
      '7 result 2 [d]',
      '7 next 2',
      '7 end completed: 4 succeeded, 0 failed, 0 abandoned, 0 cancelled, 0 skipped; unfinished []',
      '7 complete',
    ]);
  });

  it('delivers to a Subject, and one subscription drives one run: the events add nothing to start', () => {
    const events = new Subject<SlowStartEvent<number>>();
    let invoked = 0;
    const seen: string[] = [];
    events.subscribe((e) => seen.push(e.type));
    const results = from([0, 1, 2].map((i) => () => (invoked++, of(i)))).pipe(slowStartBatch({ events }), share());
    results.subscribe();
    expect(invoked).toBe(3);
    expect(seen.filter((type) => type === 'started')).toHaveLength(3);
    expect(seen.at(-1)).toBe('end');
  });
});

describe('events: a run that fails', () => {
  it('a task that fails for good: failed, its batch runs to its end, then the end with the error and what to run again', () => {
    const log = logged((log, { watch }) => {
      const events = (e: SlowStartEvent) => log.push(line(e));
      const tasks = [after(1, 'a'), failsAfter(2, 'quota'), after(3, 'c'), after(1, 'd')];
      watch(slowStart(tasks, { events, keys: ['a', 'b', 'c', 'd'] }));
    });
    expect(log).toEqual([
      '0 start',
      '0 pace 1',
      '0 received a',
      '0 started a#1',
      '1 succeeded a#1 = a after 1',
      '1 pace 2',
      '1 result 0 [a]',
      '1 next 0',
      '1 received b',
      '1 received c',
      '1 started b#1',
      '1 started c#1',
      '3 failed b#1: quota after 2',
      '4 succeeded c#1 = c after 3',
      // d was never pulled from the array: it is skipped, and listed to run again with b.
      '4 skipped d',
      '4 end failed: 2 succeeded, 1 failed, 0 abandoned, 0 cancelled, 1 skipped; unfinished [b, d]',
      '4 error slowStartBatch: 1 of 2 tasks failed in batch 1; 2 tasks succeeded in all; 1 task skipped',
    ]);
  });

  it("the source's error: what waited is skipped, and the end carries the source's error", () => {
    const log = logged((log, { watch }) => {
      const events = (e: SlowStartEvent) => log.push(line(e));
      const source = new Subject<TaskFactory<unknown>>();
      watch(source.pipe(slowStartBatch({ initialBatchSize: 2, events })));
      source.next(after(1, 'a'));
      source.error('gone');
    });
    expect(log).toEqual([
      '0 start',
      '0 pace 2',
      '0 received 0',
      '0 skipped 0',
      '0 end failed: 0 succeeded, 0 failed, 0 abandoned, 0 cancelled, 1 skipped; unfinished [0]',
      '0 error gone',
    ]);
  });
});

describe('events: throttles', () => {
  it('a throttle: when the next try may come, the pause, the drop of the pace, and the retry as attempt 2', () => {
    const log = logged((log, { watch }) => {
      const events = (e: SlowStartEvent) => log.push(line(e));
      let tries = 0;
      const throttledOnce: TaskFactory<unknown> = () => (++tries === 1 ? failsAfter(1, 429)({} as never) : after(1, 'b')({} as never));
      watch(
        slowStart([after(1, 'a'), throttledOnce, after(2, 'c')], { events, keys: ['a', 'b', 'c'], retry: { when: () => true, delay: 5 } }),
      );
    });
    expect(log).toEqual([
      '0 start',
      '0 pace 1',
      '0 received a',
      '0 started a#1',
      '1 succeeded a#1 = a after 1',
      '1 pace 2',
      '1 result 0 [a]',
      '1 next 0',
      '1 received b',
      '1 received c',
      '1 started b#1',
      '1 started c#1',
      '2 throttled b#1: 429 after 1, again at 7',
      '2 paused until 7 (throttle)',
      // Half of the 2 in flight, but no less than initialBatchSize.
      '2 pace 1 from 1 dropped',
      '3 succeeded c#1 = c after 2',
      '7 started b#2',
      '8 succeeded b#2 = b after 1',
      '8 pace 2 from 1',
      '8 result 1 [b, c]',
      '8 next 1',
      '8 end completed: 3 succeeded, 0 failed, 0 abandoned, 0 cancelled, 0 skipped; unfinished []',
      '8 complete',
    ]);
  });

  it('window pacing: a throttle drops the window to 1, the retry goes first, the window grows from its success; a cancel ends it', () => {
    const log = logged((log) => {
      const events = (e: SlowStartEvent) => log.push(line(e));
      let tries = 0;
      const throttledOnce: TaskFactory<unknown> = () => (++tries === 1 ? failsAfter(1, 429)({} as never) : after(1, 'b')({} as never));
      const tasks = [after(1, 'a'), throttledOnce, after(2, 'c'), after(5, 'd')];
      const subscription = slowStart(tasks, {
        pacing: 'window',
        events,
        keys: ['a', 'b', 'c', 'd'],
        retry: { when: () => true, delay: 5 },
      }).subscribe();
      asyncScheduler.schedule(() => subscription.unsubscribe(), 9);
    });
    expect(log).toEqual([
      '0 start',
      '0 pace 1',
      '0 received a',
      '0 started a#1',
      '1 succeeded a#1 = a after 1',
      '1 pace 2',
      '1 result 0 [a]',
      '1 received b',
      '1 received c',
      '1 started b#1',
      '1 started c#1',
      '2 throttled b#1: 429 after 1, again at 7',
      '2 paused until 7 (throttle)',
      '2 pace 1 from 1 dropped',
      // c started before the drop: its success does not grow the new pace.
      '3 succeeded c#1 = c after 2',
      '7 started b#2',
      '8 succeeded b#2 = b after 1',
      '8 pace 2 from 1',
      '8 result 1 [b, c]',
      '8 received d',
      '8 started d#1',
      '9 cancelled d#1',
      '9 end cancelled: 3 succeeded, 0 failed, 0 abandoned, 1 cancelled, 0 skipped; unfinished [d]',
    ]);
  });

  it.each(['batch', 'window'] as const)(
    '%s pacing: a retry waiting when the run stops is abandoned, not failed: in the events, in `results` and in the message',
    (pacing) => {
      let error: unknown;
      const log = logged((log) => {
        const events = (e: SlowStartEvent) => log.push(line(e));
        const when = (reason: unknown) => reason === 429;
        slowStart([failsAfter(1, 429), failsAfter(2, 'fatal')], {
          pacing,
          initialBatchSize: 2,
          events,
          retry: { when, delay: 10 },
        }).subscribe({
          error: (e: unknown) => (error = e),
        });
      });
      expect(log).toEqual([
        '0 start',
        '0 pace 2',
        '0 received 0',
        '0 received 1',
        '0 started 0#1',
        '0 started 1#1',
        '1 throttled 0#1: 429 after 1, again at 11',
        '1 paused until 11 (throttle)',
        '1 pace 2 from 2 dropped',
        '2 failed 1#1: fatal after 2',
        '2 abandoned 0#1: 429',
        '2 end failed: 0 succeeded, 1 failed, 1 abandoned, 0 cancelled, 0 skipped; unfinished [0, 1]',
      ]);
      expect(isSlowStartBatchError(error) && error.results).toEqual([
        { index: 0, status: 'abandoned', reason: 429 },
        { index: 1, status: 'rejected', reason: 'fatal' },
      ]);
      expect(isSlowStartBatchError(error) && error.message).toBe(
        'slowStartBatch: 1 of 2 tasks failed and 1 abandoned in batch 0; 0 tasks succeeded in all; 0 tasks skipped',
      );
    },
  );

  it('retry.learnRate: the rate learned as the pause after a drop ends, and the pauses that space the starts after it', () => {
    // No jitter: the throttle's pause is what it asked for.
    jest.spyOn(Math, 'random').mockReturnValue(0);
    const log = logged((log) => {
      const events = (e: SlowStartEvent) => {
        if (e.type === 'rate' || e.type === 'paused') log.push(line(e));
      };
      let calls = 0;
      // Batches of 4 tasks of 10 ms; the sixth call, in the second batch, is throttled once.
      const tasks = Array.from(
        { length: 12 },
        (_, i) => () => (++calls === 6 ? failsAfter(10, 429)({} as never) : after(10, i)({} as never)),
      );
      slowStart(tasks, {
        initialBatchSize: 4,
        growthFactor: 1,
        events,
        retry: { when: () => true, delay: 100, learnRate: true },
      }).subscribe();
    });
    // By the end of the pause at 120, seven successes since the first start at 0, the two in flight at
    // the throttle included: 90 % of them, 6.3 starts per 100 ms pause, is 63 a second, reported as the
    // pause ends; the 6 whole starts are spread over the first tenth of it, 10 / 6 ms apart.
    expect(log.slice(0, 3)).toEqual(['20 paused until 120 (throttle)', '120 rate 63/s', `120 paused until ${120 + 10 / 6} (learned rate)`]);
    jest.restoreAllMocks();
  });

  it('a pause is reported only when it moves: a throttle inside the running pause adds none, a longer one does', () => {
    const log = logged((log) => {
      const events = (e: SlowStartEvent) => {
        if (e.type === 'throttled' || e.type === 'paused') log.push(line(e));
      };
      const throttledOnce = (at: number, wait: number): TaskFactory<unknown> => {
        let tries = 0;
        return () => (++tries === 1 ? failsAfter(at, { status: 429, wait }) : after(1, at))({} as never);
      };
      // In one batch of three: at 1 a pause to 11; at 2 one to 7, inside it; at 3 one to 13, past it.
      const tasks = [throttledOnce(1, 10), throttledOnce(2, 5), throttledOnce(3, 10)];
      const retry = { delay: (_attempt: number, error: unknown) => (error as { wait: number }).wait };
      slowStart(tasks, { initialBatchSize: 3, events, retry }).subscribe();
    });
    expect(log).toEqual([
      '1 throttled 0#1: [object Object] after 1, again at 11',
      '1 paused until 11 (throttle)',
      '2 throttled 1#1: [object Object] after 2, again at 11',
      '3 throttled 2#1: [object Object] after 3, again at 13',
      '3 paused until 13 (throttle)',
    ]);
  });

  it('a throttle with no wait (`retry.delay` 0) reports no pause: the retry may start at once', () => {
    const log = logged((log) => {
      const events = (e: SlowStartEvent) => {
        if (e.type === 'throttled' || e.type === 'paused' || e.type === 'started') log.push(line(e));
      };
      let tries = 0;
      const throttledOnce: TaskFactory<unknown> = () => (++tries === 1 ? failsAfter(1, 429)({} as never) : after(1, 'a')({} as never));
      slowStart([throttledOnce], { events, retry: { when: () => true, delay: 0 } }).subscribe();
    });
    expect(log).toEqual(['0 started 0#1', '1 throttled 0#1: 429 after 1, again at 1', '1 started 0#2']);
  });
});

describe('events: cancel and resume', () => {
  it('cancel: in flight cancelled, what waited or was never pulled skipped, and the end lists it all to run again', () => {
    const log = logged((log, { watch }) => {
      const events = (e: SlowStartEvent) => log.push(line(e));
      const tasks = [after(1, 'a'), after(5, 'b'), after(5, 'c'), after(1, 'd')];
      const subscription = slowStart(tasks, { events, keys: ['a', 'b', 'c', 'd'] }).subscribe();
      timer(3).subscribe(() => subscription.unsubscribe());
      watch(of());
    });
    expect(log.slice(-6)).toEqual([
      '1 started b#1',
      '1 started c#1',
      '3 cancelled b#1',
      '3 cancelled c#1',
      '3 skipped d',
      '3 end cancelled: 1 succeeded, 0 failed, 0 abandoned, 2 cancelled, 1 skipped; unfinished [b, c, d]',
    ]);
  });

  it("a resumed run given the end's `unfinished` and `unfinishedKeys` reports the same keys; one state counts on across both runs", () => {
    const states: SlowStartState[] = [];
    const events = new Subject<SlowStartEvent<string>>();
    events.pipe(slowStartState()).subscribe((state) => states.push(state));
    let end: Extract<SlowStartEvent<string>, { type: 'end' }> | undefined;
    events.subscribe((e) => {
      if (e.type === 'end') end = e;
    });
    const log = logged((log) => {
      events.subscribe((e) => log.push(line(e)));
      const tasks = ['a', 'b', 'c', 'd'].map((key) => after(2, key)) as TaskFactory<string>[];
      const first = slowStart(tasks, { events, keys: ['a', 'b', 'c', 'd'] }).subscribe();
      asyncScheduler.schedule(() => {
        first.unsubscribe();
        const { unfinished, unfinishedKeys } = end!;
        slowStart(unfinished, { events, keys: unfinishedKeys }).subscribe();
      }, 3);
    });
    expect(log.filter((entry) => / (started|succeeded|cancelled|skipped|end) /.test(entry))).toEqual([
      '0 started a#1',
      '2 succeeded a#1 = a after 2',
      '2 started b#1',
      '2 started c#1',
      '3 cancelled b#1',
      '3 cancelled c#1',
      '3 skipped d',
      '3 end cancelled: 1 succeeded, 0 failed, 0 abandoned, 2 cancelled, 1 skipped; unfinished [b, c, d]',
      // The resumed run: index 0 is b, and says so.
      '3 started b#1',
      '5 succeeded b#1 = b after 2',
      '5 started c#1',
      '5 started d#1',
      '7 succeeded c#1 = c after 2',
      '7 succeeded d#1 = d after 2',
      '7 end completed: 3 succeeded, 0 failed, 0 abandoned, 0 cancelled, 0 skipped; unfinished []',
    ]);
    const last = states.at(-1)!;
    expect({ succeeded: last.succeeded, cancelled: last.cancelled, skipped: last.skipped, ended: last.ended }).toEqual({
      succeeded: 4,
      cancelled: 0,
      skipped: 0,
      ended: 'completed',
    });
    expect([...last.tasks]).toEqual([
      ['a', 'succeeded'],
      ['b', 'succeeded'],
      ['c', 'succeeded'],
      ['d', 'succeeded'],
    ]);
    // Just after the cancel, before the resumed run began.
    const atCancel = states.find((state) => state.ended === 'cancelled')!;
    expect([atCancel.succeeded, atCancel.cancelled, atCancel.skipped, atCancel.inFlight]).toEqual([1, 2, 1, 0]);
  });
});

describe('events: keys are unique within a run', () => {
  /** What `body` throws, to check its class and its message both. */
  function thrown(body: () => unknown): unknown {
    try {
      body();
    } catch (error) {
      return error;
    }
    return undefined;
  }
  const refusal = (error: unknown) => [(error as Error).constructor, (error as Error).message];

  /** The last state of `events`' run, and its end. */
  function followed<T>() {
    const events = new Subject<SlowStartEvent<T>>();
    const states: SlowStartState[] = [];
    const ends: Extract<SlowStartEvent<T>, { type: 'end' }>[] = [];
    events.pipe(slowStartState()).subscribe((state) => states.push(state));
    events.subscribe((e) => e.type === 'end' && ends.push(e));
    return { events, last: () => states.at(-1)!, end: () => ends.at(-1)! };
  }

  it('refuses a string key given twice when called, naming the key and both positions', () => {
    const message = 'Expected `keys[2]` to be a key of its own (`keys[0]` is the same key), got "a" (string)';
    expect(refusal(thrown(() => slowStart([], { keys: ['a', 'b', 'a'] })))).toEqual([RangeError, message]);
    expect(refusal(thrown(() => slowStartBatch({ keys: ['a', 'b', 'a'] })))).toEqual([RangeError, message]);
  });

  it('refuses a number given twice, 0 and -0 as one key, as a Map holds them', () => {
    expect(refusal(thrown(() => slowStart([], { keys: [7, 1, 2, 1] })))).toEqual([
      RangeError,
      'Expected `keys[3]` to be a key of its own (`keys[1]` is the same key), got 1 (number)',
    ]);
    expect(refusal(thrown(() => slowStart([], { keys: [0, -0] })))).toEqual([
      RangeError,
      'Expected `keys[1]` to be a key of its own (`keys[0]` is the same key), got 0 (number)',
    ]);
  });

  it('takes 1 and "1" as two keys, as a Map does: the state counts each task, as the end does', () => {
    const { events, last, end } = followed<number>();
    slowStart([() => of(1), () => of(2), () => of(3)], { keys: [1, '1', 'one'], events }).subscribe();
    expect([last().succeeded, end().succeeded]).toEqual([3, 3]);
    expect([...last().tasks]).toEqual([
      [1, 'succeeded'],
      ['1', 'succeeded'],
      ['one', 'succeeded'],
    ]);
  });

  it.each([NaN, Infinity, -Infinity])('refuses %p as a key: a number must be finite to be a key of its own, in JSON too', (key) => {
    expect(refusal(thrown(() => slowStart([], { keys: ['a', key] })))).toEqual([
      RangeError,
      `Expected \`keys[1]\` to be a string or a finite number, got ${key} (number)`,
    ]);
  });

  const clash =
    'Expected `keys[1]` to be a key of its own (task 2 is past the end of `keys`, so its key is its index, the same key), got 2 (number)';

  it('a task past the end of `keys` whose index is a key of `keys`: the run ends as if the source had failed there', () => {
    const { events, last, end } = followed<unknown>();
    const log = logged((log, { watch }) => {
      events.subscribe((e) => log.push(line(e)));
      watch(slowStart([after(1, 'a'), after(1, 'b'), after(1, 'c')], { events, keys: ['a', 2] }));
    });
    expect(log).toEqual([
      '0 start',
      '0 pace 1',
      '0 received a',
      '0 started a#1',
      '1 succeeded a#1 = a after 1',
      '1 pace 2',
      '1 result 0 [a]',
      '1 next 0',
      // Task 1 has the key 2; task 2, past the end of `keys`, would have it too, and is refused.
      '1 received 2',
      '1 skipped 2',
      '1 end failed: 1 succeeded, 0 failed, 0 abandoned, 0 cancelled, 1 skipped; unfinished [2]',
      `1 error RangeError: ${clash}`,
    ]);
    expect(refusal(end().error)).toEqual([RangeError, clash]);
    expect([last().succeeded, last().skipped, [...last().tasks]]).toEqual([
      1,
      1,
      [
        ['a', 'succeeded'],
        [2, 'skipped'],
      ],
    ]);
  });

  it("a clash from a pushing source: the source's next does not throw, what runs finishes, nothing more is taken from it", () => {
    const { events, last, end } = followed<unknown>();
    const source = new Subject<TaskFactory<unknown>>();
    let invoked = 0;
    const counted =
      (factory: TaskFactory<unknown>): TaskFactory<unknown> =>
      (context) => (invoked++, factory(context));
    const log = logged((log, { watch }) => {
      events.subscribe((e) => log.push(line(e)));
      watch(source.pipe(slowStartBatch({ initialBatchSize: 2, events, keys: ['a', 2] })));
      source.next(counted(after(2, 'a')));
      source.next(counted(after(1, 'b')));
      expect(() => source.next(counted(after(1, 'c')))).not.toThrow();
      expect(source.observed).toBe(false);
      source.next(counted(after(1, 'd')));
    });
    expect(log).toEqual([
      '0 start',
      '0 pace 2',
      '0 received a',
      '0 received 2',
      '0 started a#1',
      '0 started 2#1',
      '1 succeeded 2#1 = b after 1',
      '2 succeeded a#1 = a after 2',
      '2 pace 4',
      '2 result 0 [a, b]',
      '2 next 0',
      '2 end failed: 2 succeeded, 0 failed, 0 abandoned, 0 cancelled, 0 skipped; unfinished []',
      `2 error RangeError: ${clash}`,
    ]);
    expect(invoked).toBe(2);
    expect([last().succeeded, end().succeeded, last().tasks.size]).toEqual([2, 2, 2]);
  });

  it("a clash while a task fails: the SlowStartBatchError carries the clash as the source's error", () => {
    let error: unknown;
    const source = new Subject<TaskFactory<unknown>>();
    source.pipe(slowStartBatch({ initialBatchSize: 2, keys: ['a', 2] })).subscribe({ error: (reason: unknown) => (error = reason) });
    const failing = new Subject<never>();
    source.next(() => of('a'));
    source.next(() => failing);
    source.next(() => of('c'));
    failing.error('quota');
    expect(isSlowStartBatchError(error) && [error.cause, refusal(error.sourceError), error.remaining]).toEqual([
      'quota',
      [RangeError, clash],
      [],
    ]);
  });

  it('a clash from an iterable of 6: nothing more is pulled, and the iterator is closed', () => {
    const pulled: number[] = [];
    let closed = 0;
    const tasks: Iterable<TaskFactory<number>> = {
      [Symbol.iterator]: () => {
        let next = 0;
        return {
          next: () => {
            if (next === 6) return { value: undefined, done: true };
            const index = next++;
            pulled.push(index);
            return { value: () => of(index), done: false };
          },
          return: () => (closed++, { value: undefined, done: true }),
        };
      },
    };
    const results: unknown[] = [];
    let error: unknown;
    // Task 3's key is keys[3], 4; task 4 has none in `keys`, and its index is 4.
    slowStart(tasks, { keys: ['a', 'b', 'c', 4] }).subscribe({
      next: (result) => results.push(result.values),
      error: (reason: unknown) => (error = reason),
    });
    expect(refusal(error)).toEqual([
      RangeError,
      'Expected `keys[3]` to be a key of its own (task 4 is past the end of `keys`, so its key is its index, the same key), got 4 (number)',
    ]);
    expect([results, pulled, closed]).toEqual([[[0], [1, 2]], [0, 1, 2, 3, 4], 1]);
  });

  it('no task clashes when the run has fewer tasks than the number in `keys`: a resumed run keeps its numeric keys', () => {
    const { events, last, end } = followed<string>();
    let refusedOnce = false;
    const flaky: TaskFactory<string> = () => (refusedOnce ? of('b') : ((refusedOnce = true), throwError(() => 'quota')));
    const tasks: TaskFactory<string>[] = [() => of('a'), flaky, () => of('c'), () => of('d')];
    // Keys for the first task only: the others have their index as their key, and the end lists 1 and 3 to run again.
    slowStart(tasks, { keys: ['a'], events }).subscribe({ error: () => {} });
    const { unfinished, unfinishedKeys } = end();
    expect(unfinishedKeys).toEqual([1, 3]);
    const values: unknown[] = [];
    slowStart(unfinished, { keys: unfinishedKeys, events }).subscribe((result) => values.push(...result.values));
    expect([values, end().how]).toEqual([['b', 'd'], 'completed']);
    expect([last().succeeded, last().failed, last().skipped, [...last().tasks.keys()]]).toEqual([4, 0, 0, ['a', 1, 2, 3]]);
  });
});

describe('events: time', () => {
  /** A clock that moves by 1 on every read, and by more when `pass` says time passes: it shows which events share a reading. */
  function tickingClock() {
    let time = 0;
    return {
      scheduler: { now: () => ++time, schedule: asyncScheduler.schedule.bind(asyncScheduler) },
      pass: (ms: number) => (time += ms),
    };
  }

  it("reads the scheduler's clock for what the run does: not for a factory's arrival, which is the source's doing", () => {
    const { scheduler } = tickingClock();
    const log: string[] = [];
    const source = new Subject<TaskFactory<number>>();
    const gate = new Subject<number>();
    source.pipe(slowStartBatch({ events: (e) => log.push('time' in e ? line(e) : `${e.type} ${e.key}`), scheduler })).subscribe();
    source.next(() => gate.pipe(take(1)));
    // The batch of 1 is full: this one waits, and the batch of 2 after it waits for the source's end.
    source.next(() => of(1));
    gate.next(0);
    source.complete();
    expect(log).toEqual([
      '1 start',
      '2 pace 1',
      'received 0',
      '3 started 0#1',
      'received 1',
      '4 succeeded 0#1 = 0 after 1',
      '5 pace 2',
      '6 result 0 [0]',
      '7 started 1#1',
      '8 succeeded 1#1 = 1 after 1',
      '9 result 1 [1]',
      '10 end completed: 2 succeeded, 0 failed, 0 abandoned, 0 cancelled, 0 skipped; unfinished []',
    ]);
  });

  it("starts a synchronous task's successor on the reading of its success; a factory's own time is not shared", () => {
    const { scheduler, pass } = tickingClock();
    const log: string[] = [];
    const gate = new Subject<number>();
    const slowFactory = () => {
      pass(100);
      return gate.pipe(take(1));
    };
    // One batch of three: the first task is synchronous, the second's factory takes 100 ms to return.
    from([() => of(0), slowFactory, () => of(2)])
      .pipe(slowStartBatch({ initialBatchSize: 3, events: (e) => log.push(line(e)), scheduler }))
      .subscribe();
    gate.next(1);
    expect(log.filter((entry) => /^\d+ (started|succeeded)/.test(entry))).toEqual([
      '2 started 0#1',
      '3 succeeded 0#1 = 0 after 1',
      '3 started 1#1',
      // Its factory ran: the next start reads the clock again.
      '104 started 2#1',
      '105 succeeded 2#1 = 2 after 1',
      '106 succeeded 1#1 = 1 after 103',
    ]);
  });

  it('reads the clock again for a start after a result: the subscriber ran in between', () => {
    const { scheduler, pass } = tickingClock();
    const log: string[] = [];
    const gate = new Subject<number>();
    // Window pacing emits each task's result as it succeeds; the subscriber takes 100 ms over the first.
    from([() => gate.pipe(take(1)), () => of(1)])
      .pipe(slowStartBatch({ pacing: 'window', events: (e) => log.push(line(e)), scheduler }))
      .subscribe(() => pass(100));
    gate.next(0);
    expect(log.filter((entry) => /started|result/.test(entry))).toEqual([
      '2 started 0#1',
      '5 result 0 [0]',
      '106 started 1#1',
      '108 result 1 [1]',
    ]);
  });

  it("reads the clock again for a start after the source was asked: the source's own code ran in between", () => {
    const { scheduler, pass } = tickingClock();
    const log: string[] = [];
    const gate = new Subject<number>();
    let tries = 0;
    function* source() {
      yield () => (++tries === 1 ? gate.pipe(take(1)) : of(0));
      yield () => of(1);
      // Asked to fill the retry's batch: its code takes 100 ms, and it has no more.
      pass(100);
    }
    slowStart(source(), {
      initialBatchSize: 2,
      retry: { when: () => true, delay: 0 },
      events: (e) => log.push(line(e)),
      scheduler,
    }).subscribe();
    gate.error(429);
    expect(log.filter((entry) => /^\d+ (started|throttled|pace)/.test(entry))).toEqual([
      '2 pace 2',
      '3 started 0#1',
      '4 started 1#1',
      '7 throttled 0#1: 429 after 4, again at 6',
      '8 pace 2 from 2 dropped',
      '110 started 0#2',
    ]);
  });

  it('a factory that arrives during a pause is started at the end of the pause, on a clock read then', () => {
    const log = logged((log) => {
      const events = (e: SlowStartEvent) => {
        if (e.type === 'received' || e.type === 'started' || e.type === 'paused') log.push(line(e));
      };
      let tries = 0;
      const throttledOnce: TaskFactory<unknown> = () => (++tries === 1 ? failsAfter(1, 429)({} as never) : after(1, 'a')({} as never));
      const source = merge(of(throttledOnce), timer(3).pipe(map(() => after(1, 'b'))));
      source.pipe(slowStartBatch({ pacing: 'window', events, retry: { when: () => true, delay: 5 } })).subscribe();
    });
    expect(log).toEqual(['0 received 0', '0 started 0#1', '1 paused until 6 (throttle)', '3 received 1', '6 started 0#2', '7 started 1#1']);
  });
});

describe('events: the listener', () => {
  it('an error thrown by the listener goes to config.onUnhandledError, and the run goes on', async () => {
    let completed = false;
    const reported = await errorsReportedLater(async () => {
      const thrown = new Error('listener');
      slowStart([() => of(1), () => of(2)], {
        events: (e) => {
          if (e.type === 'succeeded') throw thrown;
        },
      }).subscribe({ complete: () => (completed = true) });
      await Promise.resolve();
    });
    expect(completed).toBe(true);
    expect(reported.map((error) => (error as Error).message)).toEqual(['listener', 'listener']);
  });

  it('a listener that unsubscribes as a task starts: the task is not invoked, and is accounted cancelled', () => {
    const seen: SlowStartEvent[] = [];
    let invoked = 0;
    const leave = new Subject<void>();
    slowStart([() => (invoked++, of(1))], {
      events: (e) => {
        seen.push(e);
        if (e.type === 'started') leave.next();
      },
    })
      .pipe(takeUntil(leave))
      .subscribe();
    expect(invoked).toBe(0);
    expect(seen.map((e) => e.type)).toEqual(['start', 'pace', 'received', 'started', 'cancelled', 'end']);
  });

  it('a listener that unsubscribes on the end: one end, and the stream completes no more', () => {
    for (const fails of [false, true]) {
      const seen: string[] = [];
      const leave = new Subject<void>();
      slowStart([() => of(1), () => (fails ? throwError(() => new Error('no')) : of(2))], {
        events: (e) => {
          seen.push(e.type === 'end' ? `end ${e.how}` : e.type);
          if (e.type === 'end') leave.next();
        },
      })
        .pipe(takeUntil(leave))
        .subscribe({ error: () => seen.push('error'), complete: () => seen.push('complete') });
      expect(seen.filter((type) => type.startsWith('end'))).toEqual([fails ? 'end failed' : 'end completed']);
      expect(seen.at(-1)).toBe('complete');
      expect(seen).not.toContain('cancelled');
    }
  });

  it('is validated when the operator is made, as every option is', () => {
    expect(() => slowStartBatch({ events: 'log' as never })).toThrow(
      new TypeError('Expected `events` to be a function, or an observer with a `next` method (a Subject), got "log" (string)'),
    );
    expect(() => slowStartBatch({ events: {} as never })).toThrow(TypeError);
    expect(() => slowStartBatch({ events: null as never })).toThrow(
      new TypeError('Expected `events` to be a function, or an observer with a `next` method (a Subject), got null (null)'),
    );
    expect(() => slowStart([], { keys: 'ab' as never })).toThrow(
      new TypeError(
        'Expected `keys` to be an array of strings and finite numbers, none twice, or a function from an index to one, got "ab" (string)',
      ),
    );
    expect(() => slowStart([], { keys: [1, {}] as never })).toThrow(
      new TypeError('Expected `keys[1]` to be a string or a finite number, got an object (object)'),
    );
    expect(() => slowStart([], { keys: [], events: { next() {} } })).not.toThrow();
  });

  it('types the events by the tasks: a value is what the task gives', () => {
    const values: number[] = [];
    slowStart([() => of(1), () => of(2)], {
      events: (e) => {
        if (e.type === 'succeeded' && e.value !== undefined) values.push(e.value satisfies number);
      },
    }).subscribe();
    expect(values).toEqual([1, 2]);
  });

  it('an error from a task that throws at once is still after its start', () => {
    const seen: string[] = [];
    slowStart([() => throwError(() => 'now')], { events: (e) => seen.push(e.type) }).subscribe({ error: () => {} });
    expect(seen).toEqual(['start', 'pace', 'received', 'started', 'failed', 'end']);
  });

  it('an end has an `error` only when the run failed', () => {
    const ends: SlowStartEvent[] = [];
    const events = (e: SlowStartEvent) => e.type === 'end' && ends.push(e);
    slowStart([() => of(1)], { events }).subscribe();
    slowStart([() => throwError(() => 'no')], { events }).subscribe({ error: () => {} });
    slowStart([() => NEVER], { events })
      .subscribe()
      .unsubscribe();
    expect(ends.map((e) => [e.type === 'end' && e.how, 'error' in e])).toEqual([
      ['completed', false],
      ['failed', true],
      ['cancelled', false],
    ]);
  });

  it('a run whose subscriber is closed before it starts reports nothing: it never began', () => {
    const seen: string[] = [];
    // A subscriber closed already, handed on as it is: the run's teardown runs before its start.
    new Observable((closed) => {
      closed.unsubscribe();
      return slowStart([() => of(1)], { events: (e) => seen.push(e.type) }).subscribe(closed);
    }).subscribe();
    expect(seen).toEqual([]);
  });

  it('a task beyond `keys` has its index as its key', () => {
    const seen: unknown[] = [];
    slowStart([() => of(1), () => of(2), () => of(3)], {
      keys: ['a'],
      events: (e) => e.type === 'started' && seen.push(e.key),
    }).subscribe();
    expect(seen).toEqual(['a', 1, 2]);
  });

  it('keeps its own copy of `keys`: a change to the array after the call reaches no run', () => {
    const keys = ['a'];
    const seen: unknown[] = [];
    const run = slowStart([() => of(1)], { keys, events: (e) => e.type === 'started' && seen.push(e.key) });
    keys[0] = 'changed';
    run.subscribe();
    expect(seen).toEqual(['a']);
  });
});

describe('events: an end that waits for a pull', () => {
  it('a failed run waiting for a pull under way when the subscriber leaves is reported cancelled, with its failure', async () => {
    const seen: SlowStartEvent[] = [];
    let pulls = 0;
    const failsSoon = () => new Promise((_, reject) => setTimeout(() => reject(new Error('quota')), 5));
    const tasks: AsyncIterable<TaskFactory<unknown>> = {
      [Symbol.asyncIterator]: () => ({
        // The first pull gives a task that fails a little later; the second, under way by then, never answers.
        next: () => (++pulls === 1 ? Promise.resolve({ value: failsSoon, done: false }) : new Promise(() => {})),
      }),
    };
    const subscription = slowStart(tasks, { pacing: 'window', initialBatchSize: 2, events: (e) => seen.push(e) }).subscribe({
      error: () => {},
    });
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(pulls).toBe(2);
    expect(seen.map((e) => e.type)).toEqual(['start', 'pace', 'received', 'started', 'failed']);
    subscription.unsubscribe();
    const end = seen.at(-1);
    expect(end?.type === 'end' && [end.how, end.failed, end.unfinished.length]).toEqual(['cancelled', 1, 1]);
    expect(seen.filter((e) => e.type === 'end')).toHaveLength(1);
  });
});
