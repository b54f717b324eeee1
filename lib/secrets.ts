// Keeping the runner's secrets away from user commands and out of everything we print. The token
// and every secret-looking variable are dropped from the environment of agents, gates and git (a
// command gets a secret only by name: `secrets` of its agent or service, added back by the step);
// any text we show (logs, summaries, findings, transcripts) passes through a Scrubber first.

/** Names of variables that hold secrets on a runner (or look like they do): model vendors' API keys too. */
const SECRET_NAME = /TOKEN|SECRET|PASSWORD|PRIVATE_KEY|CREDENTIAL|API_?KEY|ACCESS_KEY/i;
const ALWAYS_DROP = new Set(['GITHUB_TOKEN', 'INPUT_TOKEN', 'CONVEYOR_TOKEN', 'CONVEYOR_GIT_TOKEN']);
/**
 * The step process's own files (its payload, its result, the deploy progress it appends): a user
 * command that wrote to them could forge what the engine reads back, so none of them gets these.
 */
const STEP_PROCESS_ONLY = new Set([
  'CONVEYOR_PAYLOAD_PATH',
  'CONVEYOR_RESULT_PATH',
  'CONVEYOR_PROGRESS_PATH',
  'CONVEYOR_TRANSCRIPT_PATH',
  'CONVEYOR_MASKS_PATH',
  'CONVEYOR_ATTEMPTS_DIR',
  'CONVEYOR_STATE_DB',
]);
/** Secrets shorter than this are not scrubbed from text: they would mangle ordinary words. */
const MIN_SECRET_LENGTH = 6;

export function isSecretName(name: string): boolean {
  return ALWAYS_DROP.has(name) || SECRET_NAME.test(name) || /^ACTIONS_.*TOKEN/i.test(name);
}

export class Scrubber {
  private secrets: string[] = [];

  constructor(secrets: Iterable<string | undefined>) {
    for (const s of secrets) this.add(s);
  }

  /**
   * Scrubs `secret` too from now on (a variable passed to a command by name): whole, as each of its
   * lines (a multi-line key is printed a line at a time), and in the forms a token takes on its way
   * to git (basic auth and base64).
   */
  add(secret: string | undefined): void {
    if (!secret || secret.length < MIN_SECRET_LENGTH) return;
    const all = new Set(this.secrets);
    for (const s of [secret, ...secret.split(/\r?\n/).map((l) => l.trim())]) {
      if (s.length < MIN_SECRET_LENGTH) continue;
      all.add(s);
      all.add(Buffer.from(`x-access-token:${s}`).toString('base64'));
      all.add(Buffer.from(s).toString('base64'));
    }
    // Longest first, so a secret that contains another is replaced whole.
    this.secrets = [...all].sort((a, b) => b.length - a.length);
  }

  /** Every secret held by the runner: the token plus the values of secret-named variables. */
  static fromEnvironment(env: NodeJS.ProcessEnv, token: string | undefined): Scrubber {
    const values = Object.entries(env)
      .filter(([k]) => isSecretName(k))
      .map(([, v]) => v);
    return new Scrubber([token, ...values]);
  }

  get values(): readonly string[] {
    return this.secrets;
  }

  scrub(text: string): string {
    let out = text;
    for (const s of this.secrets) if (out.includes(s)) out = out.split(s).join('***');
    return out;
  }

  /** True when the value carries any secret: such a variable is dropped whatever its name. */
  carriesSecret(value: string): boolean {
    return this.secrets.some((s) => value.includes(s));
  }
}

/**
 * The environment for a user command or git: the runner's, without any secret by name or by
 * value, without the variables passed only by name (`byName`: the `secrets` of the step's agents
 * and services) and without the step process's own files, plus `extra` (the contract variables,
 * the agent's own `env`, which the user chose, and the secrets this command is given).
 */
export function commandEnvironment(
  base: NodeJS.ProcessEnv,
  scrubber: Scrubber,
  extra: Record<string, string> = {},
  byName: ReadonlySet<string> = new Set(),
): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(base)) {
    if (v === undefined || STEP_PROCESS_ONLY.has(k) || byName.has(k) || isSecretName(k) || scrubber.carriesSecret(v)) continue;
    env[k] = v;
  }
  return { ...env, ...extra };
}
