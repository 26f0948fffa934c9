/**
 * The chunked FIFO that holds waiting factories, their arrival times and retries. Every operation is checked
 * against a plain array at and around the chunk boundaries, where a lost position once hid the oldest
 * waiting factory from `flushAfter`.
 */
import fc from 'fast-check';
import { CHUNK_SIZE, Queue } from '../../src/queue';
import { propertyRuns } from '../support/property-runs';

type Operation = { push: number } | { take: number } | { shift: number } | { takeAll: true };

function check(operations: Operation[]): void {
  const queue = new Queue<number>();
  const expected: number[] = [];
  let next = 0;
  for (const operation of operations) {
    if ('push' in operation) {
      for (let i = 0; i < operation.push; i++) {
        queue.push(next);
        expected.push(next++);
      }
    } else if ('take' in operation) {
      expect(queue.take(operation.take)).toEqual(expected.splice(0, operation.take));
    } else if ('shift' in operation) {
      for (let i = 0; i < operation.shift; i++) expect(queue.shift()).toBe(expected.shift());
    } else {
      expect(queue.takeAll()).toEqual(expected.splice(0));
    }
    expect(queue.length).toBe(expected.length);
    expect(queue.peek()).toBe(expected[0]);
  }
}

describe('Queue', () => {
  const around = (n: number) => [n - 1, n, n + 1];

  it.each(around(CHUNK_SIZE).flatMap((pushed) => around(CHUNK_SIZE).map((taken) => [pushed, taken])))(
    'push %i then take %i: peek, length and take agree with an array',
    (pushed, taken) => {
      check([{ push: pushed }, { take: taken }, { push: 3 }, { take: 1 }, { take: CHUNK_SIZE }, { push: 1 }, { takeAll: true }]);
    },
  );

  it('peeks at the first item of the next chunk when a take ends exactly at a chunk end', () => {
    check([{ push: CHUNK_SIZE + 6 }, ...Array.from({ length: 16 }, () => ({ take: 64 })), { take: 1 }, { take: 5 }]);
  });

  it('shifts nothing from an empty queue, which stays empty and usable', () => {
    check([{ shift: 2 }, { push: 2 }, { shift: 3 }, { push: 1 }, { take: 1 }]);
  });

  it('shifts across a chunk end', () => {
    check([{ push: CHUNK_SIZE + 2 }, { shift: CHUNK_SIZE - 1 }, { shift: 1 }, { push: 1 }, { shift: 3 }]);
  });

  it('agrees with an array on any sequence of operations', () => {
    const size = fc.oneof(fc.integer({ min: 0, max: 5 }), fc.constantFrom(...around(CHUNK_SIZE), ...around(2 * CHUNK_SIZE)));
    const operation: fc.Arbitrary<Operation> = fc.oneof(
      size.map((push) => ({ push })),
      size.map((take) => ({ take })),
      size.map((shift) => ({ shift })),
      fc.constant({ takeAll: true as const }),
    );
    // The seed of the commit, like the property suites (spec/support/property-runs.ts); 300 runs always.
    fc.assert(fc.property(fc.array(operation, { maxLength: 12 }), check), propertyRuns(__filename).params(300));
  });
});
