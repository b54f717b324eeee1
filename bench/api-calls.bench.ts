// GitHub REST calls of one whole pipeline, app and action together: a four-step pipeline over two
// repositories (code, a gate that fails and is repaired once, an approval, the merge), the real
// app and the real action against a fake GitHub that counts every call (test/app/pipeline-scenario.ts).
// Prints the calls by route (method and route template) and by who made them, the total, and how
// many such pipelines one installation's 5,000 calls an hour allow. Target: at most 40.
//   npx tsx bench/api-calls.bench.ts
import { RATE_LIMIT } from '../test/helpers/fake-github.ts';
import { runPipelineScenario } from '../test/app/pipeline-scenario.ts';

const TARGET = 40;
const t0 = Date.now();
const outcome = await runPipelineScenario();
try {
  const { run, fake } = outcome;
  const steps = Object.values(run.steps)
    .map((s) => `${s.id} ${s.status}`)
    .join(', ');
  if (run.status !== 'succeeded')
    throw new Error(
      `the pipeline ended ${run.status} (${steps}):\n${outcome.attempts.map((a) => `${a.step}: exit ${a.code}\n${a.output.slice(-2000)}`).join('\n')}`,
    );
  const calls = fake.installationCalls();
  const failed = calls.filter((c) => c.status >= 400);
  if (failed.length > 0) throw new Error(`calls the fake GitHub refused: ${failed.map((c) => `${c.method} ${c.route} ${c.status}`).join(', ')}`);
  const byRoute = new Map<string, { app: number; action: number }>();
  for (const c of calls) {
    const key = `${c.method} ${c.route}`;
    const n = byRoute.get(key) ?? { app: 0, action: 0 };
    n[c.who as 'app' | 'action']++;
    byRoute.set(key, n);
  }
  const line = (label: string, value: string) => process.stdout.write(`${label.padEnd(72)} ${value}\n`);
  process.stdout.write(`pipeline: ${steps}; action runs: ${outcome.attempts.map((a) => a.step).join(', ')}\n\n`);
  line('route', '  app action total');
  for (const [route, n] of [...byRoute].sort((a, b) => b[1].app + b[1].action - (a[1].app + a[1].action) || a[0].localeCompare(b[0]))) {
    line(route, `${String(n.app).padStart(5)} ${String(n.action).padStart(6)} ${String(n.app + n.action).padStart(5)}`);
  }
  const app = calls.filter((c) => c.who === 'app').length;
  const total = calls.length;
  process.stdout.write('\n');
  line('REST calls, app', String(app));
  line('REST calls, action', String(total - app));
  line('REST calls, total', `${total}  (target <= ${TARGET}: ${total <= TARGET ? 'met' : 'NOT MET'})`);
  line(`pipelines per hour one installation allows (${RATE_LIMIT} calls/hour)`, (RATE_LIMIT / total).toFixed(1));
  line("installation tokens minted (the app's own JWT limit, not the installation's)", String(fake.calls.filter((c) => c.who === 'jwt').length));
  line('wall time', `${((Date.now() - t0) / 1000).toFixed(1)} s`);
} finally {
  await outcome.close();
}
