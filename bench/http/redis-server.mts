/**
 * A throwaway `redis-server` (Debian's, or any on the PATH) on 127.0.0.1, with nothing saved to disk:
 * the shared bucket of the `limiter` option in the many-workers scenario and `npm run shared-limiter-test`.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';

/** A port free on 127.0.0.1 now. */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Starts a Redis server on a free port and resolves once it accepts connections. */
export async function startRedis(): Promise<{ child: ChildProcess; port: number }> {
  const port = await freePort();
  const child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  await new Promise<void>((resolve, reject) => {
    let seen = '';
    child.stdout!.on('data', (data: Buffer) => {
      seen += String(data);
      if (seen.includes('Ready to accept connections')) resolve();
    });
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`redis-server exited with ${code} before it was ready`)));
  });
  return { child, port };
}
