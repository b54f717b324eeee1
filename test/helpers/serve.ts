// `conveyor serve` as a process the tests start: a free port to give it, and the wait until it
// listens or ends by itself.
import { createServer } from 'node:net';
import { startCli, waitForOutput, type CliOptions } from './cli.ts';

/** A loopback port no one listens on now. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

export interface Served {
  /** Whether it got as far as listening (Probot's `Listening on …` line). */
  listening: boolean;
  port: number;
  output(): string;
  /** Stops it (SIGTERM) if it still runs; resolves with its exit code. */
  stop(): Promise<number | null>;
}

/** Starts `conveyor serve` on a free loopback port (unless `env.PORT` names one) and waits until it listens or exits. */
export async function startServe(env: Record<string, string>, options: Omit<CliOptions, 'env'> = {}): Promise<Served> {
  const port = env.PORT ? Number(env.PORT) : await freePort();
  const server = startCli(['serve'], { ...options, env: { HOST: '127.0.0.1', ...env, PORT: String(port) } });
  await waitForOutput(server.output, (t) => /Listening on/.test(t) || server.child.exitCode !== null);
  return {
    listening: server.child.exitCode === null,
    port,
    output: server.output,
    async stop() {
      if (server.child.exitCode === null) server.child.kill('SIGTERM');
      return (await server.done).code;
    },
  };
}
