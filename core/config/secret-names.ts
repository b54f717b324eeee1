// Which variables may be passed to a command by name (`agents.<name>.secrets`,
// `services.<name>.secrets`). A GitHub token never is: the app gives each step attempt a token
// that Conveyor keeps to itself (git, the check run), and the workflow's own token can write to
// the repository; a command that held either could push around every rule the pipeline enforces.

/** A variable name as a shell and GitHub Actions' `env:` accept it. */
export const VARIABLE_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

const GITHUB_TOKEN_NAMES = new Set([
  'GITHUB_TOKEN',
  'GH_TOKEN',
  'GH_ENTERPRISE_TOKEN',
  'GITHUB_ENTERPRISE_TOKEN',
  'INPUT_TOKEN',
  'CONVEYOR_TOKEN',
  'CONVEYOR_GIT_TOKEN',
]);

/** A name that holds (or names the way to) a GitHub token on a runner: never passed to a command. */
export function isGitHubTokenName(name: string): boolean {
  const upper = name.toUpperCase();
  return GITHUB_TOKEN_NAMES.has(upper) || /^ACTIONS_.*TOKEN/.test(upper);
}

/** Why `name` cannot be listed in `secrets`, or undefined when it can. */
export function secretNameProblem(name: string): string | undefined {
  if (isGitHubTokenName(name)) {
    return `"${name}" holds a GitHub token, which Conveyor never passes to a command: each step works with its own short-lived installation token, kept out of every agent, gate and deploy; remove it (a CLI that needs GitHub, such as Copilot's, reads a token of its own, e.g. COPILOT_GITHUB_TOKEN)`;
  }
  if (/^CONVEYOR_/i.test(name)) return `"${name}" is one of Conveyor's own variables, which it sets itself; remove it`;
  return undefined;
}
