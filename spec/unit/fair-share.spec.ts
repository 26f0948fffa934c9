// §13's pace among many clients of one budget, none of which knows how many they are: each runs its own
// `AnnouncedBudget` against a fixed-window model of the server, in virtual time.
import { partsServed, runFixedWindowModel, type FixedWindowModel } from '../support/fixed-window-clients';

/** Twenty windows, measured after the clients had forty to settle. */
const SETTLE_WINDOWS = 40;
const MEASURED_WINDOWS = 20;

/** Each client's part of what the server served once every client had begun and settled, against an equal part. */
function settledParts(model: Omit<FixedWindowModel, 'until'>) {
  const lastBegin = Math.max(...model.begins);
  const from = Math.ceil(lastBegin / model.window) + SETTLE_WINDOWS;
  const until = (from + MEASURED_WINDOWS) * model.window;
  const tallies = runFixedWindowModel({ ...model, until });
  const served = tallies.reduce((sum, { servedIn }) => sum + servedIn.slice(from).reduce((a, b) => a + b, 0), 0);
  return {
    ofEqual: partsServed(tallies, from, from + MEASURED_WINDOWS).map((part) => part * model.begins.length),
    used: served / (model.limit * MEASURED_WINDOWS),
    refused: tallies.reduce((sum, { refused }) => sum + refused, 0),
  };
}

/** Clients that begin together, or one alone and the rest a while later, when its pace has the whole budget. */
const together = (clients: number) => Array.from({ length: clients }, () => 0);
const oneFirst = (clients: number, later = 5000) => Array.from({ length: clients }, (_, client) => (client === 0 ? 0 : later));
const inTurn = (clients: number, every = 3000) => Array.from({ length: clients }, (_, client) => client * every);

describe('the announced pace among clients that share one budget (contract §13)', () => {
  it.each([
    ['2 clients, one alone first', 200, oneFirst(2)],
    ['2 clients, one alone first, at 50 a window', 50, oneFirst(2)],
    ['3 clients, each 3 s after the last', 100, inTurn(3)],
    ['10 clients, one alone first', 200, oneFirst(10)],
    ['10 clients, each 3 s after the last', 200, inTurn(10)],
    ['10 clients at once', 200, together(10)],
    ['10 clients, one alone first, at 1,000 a window', 1000, oneFirst(10)],
  ])('%s: each client served within 20 %% of an equal part, from the split they began with', (_, limit, begins) => {
    for (const seed of [1, 2, 3]) {
      const { ofEqual, used } = settledParts({ limit, window: 1000, begins, seed });
      for (const part of ofEqual) {
        expect(part).toBeGreaterThanOrEqual(0.8);
        expect(part).toBeLessThanOrEqual(1.2);
      }
      // Fair, and the budget used all the same.
      expect(used).toBeGreaterThanOrEqual(0.85);
    }
  });

  it.each([
    ['10 clients at once', 200, together(10)],
    ['10 clients, one alone first', 200, oneFirst(10)],
  ])(
    '%s, behind windows that begin at the first try after the last (express-rate-limit): each within 20 %% of an equal part',
    (_, limit, begins) => {
      for (const seed of [1, 2, 3]) {
        const { ofEqual, used } = settledParts({ limit, window: 1000, begins, seed, windowsBegin: 'at-first-try' });
        for (const part of ofEqual) {
          expect(part).toBeGreaterThanOrEqual(0.8);
          expect(part).toBeLessThanOrEqual(1.2);
        }
        expect(used).toBeGreaterThanOrEqual(0.85);
      }
    },
  );

  it('a client alone keeps the whole budget: nothing it measures is another client', () => {
    const { ofEqual, used, refused } = settledParts({ limit: 50, window: 1000, begins: [0] });
    expect(ofEqual).toEqual([1]);
    expect(used).toBeGreaterThanOrEqual(0.9);
    expect(refused).toBe(0);
  });
});
