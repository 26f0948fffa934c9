/** How many items one chunk of a {@link Queue} holds. */
export const CHUNK_SIZE = 1024;

/** A piece of a {@link Queue}'s storage. */
interface Chunk<T> {
  readonly items: (T | undefined)[];
  next: Chunk<T> | undefined;
}

/** Storage for a chunk's items, reserved at once: they are written in order from 0. */
function reserveChunk<T>(): (T | undefined)[] {
  return new Array<T | undefined>(CHUNK_SIZE);
}

/**
 * A first-in, first-out queue whose `push` costs O(1) and `take` O(taken), however long the queue.
 *
 * Items are stored in fixed-size chunks rather than in one array: a single array that grows to hold
 * the hundreds of thousands of factories of a large batch is copied every time it outgrows its
 * storage, and that copying cost as much as the rest of the operator's work in the benchmarks.
 */
export class Queue<T> {
  /** The chunk holding the oldest item, and that item's position in it; never past the chunk's end. */
  private head: Chunk<T> = { items: reserveChunk<T>(), next: undefined };
  private headPosition = 0;
  /** The chunk the next item goes into, and its position there. */
  private tail: Chunk<T> = this.head;
  private tailPosition = 0;
  private count = 0;

  get length(): number {
    return this.count;
  }

  push(item: T): void {
    if (this.tailPosition === CHUNK_SIZE) {
      const chunk: Chunk<T> = { items: reserveChunk<T>(), next: undefined };
      this.tail.next = chunk;
      this.tail = chunk;
      this.tailPosition = 0;
    }
    this.tail.items[this.tailPosition++] = item;
    this.count++;
  }

  /** The oldest item; `undefined` when empty, as `shift` clears every slot it reads. */
  peek(): T | undefined {
    return this.head.items[this.headPosition];
  }

  take(count: number): T[] {
    const taken = new Array<T>(Math.min(count, this.count));
    for (let i = 0; i < taken.length; i++) taken[i] = this.shift() as T;
    return taken;
  }

  /** Takes the oldest item; `undefined` when empty. */
  shift(): T | undefined {
    if (this.count === 0) return undefined;
    const item = this.head.items[this.headPosition] as T;
    this.head.items[this.headPosition++] = undefined;
    if (--this.count === 0) {
      // Empty: start again at the front of the last chunk instead of making a new one.
      this.head = this.tail;
      this.headPosition = this.tailPosition = 0;
    } else if (this.headPosition === CHUNK_SIZE) {
      // Move on at once, so that `peek` always finds the oldest item where the head points. Dropping
      // the used chunk lets the taken items go once their batch is done.
      this.head = this.head.next as Chunk<T>;
      this.headPosition = 0;
    }
    return item;
  }

  takeAll(): T[] {
    return this.take(this.count);
  }
}
