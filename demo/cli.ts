// Entry point of `npm run demo:simulated`: everything else lives in main.ts so that it can be tested.
import { main } from './main.js';

main(process.argv.slice(2), { stdout: process.stdout, stderr: process.stderr, env: process.env }).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    console.error(error);
    process.exitCode = 1;
  },
);
