// How a preset's CLI reaches its model's API, and which of its credentials Conveyor can keep from
// it. Pure: the configuration validates against it, the plan compiler adds the endpoint's host to
// the agent's network, and the action (action/src/model-route.ts) starts the key forwarder
// (lib/sandbox/forwarder.ts) and points the CLI at it with what this module says.
//
// A credential can be kept from the agent when its vendor takes it as a header on each request
// (an API key, or a bearer token the vendor issued for its API): the forwarder sets that header.
// What cannot be handled so passes by name, as listed in `secrets`:
// - Claude Code's CLAUDE_CODE_OAUTH_TOKEN is the OAuth token of a Claude subscription, not an API
//   key: Claude Code alone may use it, with its own sign-in flow (and its own calls beside the
//   Messages API), so it stays the CLI's;
// - Copilot CLI's COPILOT_GITHUB_TOKEN is a GitHub sign-in, exchanged by the CLI for Copilot's own
//   tokens: only its bring-your-own-key mode (`provider`) has a key Conveyor can keep;
// - cloud sign-ins (Vertex AI, Bedrock, Azure AD: files and variables the CLI reads and refreshes)
//   and the keys of Aider's other vendors (DeepSeek, OpenRouter, Gemini through LiteLLM).
import type { PresetName } from './presets.ts';
import { PRESETS } from './presets.ts';

/** Where a credential goes on the vendor's request: `bearer` is `Authorization: Bearer <key>`. */
export type CredentialHeader = 'x-api-key' | 'bearer' | 'x-goog-api-key' | 'api-key';

/** Copilot CLI's bring-your-own-key providers (COPILOT_PROVIDER_TYPE). */
export const COPILOT_PROVIDERS = ['openai', 'azure', 'anthropic'] as const;
export type CopilotProvider = (typeof COPILOT_PROVIDERS)[number];
/** The wire API of an OpenAI or Azure provider (COPILOT_PROVIDER_WIRE_API): Chat Completions or Responses. */
export const WIRE_APIS = ['completions', 'responses'] as const;
export type WireApi = (typeof WIRE_APIS)[number];

/** What of an agent decides how it reaches its model (a resolved agent and a configured one alike). */
export interface ModelAgent {
  preset?: PresetName | undefined;
  model?: string | undefined;
  endpoint?: string | undefined;
  provider?: CopilotProvider | undefined;
  wireApi?: WireApi | undefined;
}

export interface ModelKey {
  /** The runner's variable holding it. */
  variable: string;
  header: CredentialHeader;
  /** The variable the CLI reads it from, when that is another: the placeholder goes there too. */
  readAs?: string;
}

/** How the CLI is told where its model is: variables, files seeded into its private HOME, variables naming folders of it. */
export interface Pointing {
  env: Record<string, string>;
  homeFiles: Record<string, string>;
  homeVariables: Record<string, string>;
}

export interface ModelApi {
  /** The endpoint the CLI's requests go to: the agent's `endpoint`, else its vendor's. */
  endpoint: string;
  /** The CLI must be pointed even when no key is kept (an `endpoint` given, or a mode that needs one). */
  pointAlways: boolean;
  /** Credentials the forwarder can set, in the order the CLI prefers them (the first one set is used). */
  keys: ModelKey[];
  /** The variables and files that send the CLI to `url` (the forwarder's local URL). */
  point(url: string): Pointing;
}

const OPENAI = 'https://api.openai.com/v1';
const ANTHROPIC = 'https://api.anthropic.com';
const GEMINI = 'https://generativelanguage.googleapis.com';

const COPILOT_DEFAULT: Record<CopilotProvider, string | undefined> = { openai: OPENAI, anthropic: ANTHROPIC, azure: undefined };
const COPILOT_HEADER: Record<CopilotProvider, CredentialHeader> = { openai: 'bearer', anthropic: 'x-api-key', azure: 'api-key' };

const pointing = (p: Partial<Pointing>): Pointing => ({ env: p.env ?? {}, homeFiles: p.homeFiles ?? {}, homeVariables: p.homeVariables ?? {} });

/** The vendor Aider routes `model` to, where Conveyor can point it: LiteLLM's `anthropic/` and `openai/` prefixes. */
function aiderRoute(model: string | undefined): 'anthropic' | 'openai' | undefined {
  if (model?.startsWith('anthropic/')) return 'anthropic';
  if (model?.startsWith('openai/')) return 'openai';
  return undefined;
}

/** How the agent's CLI reaches its model, or undefined where Conveyor cannot point it (no preset, Copilot signed in to GitHub, Aider's other vendors). */
export function modelApiOf(agent: ModelAgent): ModelApi | undefined {
  const configured = agent.endpoint !== undefined;
  const api = (endpoint: string, keys: ModelKey[], point: ModelApi['point'], always = configured): ModelApi => ({
    endpoint: agent.endpoint ?? endpoint,
    pointAlways: always,
    keys,
    point,
  });
  switch (agent.preset) {
    case 'claude-code':
      return api(ANTHROPIC, [{ variable: 'ANTHROPIC_API_KEY', header: 'x-api-key' }], (url) => pointing({ env: { ANTHROPIC_BASE_URL: url } }));
    case 'codex':
      // Codex reads its endpoint from its config only (OPENAI_BASE_URL no longer), in a CODEX_HOME it may write.
      return api(
        OPENAI,
        [
          { variable: 'CODEX_API_KEY', header: 'bearer' },
          { variable: 'OPENAI_API_KEY', header: 'bearer' },
        ],
        (url) => pointing({ homeFiles: { '.codex/config.toml': `openai_base_url = ${JSON.stringify(url)}\n` }, homeVariables: { CODEX_HOME: '.codex' } }),
      );
    case 'gemini':
      // GOOGLE_GEMINI_BASE_URL counts only once the settings select an API key as the sign-in. Its
      // usage statistics off: they go to play.googleapis.com, which the sandbox refuses, and refusals
      // between its retries of an overloaded API (up to 30 s apart) would stop it as agent-network-refused.
      return api(
        GEMINI,
        [
          { variable: 'GEMINI_API_KEY', header: 'x-goog-api-key' },
          // Pointed with the API key's sign-in, it reads GEMINI_API_KEY only (GOOGLE_API_KEY is Vertex AI's).
          { variable: 'GOOGLE_API_KEY', header: 'x-goog-api-key', readAs: 'GEMINI_API_KEY' },
        ],
        (url) =>
          pointing({
            env: { GOOGLE_GEMINI_BASE_URL: url },
            homeFiles: {
              '.gemini/settings.json': `${JSON.stringify({ security: { auth: { selectedType: 'gemini-api-key' } }, privacy: { usageStatisticsEnabled: false } }, null, 2)}\n`,
            },
            homeVariables: { GEMINI_CLI_HOME: '.' },
          }),
      );
    case 'copilot': {
      const provider = agent.provider;
      if (!provider) return undefined;
      const fallback = COPILOT_DEFAULT[provider];
      // Azure has no endpoint of its own: validation requires one.
      if (agent.endpoint === undefined && fallback === undefined) return undefined;
      return api(
        fallback ?? '',
        [{ variable: 'COPILOT_PROVIDER_API_KEY', header: COPILOT_HEADER[provider] }],
        (url) =>
          pointing({
            env: {
              COPILOT_PROVIDER_BASE_URL: url,
              COPILOT_PROVIDER_TYPE: provider,
              ...(agent.wireApi ? { COPILOT_PROVIDER_WIRE_API: agent.wireApi } : {}),
              // Nothing of GitHub's: no sign-in, no telemetry, no GitHub MCP server, no update check.
              COPILOT_OFFLINE: 'true',
            },
          }),
        true,
      );
    }
    case 'aider': {
      const route = aiderRoute(agent.model);
      if (route === 'anthropic') {
        return api(ANTHROPIC, [{ variable: 'ANTHROPIC_API_KEY', header: 'x-api-key' }], (url) =>
          pointing({ env: { ANTHROPIC_API_BASE: url, ANTHROPIC_BASE_URL: url } }),
        );
      }
      if (route === 'openai') return api(OPENAI, [{ variable: 'OPENAI_API_KEY', header: 'bearer' }], (url) => pointing({ env: { OPENAI_API_BASE: url } }));
      return undefined;
    }
    case undefined:
      return undefined;
  }
}

/** Why `endpoint` cannot be given to this agent, or undefined when it can. */
export function endpointProblem(agent: ModelAgent): string | undefined {
  if (agent.endpoint === undefined) return undefined;
  if (!agent.preset) {
    return "`endpoint` points a preset's CLI at another model API; a plain `run` reaches whatever it likes: put its host in `network.allow` and its URL in `env`";
  }
  if (agent.preset === 'copilot' && !agent.provider) {
    return 'Copilot CLI talks to another endpoint only in its bring-your-own-key mode: set `provider` (openai, azure or anthropic) too';
  }
  if (agent.preset === 'aider' && !aiderRoute(agent.model)) {
    return 'Conveyor points Aider at an endpoint for `anthropic/…` and `openai/…` models (an OpenAI-compatible server takes `openai/<model>`); give `model` such a prefix';
  }
  return undefined;
}

/** The credentials a preset's CLI reads (any one of them is enough), in its bring-your-own-key mode where `provider` says so. */
export function presetCredentials(preset: PresetName, provider?: CopilotProvider): string[] {
  if (preset === 'copilot' && provider) return ['COPILOT_PROVIDER_API_KEY'];
  return [...PRESETS[preset].credentials];
}

/** The hosts a preset's CLI must reach; Copilot offline reaches only its provider (its endpoint's host, added by the compiler). */
export function presetHosts(preset: PresetName, provider?: CopilotProvider): string[] {
  if (preset === 'copilot' && provider) return [];
  return [...PRESETS[preset].hosts];
}

/** The host of the endpoint the agent's sandbox must reach beside its preset's: a configured one, or a provider's own. */
export function endpointHost(agent: ModelAgent): string | undefined {
  const url = agent.endpoint ?? (agent.preset === 'copilot' ? modelApiOf(agent)?.endpoint : undefined);
  return url ? new URL(url).hostname.replace(/^\[(.*)\]$/, '$1').toLowerCase() : undefined;
}

/** A loopback host: a model server on this machine, reached in the clear without crossing a network. */
export function isLoopbackHost(host: string): boolean {
  const h = host.replace(/^\[(.*)\]$/, '$1').toLowerCase();
  return h === 'localhost' || h === '::1' || /^127(\.\d{1,3}){3}$/.test(h);
}
