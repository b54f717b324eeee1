// `pipelines.<name>.protect`: the paths whose changes a person must see before they merge. The
// default holds what an agent could use to change the rules that judge it or the next agent: CI
// and repository settings (`.github/`), who must review (CODEOWNERS), what agents read as their
// instructions or tools, and what gets installed and run (dependency manifests and lock files).
// Files an agent reads at any depth (instruction files, manifests of a monorepo's packages) are
// protected wherever they are.

export const DEFAULT_PROTECT: readonly string[] = [
  // CI, repository settings, Conveyor's own configuration, and two of CODEOWNERS' three places.
  '.github/**',
  'CODEOWNERS',
  'docs/CODEOWNERS',
  '.gitlab-ci.yml',
  // Agent instructions and tools: what the next agent run reads and may execute.
  '**/AGENTS.md',
  '**/CLAUDE.md',
  '**/GEMINI.md',
  '.mcp.json',
  '.claude/**',
  '.gemini/**',
  '.cursor/**',
  '.cursorrules',
  '.windsurfrules',
  '.codex/**',
  '.vscode/mcp.json',
  // Dependency manifests and lock files, and the package managers' own settings (registries).
  '**/package.json',
  '**/package-lock.json',
  '**/npm-shrinkwrap.json',
  '**/yarn.lock',
  '**/.yarnrc.yml',
  '**/pnpm-lock.yaml',
  '**/pnpm-workspace.yaml',
  '**/bun.lock',
  '**/bun.lockb',
  '**/.npmrc',
  '**/requirements*.txt',
  '**/constraints*.txt',
  '**/pyproject.toml',
  '**/poetry.lock',
  '**/uv.lock',
  '**/Pipfile',
  '**/Pipfile.lock',
  '**/setup.py',
  '**/setup.cfg',
  '**/Cargo.toml',
  '**/Cargo.lock',
  '**/go.mod',
  '**/go.sum',
  '**/go.work',
  '**/Gemfile',
  '**/Gemfile.lock',
  '**/*.gemspec',
  '**/composer.json',
  '**/composer.lock',
  '**/pom.xml',
  '**/build.gradle',
  '**/build.gradle.kts',
  '**/settings.gradle',
  '**/settings.gradle.kts',
  '**/gradle.lockfile',
  '**/gradle/wrapper/gradle-wrapper.properties',
  '**/*.csproj',
  '**/packages.lock.json',
  '**/Directory.Packages.props',
  '**/mix.exs',
  '**/mix.lock',
  '**/Package.swift',
  '**/Package.resolved',
  '**/Podfile',
  '**/Podfile.lock',
  '**/pubspec.yaml',
  '**/pubspec.lock',
  '**/flake.nix',
  '**/flake.lock',
];

/** The patterns a plan protects: its own list where the pipeline wrote one, else the default. */
export function protectOf(plan: { protect?: readonly string[] }): readonly string[] {
  return plan.protect ?? DEFAULT_PROTECT;
}
