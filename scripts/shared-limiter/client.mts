/**
 * One client of `npm run shared-limiter-test`: TASKS requests to the API, through `slowStart` with the
 * `limiter` option: `fromRateLimiterFlexible()` on a RateLimiterRedis bucket that every client shares
 * (Redis on 127.0.0.1:REDIS_PORT), of 4 starts a second until the API's policy is heard, and then of the
 * policy's rate (`rateFromServer`); and `rateLimit: true`, so that the API's own windows, which do not
 * line up with the bucket's, hold too. Prints `{"completed":N,"refused":R,"calls":C,"grants":[...],"points":P}`
 * when done: each grant with the bucket's count in its window when it was granted, and when that window
 * ends; and the bucket's points at the end. `node --import tsx client.mts API_URL REDIS_PORT TASKS`
 */
import { Redis } from 'ioredis';
import { lastValueFrom } from 'rxjs';
import { RateLimiterRedis, type RateLimiterRes } from 'rate-limiter-flexible';
import { fromRateLimiterFlexible, slowStart } from 'rxjs-slow-start';

const [url, redisPort, tasksText] = process.argv.slice(2);
/** The bucket's points until the API's policy is heard. */
const START_POINTS = 4;
const redis = new Redis({ host: '127.0.0.1', port: Number(redisPort), enableOfflineQueue: false, lazyConnect: true });
await redis.connect();
// A few starts before the first answer: the API's policy sets the rest (`rateFromServer`).
const bucket = new RateLimiterRedis({ storeClient: redis, points: START_POINTS, duration: 1, keyPrefix: 'shared-limiter-test' });
/** Every start the bucket granted this client: its count in the window then, and when the window ends. */
const grants: { consumed: number; windowEnd: number }[] = [];
/** The bucket, its grants counted. */
const counted = {
  consume: (key: string | number, points?: number) =>
    bucket.consume(key, points).then((granted: RateLimiterRes) => {
      grants.push({ consumed: granted.consumedPoints, windowEnd: Date.now() + granted.msBeforeNext });
      return granted;
    }),
  get points() {
    return bucket.points;
  },
  set points(points: number) {
    bucket.points = points;
  },
  duration: bucket.duration,
};
let calls = 0;
let completed = 0;
let refused = 0;
const tasks = Array.from({ length: Number(tasksText) }, () => async () => {
  calls++;
  const response = await fetch(url);
  await response.arrayBuffer();
  if (response.status === 429) refused++;
  else completed++;
  return response;
});
const limiter = fromRateLimiterFlexible(counted, 'api', { rateFromServer: true });
await lastValueFrom(slowStart(tasks, { pacing: 'window', maxBatchSize: 16, limiter, rateLimit: true, retry: { maxAttempts: 10 } }), {
  defaultValue: undefined,
});
process.stdout.write(`${JSON.stringify({ completed, refused, calls, grants, points: bucket.points })}\n`);
redis.disconnect();
