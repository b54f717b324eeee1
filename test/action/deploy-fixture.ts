// A service graph for deploy tests: one monorepo (a folder per service) plus any separate
// repositories a test asks for, and a deploy script that records what it received and when.
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runEntry } from '../../action/src/entry.ts';
import { readPayload } from '../../action/src/payload.ts';
import type { PlanStep, ResolvedService } from '../../core/plan/types.ts';
import { WIRE_VERSION, type Environment, type StepPayload, type StepResult } from '../../core/contract/wire.ts';
import { createRemotes, removeDir, tempDir, type Remotes } from '../helpers/repos.ts';
import { pathWithoutBubblewrap } from '../helpers/processes.ts';

/** Records its environment, process group and start/end times (ms), sleeps $1 seconds, then:
 * ok | fail | nourl | secret | block (until $REC/go exists). */
export const DEPLOY_SCRIPT = `#!/bin/bash
set -e
svc="$CONVEYOR_SERVICE"
echo "$svc start $(date +%s%3N)" >> "$REC/log"
env | grep '^CONVEYOR_' | sort > "$REC/$svc.env"
echo "pwd=$(pwd)" >> "$REC/$svc.env"
[ -f marker.txt ] && echo "marker=$(cat marker.txt)" >> "$REC/$svc.env"
echo "token=[\${GITHUB_TOKEN:-}]" >> "$REC/$svc.env"
sleep "\${1:-0}"
case "\${2:-ok}" in
  fail) echo "boom from $svc"; echo "$svc end $(date +%s%3N)" >> "$REC/log"; exit 3 ;;
  nourl) echo "$svc is up but says nowhere" ;;
  secret) echo "leaking $SUPER_SECRET_TOKEN"; echo "url=http://$svc.preview.test" >> "$CONVEYOR_OUTPUT" ;;
  block) while [ ! -f "$REC/go" ]; do sleep 0.1; done; echo "url=http://$svc.preview.test/$CONVEYOR_ENV_ID" >> "$CONVEYOR_OUTPUT" ;;
  *) echo "url=http://$svc.preview.test/$CONVEYOR_ENV_ID" >> "$CONVEYOR_OUTPUT" ;;
esac
echo "$svc end $(date +%s%3N)" >> "$REC/log"
`;

export const TEARDOWN_SCRIPT = `#!/bin/bash
echo "$CONVEYOR_SERVICE $CONVEYOR_ENV_ID $(date +%s%3N)" >> "$REC/teardown.log"
{ env | grep '^CONVEYOR_' | sort; echo "pwd=$(pwd)"; echo "token=[\${GITHUB_TOKEN:-}]"; } > "$REC/$CONVEYOR_SERVICE.teardown.env"
n=$(grep -c "^$CONVEYOR_SERVICE " "$REC/teardown.log")
if [ -n "\${TEARDOWN_FAILS:-}" ] && [ "$n" -le "$TEARDOWN_FAILS" ]; then echo "still busy"; exit 1; fi
if [ -n "\${TEARDOWN_SLEEP:-}" ]; then sleep "$TEARDOWN_SLEEP"; fi
exit 0
`;

export interface ServiceSpec {
  dependsOn?: string[];
  /** Shell command; absent: `deploy: none`. */
  run?: string;
  teardown?: string;
  timeoutMinutes?: number;
  /** A repository of its own (default: a folder of acme/mono). */
  repo?: string;
}

export interface Fixture {
  remotes: Remotes;
  scratch: string;
  rec: string;
  payload(services: Record<string, ServiceSpec>, options?: PayloadOptions): StepPayload;
  deploy(payload: StepPayload, env?: Record<string, string>, options?: { minuteMs?: number }): Promise<StepResult>;
  /** Lines of the timing log: service -> { start, end }. */
  times(): Map<string, { start: number; end?: number; starts: number }>;
  /** The CONVEYOR_* variables (and pwd, marker, token) a service's deploy (or last teardown) saw. */
  envOf(service: string, command?: 'deploy' | 'teardown'): Record<string, string>;
  cleanup(): void;
}

export interface PayloadOptions {
  own?: string;
  stepServices?: string[];
  environments?: Environment[];
  epoch?: number;
  mode?: StepPayload['mode'];
  /** Repositories with a PR (their work branch is deployed). */
  prs?: string[];
}

export function deployCommand(seconds: number, behaviour: 'ok' | 'fail' | 'nourl' | 'secret' | 'block' = 'ok'): string {
  return `"$REC/deploy.sh" ${seconds} ${behaviour}`;
}

/** A folder holding deploy.sh and teardown.sh, where they record what they see ($REC). */
export function createRecorder(dir: string): string {
  const rec = join(dir, 'rec');
  mkdirSync(rec, { recursive: true });
  writeFileSync(join(rec, 'deploy.sh'), DEPLOY_SCRIPT);
  writeFileSync(join(rec, 'teardown.sh'), TEARDOWN_SCRIPT);
  chmodSync(join(rec, 'deploy.sh'), 0o755);
  chmodSync(join(rec, 'teardown.sh'), 0o755);
  return rec;
}

/** The deploy log of a recorder: service -> first start, last end, number of starts. */
export function readTimes(rec: string): Map<string, { start: number; end?: number; starts: number }> {
  const out = new Map<string, { start: number; end?: number; starts: number }>();
  const path = join(rec, 'log');
  if (!existsSync(path)) return out;
  for (const line of readFileSync(path, 'utf8').trim().split('\n')) {
    const [svc, what, at] = line.split(' ');
    const t = out.get(svc!) ?? { start: 0, starts: 0 };
    if (what === 'start') {
      if (t.starts === 0) t.start = Number(at);
      t.starts++;
    } else t.end = Number(at);
    out.set(svc!, t);
  }
  return out;
}

export function createFixture(): Fixture {
  const remotes = createRemotes();
  const scratch = tempDir('conveyor-deploy-');
  const rec = createRecorder(scratch);
  let runs = 0;
  const fixture: Fixture = {
    remotes,
    scratch,
    rec,
    payload(specs, options = {}) {
      const names = Object.keys(specs).sort();
      const repoOf = (n: string) => specs[n]?.repo ?? 'acme/mono';
      for (const repo of new Set(names.map(repoOf))) {
        if (remotes.head(repo, 'main')) continue;
        const files: Record<string, string> = { 'README.md': `${repo}\n` };
        for (const n of names.filter((x) => repoOf(x) === repo && repo === 'acme/mono')) files[`apps/${n}/README.md`] = `${n}\n`;
        if (repo !== 'acme/mono') files['marker.txt'] = 'base';
        remotes.create(repo, files);
      }
      const own = options.own ?? names[0]!;
      const services: Record<string, ResolvedService> = {};
      for (const n of names) {
        const s = specs[n]!;
        services[n] = {
          name: n,
          repo: repoOf(n),
          ...(repoOf(n) === 'acme/mono' ? { path: `apps/${n}` } : {}),
          base: 'main',
          dependsOn: s.dependsOn ?? [],
          deploy: s.run ? { run: s.run, ...(s.teardown ? { teardown: s.teardown } : {}), timeoutMinutes: s.timeoutMinutes ?? 5 } : null,
        };
      }
      const repos = [...new Set([repoOf(own), ...names.map(repoOf)])].map((repo, i) => ({
        repo,
        role: i === 0 ? ('primary' as const) : ('sibling' as const),
        services: names.filter((n) => repoOf(n) === repo),
        base: 'main',
        workBranch: 'conveyor/web-7',
        ...(options.prs?.includes(repo) ? { pr: { repo, number: 1, url: `https://example.test/${repo}/pull/1`, branch: 'conveyor/web-7' } } : {}),
      }));
      const step: PlanStep = {
        id: 'preview',
        kind: 'deploy',
        services: options.stepServices ?? names.filter((n) => specs[n]?.run),
        needs: [],
        timeoutMinutes: 30,
      };
      return {
        version: WIRE_VERSION,
        runId: 'web-7',
        pipeline: 'default',
        planHash: 'hash',
        issue: { repo: repoOf(own), number: 7, title: 'Add a greeting', body: 'Please.' },
        service: own,
        mode: options.mode ?? 'run',
        step,
        attempt: 1,
        epoch: options.epoch ?? 0,
        agents: {},
        services,
        repos,
        environments: options.environments ?? [],
      };
    },
    async deploy(payload, env = {}, options = {}) {
      const n = ++runs;
      const payloadPath = join(scratch, `payload-${n}.json`);
      writeFileSync(payloadPath, JSON.stringify(payload));
      return runEntry({
        env: {
          // What these tests watch (order, peers, progress) is recorded in $REC, outside the
          // workspace, where a sandboxed deploy cannot write: they run without the sandbox, whose
          // walls for deploys test/e2e/deploy and test/lib/sandbox.test.ts check.
          PATH: pathWithoutBubblewrap(),
          HOME: process.env.HOME,
          GITHUB_SERVER_URL: remotes.url,
          CONVEYOR_PAYLOAD_PATH: payloadPath,
          CONVEYOR_WORKSPACE_ROOT: join(scratch, `ws-${n}`),
          CONVEYOR_PROGRESS_PATH: join(scratch, `progress-${n}.jsonl`),
          REC: rec,
          ...env,
        },
        payload: await readPayload({ env: { CONVEYOR_PAYLOAD_PATH: payloadPath }, getInput: () => '' }),
        setSecret: () => undefined,
        log: () => undefined,
        killGraceMs: 200,
        ...(options.minuteMs ? { minuteMs: options.minuteMs } : {}),
      });
    },
    times: () => readTimes(rec),
    envOf(service, command = 'deploy') {
      const text = readFileSync(join(rec, command === 'deploy' ? `${service}.env` : `${service}.teardown.env`), 'utf8');
      return Object.fromEntries(
        text
          .trim()
          .split('\n')
          .map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]),
      );
    },
    cleanup() {
      remotes.cleanup();
      removeDir(scratch);
    },
  };
  return fixture;
}
