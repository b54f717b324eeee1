#!/usr/bin/env node
// Removes this service's preview environment: stops the server that preview.mjs started for
// $CONVEYOR_ENV_ID. Idempotent: an environment that is already gone is not an error.
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

export const stateDir = () => join(tmpdir(), 'conveyor-demo-envs');

export function checkEnvId(envId) {
  // The id becomes a file name: only a DNS-safe name may, never a path.
  if (!envId || !/^[A-Za-z0-9][A-Za-z0-9-]{0,62}$/.test(envId)) {
    throw new Error(`CONVEYOR_ENV_ID must be a DNS-safe name (letters, digits and "-"), got ${JSON.stringify(envId ?? '')}`);
  }
  return envId;
}

function alive(pid) {
  try {
    process.kill(pid, 0);
  } catch {
    // ESRCH: it is gone. EPERM: the pid now belongs to someone else's process, so ours is gone.
    return false;
  }
  // A killed server whose parent already exited may linger as a zombie until it is reaped.
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return true;
  }
}

/** The process is this environment's server: a pid from another PID namespace (a sandboxed deploy's) may name anything here. */
function serves(pid, envId) {
  try {
    return readFileSync(`/proc/${pid}/environ`, 'latin1').split('\0').includes(`CONVEYOR_ENV_ID=${envId}`);
  } catch {
    return false;
  }
}

function signal(pid, sig) {
  try {
    // The server leads its own process group (it was started detached): stop the whole group.
    process.kill(-pid, sig);
  } catch (e) {
    if (e.code !== 'ESRCH' && e.code !== 'EPERM') throw e;
  }
}

/** Stops the environment's server; returns whether there was one to stop. */
export async function stop(envId) {
  const dir = stateDir();
  const pidFile = join(dir, `${envId}.pid`);
  let stopped = false;
  if (existsSync(pidFile)) {
    const pid = Number(readFileSync(pidFile, 'utf8').trim());
    if (Number.isInteger(pid) && pid > 1 && alive(pid) && serves(pid, envId)) {
      signal(pid, 'SIGTERM');
      for (let i = 0; i < 100 && alive(pid); i++) await new Promise((r) => setTimeout(r, 50));
      if (alive(pid)) signal(pid, 'SIGKILL');
      stopped = true;
    }
  }
  for (const ext of ['pid', 'port', 'port.tmp', 'log']) rmSync(join(dir, `${envId}.${ext}`), { force: true });
  return stopped;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  try {
    const envId = checkEnvId(process.env.CONVEYOR_ENV_ID);
    const stopped = await stop(envId);
    console.log(stopped ? `preview ${envId}: stopped` : `preview ${envId}: already gone`);
  } catch (e) {
    console.error(`preview-down: ${e.message}`);
    process.exit(1);
  }
}
