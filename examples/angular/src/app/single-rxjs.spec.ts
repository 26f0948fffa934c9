import { Observable } from 'rxjs';
import { slowStart } from 'rxjs-slow-start';

// jest.config.js maps every `rxjs` import to this example's copy. Without that mapping the package
// (a symlink to the repository root) would load the root's node_modules/rxjs, and this would fail.
it('rxjs-slow-start runs on the same rxjs as the application', () => {
  expect(slowStart([])).toBeInstanceOf(Observable);
});
