// The deploy fan-out over a seven-service graph whose deploys sleep known times, through the
// action's real entry (real git checkout, real bash processes). Prints, from one run:
//   wall time / critical path   (the floor; must be at most 1.15)
//   sequential sum / wall time  (what deploying one after another would cost, relative)
// and, for comparison, what whole-wave scheduling would have cost.
// Run: npx tsx bench/deploy.bench.ts
import { criticalPath, planDeploy } from '../core/steps/deploy-plan.ts';
import { createFixture, deployCommand, type ServiceSpec } from '../test/action/deploy-fixture.ts';

const SLEEP: Record<string, number> = { db: 0.6, cache: 0.3, auth: 0.5, api: 0.8, search: 1.4, web: 0.7, admin: 0.4 };
const DEPS: Record<string, string[]> = { api: ['db', 'cache'], search: ['db'], web: ['api', 'auth'], admin: ['api', 'search'] };

const f = createFixture();
try {
  const specs: Record<string, ServiceSpec> = {};
  for (const [name, seconds] of Object.entries(SLEEP)) specs[name] = { dependsOn: DEPS[name] ?? [], run: deployCommand(seconds) };
  const payload = f.payload(specs, { own: 'web' });
  const plan = planDeploy({ runId: payload.runId, services: payload.services, stepServices: Object.keys(SLEEP), changeSetServices: [] });
  const floor = criticalPath(plan, (s) => SLEEP[s]! * 1000);
  const sum = Object.values(SLEEP).reduce((a, b) => a + b, 0) * 1000;
  const byWaves = plan.waves.reduce((t, wave) => t + Math.max(...wave.map((s) => SLEEP[s]! * 1000)), 0);

  const t0 = Date.now();
  const result = await f.deploy(payload);
  const step = Date.now() - t0;
  if (result.conclusion !== 'success' || result.environments.some((e) => e.state !== 'ready')) {
    throw new Error(`the fan-out did not succeed:\n${result.summary}`);
  }
  const times = f.times();
  const first = Math.min(...[...times.values()].map((t) => t.start));
  const last = Math.max(...[...times.values()].map((t) => t.end ?? 0));
  const wall = last - first;

  const line = (label: string, value: string) => process.stdout.write(`${label.padEnd(44)} ${value}\n`);
  line('services', `${Object.keys(SLEEP).length} (${plan.waves.map((w) => w.join('+')).join(' -> ')})`);
  line('critical path (floor)', `${floor} ms`);
  line('sequential sum', `${sum} ms`);
  line('whole-wave scheduling would take', `${byWaves} ms (${(byWaves / floor).toFixed(3)} x floor)`);
  line('fan-out wall time (first start to last end)', `${wall} ms`);
  line('step wall time (with checkout)', `${step} ms`);
  line('wall time / critical path', `${(wall / floor).toFixed(3)}  (target <= 1.15: ${wall / floor <= 1.15 ? 'met' : 'NOT MET'})`);
  line('sequential sum / wall time', `${(sum / wall).toFixed(3)}`);
  line('step wall time / critical path', `${(step / floor).toFixed(3)}`);
} finally {
  f.cleanup();
}
