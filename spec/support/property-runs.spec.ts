// The seed policy of the property suites (property-runs.ts): a seed fixed per commit, a fixed fallback
// without git, FC_SEED to replay or explore, and the run counts the scripts set.
import { FALLBACK_SEED, chooseSeed, readPropertyRuns, replayCommand, seedOfCommit } from './property-runs';

const commit = '9bd12c4d0f8b6a1e2c3d4e5f60718293a4b5c6d7';
const atCommit = () => commit;
const withoutGit = () => undefined;

describe('the seed of the property suites', () => {
  it("is the commit's short hash read as a number, the same on every run of the commit", () => {
    expect(seedOfCommit(commit)).toBe(0x9bd12c4);
    expect(chooseSeed({}, atCommit)).toEqual({ seed: 0x9bd12c4, origin: 'from commit 9bd12c4' });
    expect(chooseSeed({ CI: 'true' }, atCommit).seed).toBe(chooseSeed({}, atCommit).seed);
    expect(seedOfCommit('f'.repeat(40))).toBe(0xfffffff);
  });

  it('is a fixed number when git cannot say which commit this is', () => {
    expect(chooseSeed({}, withoutGit).seed).toBe(FALLBACK_SEED);
    expect(chooseSeed({ FC_SEED: '' }, withoutGit).seed).toBe(FALLBACK_SEED);
  });

  it('is FC_SEED when given: an integer replays it, `random` draws one', () => {
    expect(chooseSeed({ FC_SEED: '163381956' }, atCommit)).toEqual({ seed: 163381956, origin: 'from FC_SEED' });
    expect(chooseSeed({ FC_SEED: '-42' }, atCommit).seed).toBe(-42);
    const drawn = chooseSeed({ FC_SEED: 'random' }, atCommit);
    expect(Number.isSafeInteger(drawn.seed) && drawn.seed >= 0).toBe(true);
    expect(drawn.origin).toContain('random');
    expect(() => chooseSeed({ FC_SEED: '12abc' }, atCommit)).toThrow('FC_SEED must be an integer or "random", got "12abc"');
  });
});

describe('the runs fast-check is given', () => {
  it('are 300 per property locally, 2,000 in CI, FC_NUM_RUNS when set', () => {
    expect(readPropertyRuns({}, atCommit).numRuns).toBe(300);
    expect(readPropertyRuns({ CI: 'true' }, atCommit).numRuns).toBe(2000);
    expect(readPropertyRuns({ CI: 'true', FC_NUM_RUNS: '40' }, atCommit).numRuns).toBe(40);
    // Ten times CI's count gets ten times its time; fewer runs keep CI's.
    expect(readPropertyRuns({ FC_NUM_RUNS: '20000' }, atCommit).timeout).toBe(1_200_000);
    expect(readPropertyRuns({ CI: 'true' }, atCommit).timeout).toBe(120_000);
    expect(readPropertyRuns({ FC_NUM_RUNS: '40' }, atCommit).timeout).toBe(110_000);
    expect(() => readPropertyRuns({ FC_NUM_RUNS: 'many' }, atCommit)).toThrow('FC_NUM_RUNS must be a positive integer');
  });

  it('give every property the seed; a property may set its own count', () => {
    const runs = readPropertyRuns({}, atCommit);
    expect(runs.params()).toEqual({ seed: 0x9bd12c4, numRuns: 300, endOnFailure: false });
    expect(runs.params(2000)).toEqual({ seed: 0x9bd12c4, numRuns: 2000, endOnFailure: false });
  });

  it('replay a path without shrinking, and stop at the first failure for mutation runs', () => {
    expect(readPropertyRuns({ FC_SEED: '7', FC_PATH: '12:3:0' }, atCommit).params()).toEqual({
      seed: 7,
      numRuns: 300,
      path: '12:3:0',
      endOnFailure: true,
    });
    expect(readPropertyRuns({ FC_NUM_RUNS: '40', FC_END_ON_FAILURE: '1' }, atCommit).params()).toEqual({
      seed: 0x9bd12c4,
      numRuns: 40,
      endOnFailure: true,
    });
  });

  it('are replayed by one command', () => {
    expect(replayCommand('spec/contract/retry-properties.spec.ts', 163381956, 2000)).toBe(
      'FC_SEED=163381956 FC_NUM_RUNS=2000 npx jest spec/contract/retry-properties.spec.ts',
    );
  });
});
