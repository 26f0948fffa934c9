import type { Scenario } from '../harness.mjs';
import { bulkImport } from './bulk-import.mjs';
import { checkpoint } from './checkpoint.mjs';
import { eventsCost } from './events-cost.mjs';
import { idle } from './idle.mjs';
import { manyClients } from './many-clients.mjs';
import { manyWorkers } from './many-workers.mjs';
import { memory } from './memory.mjs';
import { overheadPromise } from './overhead-promise.mjs';
import { overheadSync } from './overhead-sync.mjs';
import { realLimiters } from './real-limiters.mjs';
import { scaling } from './scaling.mjs';
import { wide } from './wide.mjs';
import { windowCost } from './window-cost.mjs';
import { windowExposure } from './window-exposure.mjs';
import { windowMakespan } from './window-makespan.mjs';

/** Every scenario, in the order the issue lists them; `npm run bench -- NAME...` selects by `name`. */
export const scenarios: readonly Scenario[] = [
  overheadSync,
  overheadPromise,
  scaling,
  idle,
  memory,
  wide,
  windowMakespan,
  windowExposure,
  windowCost,
  manyClients,
  eventsCost,
  realLimiters,
  manyWorkers,
  bulkImport,
  checkpoint,
];
