// The queue of tries waiting for the `limiter` option's bucket, alone: a limiter whose answers the test
// settles by hand, and a host whose timers are a list. One question at a time, and an answer to a
// question no longer asked is not used, whoever left, whenever it comes.
import { LimiterQueue } from '../../src/run/limiter-wait';
import type { StartLimiter } from '../../src/start-limiter';

/** An answer the test settles when it likes. */
interface Pending {
  resolve(wait: number): void;
  reject(reason: unknown): void;
}

/** A limiter that answers each `take()` with a promise the test settles, and a host that lists its timers. */
function queueOnHand() {
  const asked: Pending[] = [];
  const timers: { delay: number; action: () => void; cancelled: boolean }[] = [];
  const limiter: StartLimiter = {
    take: () =>
      new Promise<number>((resolve, reject) => {
        asked.push({ resolve, reject });
      }),
  };
  const queue = new LimiterQueue(limiter, {
    schedule: (action, delay) => {
      const timer = { delay, action, cancelled: false };
      timers.push(timer);
      return { unsubscribe: () => (timer.cancelled = true) };
    },
  });
  const log: string[] = [];
  const enqueue = (name: string) =>
    queue.wait(
      () => log.push(`${name} goes`),
      (reason) => log.push(`${name} fails: ${String(reason)}`),
    );
  return { queue, asked, timers, log, enqueue };
}

/** Lets the promises settled so far call back. */
const settle = () => new Promise((resolve) => setTimeout(resolve, 0));

describe('LimiterQueue', () => {
  it('lets the first go on 0, waits what it is told on more, and asks again after the wait', async () => {
    const { asked, timers, log, enqueue } = queueOnHand();
    enqueue('a');
    enqueue('b');
    expect(asked).toHaveLength(1);
    asked[0].resolve(250);
    await settle();
    expect(timers.map((timer) => timer.delay)).toEqual([250]);
    timers[0].action();
    asked[1].resolve(0);
    await settle();
    asked[2].resolve(0);
    await settle();
    expect(log).toEqual(['a goes', 'b goes']);
    expect(asked).toHaveLength(3);
  });

  it('asks for the next at once when the first leaves while it asks, and never uses the answer the first was to have', async () => {
    const { asked, log, enqueue } = queueOnHand();
    const first = enqueue('a');
    enqueue('b');
    first.unsubscribe();
    expect(asked).toHaveLength(2);
    // The answer to the question asked for `a`, late: not `b`'s.
    asked[0].resolve(0);
    await settle();
    expect(log).toEqual([]);
    asked[1].resolve(0);
    await settle();
    expect(log).toEqual(['b goes']);
  });

  it('ignores a late wait and a late refusal meant for a try that left: no timer, no failure', async () => {
    const late = queueOnHand();
    late.enqueue('a').unsubscribe();
    late.enqueue('b');
    late.asked[0].resolve(100);
    await settle();
    expect([late.timers, late.asked.length, late.log]).toEqual([[], 2, []]);

    const refused = queueOnHand();
    refused.enqueue('a').unsubscribe();
    refused.enqueue('b');
    refused.asked[0].reject(new Error('store down'));
    await settle();
    expect(refused.log).toEqual([]);
    refused.asked[1].resolve(0);
    await settle();
    expect(refused.log).toEqual(['b goes']);
  });

  it('does nothing when a try that left leaves again, or one that went leaves', async () => {
    const { asked, log, enqueue } = queueOnHand();
    const a = enqueue('a');
    const b = enqueue('b');
    b.unsubscribe();
    b.unsubscribe();
    asked[0].resolve(0);
    await settle();
    a.unsubscribe();
    expect(log).toEqual(['a goes']);
    expect(asked).toHaveLength(1);
  });

  it('after a withdrawal, fails every try waiting in order and uses no answer to a question asked before it', async () => {
    const { queue, asked, log, enqueue } = queueOnHand();
    enqueue('a');
    enqueue('b');
    queue.withdraw(() => 'stopped');
    expect(log).toEqual(['a fails: stopped', 'b fails: stopped']);
    enqueue('c');
    expect(asked).toHaveLength(2);
    asked[0].resolve(0);
    await settle();
    expect(log).toHaveLength(2);
    asked[1].resolve(0);
    await settle();
    expect(log.slice(2)).toEqual(['c goes']);
  });

  it('asks once for the next when the try that went makes the one behind it leave', async () => {
    const { asked, log, queue } = queueOnHand();
    const behind: { unsubscribe(): void }[] = [];
    queue.wait(
      () => {
        log.push('a goes');
        behind[0].unsubscribe();
      },
      () => log.push('a fails'),
    );
    behind[0] = queue.wait(
      () => log.push('b goes'),
      () => log.push('b fails'),
    );
    queue.wait(
      () => log.push('c goes'),
      () => log.push('c fails'),
    );
    asked[0].resolve(0);
    await settle();
    // `b` left while `a` went, and `c` asked then: once, not again when `a` was done.
    expect(asked).toHaveLength(2);
    asked[1].resolve(0);
    await settle();
    expect(log).toEqual(['a goes', 'c goes']);
  });

  it('fails the first with a TypeError for an answer that is no wait: null, a string of digits, a function with a then', async () => {
    const answers: unknown[] = [null, '10', Object.assign(() => 0, { then: (go: (wait: number) => void) => go(0) })];
    const log: string[] = [];
    const queue = new LimiterQueue({ take: () => answers.shift() as number }, { schedule: () => ({ unsubscribe() {} }) });
    for (const name of ['a', 'b', 'c']) {
      queue.wait(
        () => log.push(`${name} goes`),
        (reason) => log.push(`${name} fails: ${(reason as Error).name}: ${(reason as Error).message}`),
      );
    }
    await settle();
    const expected = 'answering 0 or the milliseconds to wait, or a promise of them, got';
    expect(log).toEqual([
      `a fails: TypeError: Expected \`limiter.take()\` to be ${expected} null (null)`,
      `b fails: TypeError: Expected \`limiter.take()\` to be ${expected} "10" (string)`,
      expect.stringMatching(/^c fails: TypeError: Expected `limiter.take\(\)` to be answering 0/),
    ]);
  });
});
