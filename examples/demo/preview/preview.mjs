#!/usr/bin/env node
// Stands up a demo service's preview environment (Conveyor's deploy contract): starts server.js
// detached on a free loopback port, writes url=... to $CONVEYOR_OUTPUT, and leaves the server's
// pid in ${TMPDIR:-/tmp}/conveyor-demo-envs/$CONVEYOR_ENV_ID.pid for preview-down.mjs.
import { spawn } from 'node:child_process';
import { appendFileSync, closeSync, existsSync, mkdirSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { checkEnvId, stateDir, stop } from './preview-down.mjs';

// The demo builder copies this script into every demo repository; the service is the package.
const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const SERVICE = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).name;
// Each ready provider's URL reaches the server as <PROVIDER>_URL (the storefront reads
// CATALOG_URL). A provider whose preview failed is simply absent: the consumer still starts and
// says the provider is unavailable.
const providerEnv = {};
for (const [name, value] of Object.entries(process.env)) {
  const m = /^CONVEYOR_PEER_(.+)_URL$/.exec(name);
  if (m && value) providerEnv[`${m[1]}_URL`] = value;
}

function fail(message) {
  console.error(`preview ${SERVICE}: ${message}`);
  process.exit(1);
}

let envId;
try {
  envId = checkEnvId(process.env.CONVEYOR_ENV_ID);
} catch (e) {
  fail(e.message);
}
const output = process.env.CONVEYOR_OUTPUT;
if (!output) fail('CONVEYOR_OUTPUT must name the file to write url=... to');

const dir = stateDir();
mkdirSync(dir, { recursive: true });
const portFile = join(dir, `${envId}.port`);
const logFile = join(dir, `${envId}.log`);

// Deploying the same environment again replaces its server, so a repeated deploy is harmless.
await stop(envId);

const log = openSync(logFile, 'w');
const server = spawn(process.execPath, ['server.js'], {
  cwd: root,
  env: { ...process.env, ...providerEnv, PORT: '0', PORT_FILE: portFile },
  // Its own session: it outlives this script and the deploy command's process group.
  detached: true,
  stdio: ['ignore', log, log],
});
closeSync(log);
writeFileSync(join(dir, `${envId}.pid`), String(server.pid));
let exited = null;
server.on('exit', (code, sig) => (exited = sig ?? code));

for (let i = 0; i < 300 && !existsSync(portFile) && exited === null; i++) await new Promise((r) => setTimeout(r, 50));
if (!existsSync(portFile)) {
  const tail = readFileSync(logFile, 'utf8').split('\n').slice(-20).join('\n');
  await stop(envId);
  fail(`server.js ${exited === null ? 'did not report its port in 15 s' : `exited (${exited})`}:\n${tail}`);
}
const url = `http://127.0.0.1:${readFileSync(portFile, 'utf8').trim()}`;
appendFileSync(output, `url=${url}\n`);
console.log(`preview ${SERVICE}: ${url} (pid ${server.pid}, env ${envId}, log ${logFile})`);
server.unref();
process.exit(0);
