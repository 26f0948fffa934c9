/**
 * The run's side of a feed (src/run/intake.ts), alone: the sink a feed delivers to, what it keeps, what
 * it asks the feed for, and what it tells the run.
 */
import type { FactoryFeed, FactorySink } from '../../src/host';
import { Intake, type Refusal } from '../../src/run/intake';

function setUp({ pushes, stopError, refusal }: { pushes?: true; stopError?: Error; refusal?: Refusal } = {}) {
  const told: string[] = [];
  const unhandled: unknown[] = [];
  const requests: number[] = [];
  let sink: FactorySink | undefined;
  const feed: FactoryFeed = {
    pushes,
    start: () => told.push('started'),
    request: (count) => requests.push(count),
    drain: (done) => done(['on its way']),
    stop: () => {
      told.push('stopped');
      if (stopError !== undefined) throw stopError;
    },
    unread: () => ['unread'],
  };
  const intake = new Intake(
    (given) => {
      sink = given;
      return feed;
    },
    refusal,
    { leavesOut: () => false },
    {
      arrived: () => told.push('arrived'),
      ended: () => told.push('ended'),
      leftOut: () => told.push('leftOut'),
      failed: () => told.push('failed'),
      reportUnhandled: (error) => unhandled.push(error),
    },
  );
  return { intake, sink: sink!, told, unhandled, requests };
}

describe('Intake', () => {
  it('is the sink its feed delivers to, and keeps what arrives in order until it is taken', () => {
    const { intake, sink, told } = setUp();
    expect(sink).toBe(intake);
    intake.start();
    sink.push('a');
    sink.push('b');
    expect([intake.length, told]).toEqual([2, ['started', 'arrived', 'arrived']]);
    expect([intake.take(), intake.take(), intake.take(), intake.length]).toEqual(['a', 'b', undefined, 0]);
  });

  it('asks a lazy feed for a new count only, and counts each delivery against what it asked for', () => {
    const { intake, sink, requests } = setUp();
    expect(intake.pulls).toBe(true);
    intake.request(2);
    intake.request(2);
    sink.push('a');
    // One is still on its way: asking for 1 again is what the feed was asked already.
    intake.request(1);
    sink.push('b');
    sink.push('more than asked');
    intake.request(0);
    intake.request(1);
    expect(requests).toEqual([2, 1]);
  });

  it('knows a feed that pushes', () => {
    expect(setUp({ pushes: true }).intake.pulls).toBe(false);
  });

  it("records the source's end, and its first error before the end, and tells the run of each", () => {
    const ended = setUp();
    ended.sink.end();
    ended.sink.fail('after the end');
    expect([ended.intake.done, ended.intake.error, ended.told]).toEqual([true, undefined, ['ended']]);

    const failed = setUp();
    failed.sink.fail(undefined);
    failed.sink.fail('a second error');
    expect([failed.intake.done, failed.intake.error, failed.told]).toEqual([true, { error: undefined }, ['failed']]);
  });

  it('once closed, forgets what waits, keeps nothing that arrives and counts no error, telling the run nothing', () => {
    const { intake, sink, told } = setUp();
    sink.push('a');
    intake.close();
    sink.push('late');
    sink.fail('late error');
    expect([intake.length, intake.take(), intake.error, intake.done, told]).toEqual([0, undefined, undefined, false, ['arrived']]);
  });

  it('hands over what waits when it drops it, and what the feed still had on its way when drained', () => {
    const { intake, sink } = setUp();
    sink.push('a');
    sink.push('b');
    expect(intake.dropAll()).toEqual(['a', 'b']);
    const drained: unknown[] = [];
    intake.drain((undelivered) => drained.push(...undelivered));
    expect([intake.length, drained]).toEqual([0, ['on its way']]);
  });

  it('refuses the factory at the index it is given: keeps none from it on, stops the feed, then fails as the source would', () => {
    const refused = new RangeError('task 2 clashes');
    const { intake, sink, told } = setUp({ refusal: { index: 2, reason: () => refused } });
    sink.push('a');
    sink.push('b');
    sink.push('c');
    sink.push('d');
    sink.fail('the source errs later');
    expect([intake.take(), intake.take(), intake.take()]).toEqual(['a', 'b', undefined]);
    expect([intake.done, intake.error, told]).toEqual([true, { error: refused }, ['arrived', 'arrived', 'stopped', 'failed']]);
    // What the feed held is not the run's: the source failed before it.
    const drained: unknown[] = [];
    intake.drain((undelivered) => drained.push(...undelivered));
    expect([intake.unread(), drained]).toEqual([[], []]);
  });

  it('before the refused index comes, hands over what the feed still holds, as without a refusal', () => {
    const { intake, sink } = setUp({ refusal: { index: 2, reason: () => 'never' } });
    sink.push('a');
    sink.push('b');
    const drained: unknown[] = [];
    intake.drain((undelivered) => drained.push(...undelivered));
    expect([intake.unread(), drained, intake.error]).toEqual([['unread'], ['on its way'], undefined]);
  });

  it('reports what the feed throws as it stops at a refusal as unhandled, and still fails', () => {
    const stopError = new Error('return() threw');
    const { intake, sink, unhandled } = setUp({ stopError, refusal: { index: 0, reason: () => 'refused' } });
    sink.push('a');
    expect([unhandled, intake.error, intake.length]).toEqual([[stopError], { error: 'refused' }, 0]);
  });

  it("reports what the feed's teardown throws, and what the feed reports, as unhandled", () => {
    const stopError = new Error('return() threw');
    const { intake, sink, unhandled } = setUp({ stopError });
    sink.reportUnhandled('from the feed');
    const reported: unknown[] = [];
    intake.release((error) => reported.push(error));
    expect([unhandled, reported]).toEqual([['from the feed'], [stopError]]);
  });
});
