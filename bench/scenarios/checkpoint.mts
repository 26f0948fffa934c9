import { Subject } from 'rxjs';
import { format, median, type Scenario } from '../harness.mjs';
import { slowStartCheckpoint, type SlowStartCheckpoint, type SlowStartEvent } from '../subject.mjs';

const KEYS = 1_000_000;
/** Tasks in flight at once: each settles up to this many starts after its own, out of order. */
const IN_FLIGHT = 64;
const ROUNDS = 5;
const TARGET_BYTES = 8 * 1024;

/**
 * What a checkpoint of a long job costs (§15): the events of 1,000,000 tasks, `IN_FLIGHT` of them in
 * flight at once and settling out of order, folded by `slowStartCheckpoint()`. Every 1,000th task is
 * throttled once, so its key comes late. Measured: the size of the JSON of the checkpoints made in the
 * middle of the run and at its end, and the time each checkpoint takes to make. Each `started` and
 * `succeeded` makes one.
 */
export const checkpoint: Scenario = {
  name: 'checkpoint',
  title: 'Checkpoints: the size and the time of one, over a million keys',
  async run() {
    const perCheckpoint: number[] = [];
    let middle = '';
    let last: SlowStartCheckpoint | undefined;
    for (let round = 0; round < ROUNDS; round++) {
      const events = new Subject<SlowStartEvent>();
      let made = 0;
      events.pipe(slowStartCheckpoint()).subscribe((checkpoint) => {
        made++;
        last = checkpoint;
        if (made === KEYS) middle = JSON.stringify(checkpoint);
      });
      const started = performance.now();
      feed(events);
      perCheckpoint.push(((performance.now() - started) * 1e6) / made);
    }
    const end = JSON.stringify(last);
    const bytes = Buffer.byteLength(end);
    return {
      name: this.name,
      title: this.title,
      method:
        `The events of ${format.count(KEYS)} tasks with keys 0 to ${format.count(KEYS - 1)}, ${IN_FLIGHT} in flight at once and settling ` +
        'out of order, every 1,000th throttled once and tried again later, pushed through a `Subject` piped into ' +
        `\`slowStartCheckpoint()\`: ${ROUNDS} rounds, one checkpoint per \`started\` and \`succeeded\`. The size is the checkpoint's ` +
        '`JSON.stringify`, in the middle of the run and at its end.',
      figures: [
        { label: 'JSON of the checkpoint at the end', value: `${format.count(bytes)} bytes` },
        { label: 'JSON of a checkpoint mid-run', value: `${format.count(Buffer.byteLength(middle))} bytes` },
        { label: 'time to make one checkpoint, median of the rounds', value: `${median(perCheckpoint).toFixed(0)} ns` },
      ],
      targets: [
        {
          description: `JSON of a checkpoint of ${format.count(KEYS)} keys, mostly in order`,
          measured: `${format.count(Math.max(bytes, Buffer.byteLength(middle)))} bytes`,
          limit: `<= ${format.count(TARGET_BYTES)} bytes`,
          met: bytes <= TARGET_BYTES && Buffer.byteLength(middle) <= TARGET_BYTES,
        },
      ],
    };
  },
};

/** The events of the job: a window of `IN_FLIGHT` tasks, the oldest settling last. */
function feed(events: Subject<SlowStartEvent>): void {
  events.next({ type: 'start', total: KEYS, fingerprint: `tasks:${KEYS}`, time: 0 });
  const retried: number[] = [];
  const inFlight: number[] = [];
  // The throttled tasks go again, and succeed.
  const retryAll = (time: number) => {
    for (const key of retried.splice(0)) {
      events.next({ type: 'started', key, index: key, batch: 0, attempt: 2, time });
      events.next({ type: 'succeeded', key, index: key, batch: 0, attempt: 2, value: undefined, duration: 1, time });
    }
  };
  const settle = (key: number, time: number) => {
    if (key % 1000 === 999) {
      retried.push(key);
      events.next({
        type: 'throttled',
        key,
        index: key,
        batch: 0,
        attempt: 1,
        reason: 429,
        kind: 'throttle',
        retryAt: time + 1,
        duration: 1,
        time,
      });
      return;
    }
    events.next({ type: 'succeeded', key, index: key, batch: 0, attempt: 1, value: undefined, duration: 1, time });
  };
  for (let key = 0; key < KEYS; key++) {
    events.next({ type: 'started', key, index: key, batch: 0, attempt: 1, time: key });
    inFlight.push(key);
    // The newest settles first, then the oldest: out of order within the window.
    if (inFlight.length === IN_FLIGHT) {
      settle(inFlight.pop()!, key);
      settle(inFlight.shift()!, key);
    }
    if (key % 500 === 0) retryAll(key);
  }
  for (const key of inFlight.splice(0)) settle(key, KEYS);
  retryAll(KEYS);
  events.next({
    type: 'end',
    how: 'completed',
    succeeded: KEYS,
    failed: 0,
    itemFailed: 0,
    abandoned: 0,
    cancelled: 0,
    skipped: 0,
    unfinished: [],
    unfinishedKeys: [],
    time: KEYS,
  });
}
