import { Observable } from 'rxjs';
import { slowStart } from 'rxjs-slow-start';

// The package is installed as a packed copy (.npmrc: install-links), so its `import 'rxjs'` finds the
// application's rxjs. A linked repository root would find the root's own node_modules/rxjs instead.
it('rxjs-slow-start runs on the same rxjs as the application', () => {
  expect(slowStart([])).toBeInstanceOf(Observable);
});
