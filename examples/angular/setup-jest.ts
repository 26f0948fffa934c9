// Angular 21 applications are zoneless by default, so the tests are too: no zone.js, no fakeAsync.
import { setupZonelessTestEnv } from 'jest-preset-angular/setup-env/zoneless';

setupZonelessTestEnv();
