import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { formatConfigError, loadConfig } from '../../../core/config/load.ts';
import type { ConfigError } from '../../../core/config/load.ts';

const validDir = join(import.meta.dirname, '../../fixtures/configs/valid');
const valid = readdirSync(validDir)
  .filter((f) => f.endsWith('.yml'))
  .sort();

/** `LINE:COL` of the first `needle` on 1-based line `line` of `text`, counted here independently. */
const at = (text: string, line: number, needle: string): string => {
  const col = text.split(/\r?\n/)[line - 1]!.indexOf(needle);
  if (col < 0) throw new Error(`"${needle}" is not on line ${line}`);
  return `${line}:${col + 1}`;
};

const errorsOf = (text: string, file = 'conveyor.yml'): ConfigError[] => {
  const r = loadConfig(text, file);
  if (r.ok) throw new Error('expected errors, the configuration was accepted');
  return r.errors;
};

describe('loadConfig on valid files', () => {
  it('has the DESIGN.md example and at least 3 other valid files', () => {
    expect(valid).toContain('design.yml');
    expect(valid.length).toBeGreaterThanOrEqual(4);
  });

  it.each(valid)('accepts %s', (name) => {
    const r = loadConfig(readFileSync(join(validDir, name), 'utf8'), name);
    expect(r.ok ? [] : r.errors.map(formatConfigError)).toEqual([]);
  });

  it('reads the DESIGN.md example into the model as written', () => {
    const r = loadConfig(readFileSync(join(validDir, 'design.yml'), 'utf8'), 'design.yml');
    if (!r.ok) throw new Error(r.errors.map(formatConfigError).join('\n'));
    const { config } = r;
    expect(Object.keys(config.agents ?? {})).toEqual(['coder', 'reviewer']);
    expect(config.services.api).toEqual({ repo: 'acme/api', path: 'services/api', deploy: { run: 'make preview' } });
    expect(config.services.docs?.deploy).toBe('none');
    const pipeline = config.pipelines.default!;
    expect(pipeline.steps.map((s) => `${s.id}:${s.kind}`)).toEqual([
      'implement:code',
      'test:gate',
      'review:review',
      'preview:deploy',
      'approve:approval',
      'ship:merge',
    ]);
    expect(pipeline.steps[1]).toEqual({ id: 'test', kind: 'gate', run: 'npm test', repair: { agent: 'coder', 'max-attempts': 2 } });
  });

  it('follows anchors, aliases and merge keys', () => {
    const r = loadConfig(readFileSync(join(validDir, 'anchors.yml'), 'utf8'), 'anchors.yml');
    if (!r.ok) throw new Error(r.errors.map(formatConfigError).join('\n'));
    expect(r.config.agents?.fixer).toEqual({ run: './code.sh', 'timeout-minutes': 30, model: 'local/fixer' });
    expect(r.config.pipelines.default!.steps[2]).toEqual({
      id: 'test',
      kind: 'gate',
      run: 'npm test',
      needs: ['code'],
      repair: { agent: 'fixer', 'max-attempts': 3 },
    });
  });
});

describe('loadConfig errors', () => {
  it('gives file, 1-based line and column, key path and message', () => {
    const text = ['version: 1', 'services: { web: {} }', 'pipelines:', '  default:', '    steps:', '      - { id: a, kind: merge, needs: [b] }', ''].join('\n');
    expect(at(text, 6, 'b]')).toBe('6:39');
    expect(errorsOf(text, '.github/conveyor.yml')).toEqual([
      { file: '.github/conveyor.yml', line: 6, column: 39, path: 'pipelines.default.steps[0].needs[0]', message: 'unknown step "b"; known: a' },
    ]);
  });

  it('formats an error as FILE:LINE:COL key.path: message', () => {
    expect(formatConfigError({ file: 'c.yml', line: 3, column: 7, path: 'services.web.repo', message: 'must be "owner/name"' })).toBe(
      'c.yml:3:7 services.web.repo: must be "owner/name"',
    );
    expect(formatConfigError({ file: 'c.yml', line: 1, column: 1, path: '', message: 'the file is empty' })).toBe('c.yml:1:1: the file is empty');
  });

  it('reports a YAML syntax error at its position', () => {
    const errors = errorsOf('version: 1\nservices:\n  web: { repo: "acme/web }\n');
    expect(errors).toHaveLength(1);
    // The parser notices the missing quote where the text ends, inside the value it was reading.
    expect(errors[0]).toMatchObject({ line: 4, column: 1, path: 'services.web.repo' });
    expect(errors[0]!.message).toMatch(/^invalid YAML: Missing closing "quote/);
  });

  it('reports a duplicate key at the second occurrence', () => {
    const errors = errorsOf('version: 1\nversion: 1\nservices: {}\n');
    expect(errors).toEqual([
      {
        file: 'conveyor.yml',
        line: 2,
        column: 1,
        path: 'version',
        message: 'duplicate key "version": a key may appear only once in a mapping; merge the two entries',
      },
    ]);
  });

  it('reports every error of a file, schema and cross-reference alike, in file order', () => {
    const text = [
      'version: 1',
      'agents: { coder: { run: ./code.sh, timeout: 5 } }',
      'services:',
      '  web: { repo: acme, depends-on: [ap] }',
      '  api: {}',
      'pipelines:',
      '  default:',
      '    service: web',
      '    steps:',
      '      - { id: build, kind: code, agent: coderr }',
      '      - { id: test, kind: gat, run: make test }',
      '      - { id: ship, kind: merge, needs: [tests] }',
      '',
    ].join('\n');
    expect(errorsOf(text).map((e) => `${e.line}:${e.column} ${e.path}: ${e.message}`)).toEqual([
      `${at(text, 2, 'timeout')} agents.coder.timeout: unknown key "timeout"; did you mean "timeout-minutes"?`,
      `${at(text, 4, 'acme')} services.web.repo: must be "owner/name", e.g. acme/web, got a string ("acme")`,
      `${at(text, 4, 'ap]')} services.web.depends-on[0]: unknown service "ap"; did you mean "api"?`,
      `${at(text, 10, 'coderr')} pipelines.default.steps[0].agent: unknown agent "coderr"; did you mean "coder"?`,
      `${at(text, 11, 'gat')} pipelines.default.steps[1].kind: unknown step kind "gat"; did you mean "gate"?`,
      `${at(text, 12, 'tests')} pipelines.default.steps[2].needs[0]: unknown step "tests"; did you mean "test"?`,
    ]);
  });

  it('suggests close names for keys, kinds, agents, services and steps', () => {
    const text = [
      'version: 1',
      'agents: { reviewer: { run: ./r.sh } }',
      'services:',
      '  web: { dependsOn: [] }',
      'pipelines:',
      '  default:',
      '    steps:',
      '      - { id: check, kind: reveiw, agent: reviewer }',
      '      - { id: look, kind: review, agent: reveiwer, need: [check] }',
      '',
    ].join('\n');
    expect(errorsOf(text).map((e) => e.message)).toEqual([
      'unknown key "dependsOn"; did you mean "depends-on"?',
      'unknown step kind "reveiw"; did you mean "review"?',
      'unknown agent "reveiwer"; did you mean "reviewer"?',
      'unknown key "need" in a review step; did you mean "needs"?',
    ]);
  });

  it('lists what would do when no name is close', () => {
    const text = 'version: 1\nservices: { web: {} }\npipelines:\n  default:\n    steps: [{ id: x, kind: build }]\nfoo: 1\n';
    expect(errorsOf(text).map((e) => e.message)).toEqual([
      'unknown step kind "build"; expected one of: code, gate, review, deploy, approval, merge',
      'unknown key "foo"; expected one of: version, agents, services, pipelines',
    ]);
  });

  it('points at the object that lacks a required key', () => {
    const text =
      'version: 1\nagents: { coder: { run: ./c.sh } }\nservices: { web: {} }\npipelines:\n  default:\n    steps:\n      - id: build\n        kind: code\n';
    expect(at(text, 7, 'id: build')).toBe('7:9');
    expect(errorsOf(text)).toEqual([
      { file: 'conveyor.yml', line: 7, column: 9, path: 'pipelines.default.steps[0].agent', message: 'missing key "agent": name one of the agents: coder' },
    ]);
  });

  it('counts lines the same with Windows line endings', () => {
    const text = 'version: 1\r\nservices:\r\n  web: { repo: nope }\r\npipelines: {}\r\n';
    expect(errorsOf(text).map((e) => `${e.line}:${e.column} ${e.path}`)).toEqual(['3:16 services.web.repo', '4:12 pipelines']);
  });

  it('points into a merged mapping at the key written in this file', () => {
    const text = [
      'version: 1',
      'services: { web: {} }',
      'pipelines:',
      '  default:',
      '    steps:',
      '      - &base { id: a, kind: merge }',
      '      - { <<: *base, id: b, method: fast }',
      '',
    ].join('\n');
    expect(errorsOf(text).map((e) => `${e.line}:${e.column} ${e.path}: ${e.message}`)).toEqual([
      `${at(text, 7, 'fast')} pipelines.default.steps[1].method: must be one of "merge", "squash", "rebase", got a string ("fast")`,
    ]);
  });

  it('refuses an alias bomb instead of expanding it', () => {
    const lines = ['a0: &a0 [x, x, x, x, x, x, x, x, x, x]'];
    for (let i = 1; i < 8; i++) lines.push(`a${i}: &a${i} [${Array.from({ length: 10 }, () => `*a${i - 1}`).join(', ')}]`);
    const errors = errorsOf(`${lines.join('\n')}\n`);
    expect(errors).toHaveLength(1);
    expect(errors[0]!.message).toMatch(/^invalid YAML: .*alias/i);
  });
});
