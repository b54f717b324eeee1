import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import importX from 'eslint-plugin-import-x';

// The layers (README, "Developing"): dependencies run one way, from the hosts down to the pure core.
// Each zone names a folder and the folders it must not import.
const HOSTS = ['app', 'cli', 'action/src'];
const BELOW_HOSTS = ['adapters', 'engine', 'lib', 'core'];
// core's topics, each importing only those after it in this list (the base files at core's root last).
const CORE_TOPICS = ['github', 'prompts', 'steps', 'run', 'contract', 'plan', 'config'];

const zones = (() => [
  // No host imports another host.
  ...HOSTS.map((target) => ({
    target: `./${target}`,
    from: HOSTS.filter((h) => h !== target).map((h) => `./${h}`),
    message: 'A host never imports another host.',
  })),
  // Nothing below the hosts imports a host, nor a layer above its own.
  ...BELOW_HOSTS.map((target, i) => ({
    target: `./${target}`,
    from: [...HOSTS, ...BELOW_HOSTS.slice(0, i)].map((f) => `./${f}`),
    message: `${target}/ sits below ${[...HOSTS, ...BELOW_HOSTS.slice(0, i)].join(', ')}: it must not import them.`,
  })),
  // Within core, each topic imports only the topics below it.
  ...CORE_TOPICS.map((topic, i) => ({
    target: `./core/${topic}`,
    from: CORE_TOPICS.slice(0, i).map((t) => `./core/${t}`),
    message: `core/${topic} must not import ${CORE_TOPICS.slice(0, i).join(', ')} (core's topics depend one way).`,
  })),
  // core's base files (errors, canonical JSON, graph walks, names, shell quoting) import no topic.
  { target: './core/*.ts', from: CORE_TOPICS.map((t) => `./core/${t}`), message: "core's base files import none of its topics." },
])().filter((z) => z.from.length > 0);

export default tseslint.config(
  { ignores: ['node_modules/**', 'action/dist/**', 'coverage/**', '.conveyor/**', 'examples/demo/repos/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      globals: {
        process: 'readonly',
        console: 'readonly',
        URL: 'readonly',
        setTimeout: 'readonly',
        clearTimeout: 'readonly',
        Buffer: 'readonly',
        fetch: 'readonly',
        setInterval: 'readonly',
        clearInterval: 'readonly',
        AbortController: 'readonly',
        performance: 'readonly',
      },
    },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
      'no-console': 'off',
    },
  },
  {
    files: ['**/*.ts'],
    plugins: { 'import-x': importX },
    settings: {
      'import-x/resolver': { node: { extensions: ['.ts', '.js', '.mjs'] } },
      'import-x/extensions': ['.ts', '.js', '.mjs'],
      'import-x/parsers': { '@typescript-eslint/parser': ['.ts'] },
    },
    rules: {
      'import-x/no-restricted-paths': ['error', { zones }],
      'import-x/no-cycle': ['error', { ignoreExternal: true }],
    },
  },
  {
    // core is pure: no file system, processes, network or databases.
    files: ['core/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [
            'node:fs',
            'node:fs/promises',
            'node:child_process',
            'node:net',
            'node:http',
            'node:https',
            'better-sqlite3',
            'simple-git',
            'probot',
            '@octokit/rest',
            '@actions/core',
            '@actions/exec',
          ].map((name) => ({
            name,
            message: 'core/ is pure: I/O belongs in lib/, the adapters or a host.',
          })),
        },
      ],
    },
  },
);
