import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { UsageError } from '../../core/errors.ts';
import { detectRepository, loadConfigFile, readConfigText, repositoryOfUrl } from '../../cli/config-file.ts';
import { git, removeDir, tempDir } from '../helpers/repos.ts';

const dir = tempDir('conveyor-config-file-');
afterAll(() => removeDir(dir));

describe('readConfigText', () => {
  it('reads a file', () => {
    writeFileSync(join(dir, 'c.yml'), 'version: 1\n');
    expect(readConfigText(join(dir, 'c.yml'))).toBe('version: 1\n');
  });

  it('turns a missing file or a folder into a UsageError naming the path', () => {
    const missing = join(dir, 'missing.yml');
    expect(() => readConfigText(missing)).toThrow(UsageError);
    expect(() => readConfigText(missing)).toThrow(`no configuration file at ${missing}`);
    mkdirSync(join(dir, 'folder'));
    expect(() => readConfigText(join(dir, 'folder'))).toThrow(/folder is not a file/);
  });

  it('loads with errors carrying the path as given', () => {
    writeFileSync(join(dir, 'bad.yml'), 'version: 2\nservices: {}\npipelines: {}\n');
    const r = loadConfigFile(join(dir, 'bad.yml'));
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.errors[0]).toMatchObject({ file: join(dir, 'bad.yml'), line: 1, path: 'version' });
  });
});

describe('repositoryOfUrl', () => {
  it.each([
    ['https://github.com/acme/web.git', 'acme/web'],
    ['https://github.com/acme/web', 'acme/web'],
    ['git@github.com:acme/web.git', 'acme/web'],
    ['ssh://git@ghe.example.com:2222/acme/web.git', 'acme/web'],
    ['file:///tmp/remotes/acme/web.git', 'acme/web'],
    ['https://github.com/acme/my.repo/', 'acme/my.repo'],
  ])('%s -> %s', (url, repo) => {
    expect(repositoryOfUrl(url)).toBe(repo);
  });

  it('gives undefined for a URL without owner/name', () => {
    expect(repositoryOfUrl('web')).toBeUndefined();
  });
});

describe('detectRepository', () => {
  it('reads the origin remote of the repository holding the file, and nothing outside one', async () => {
    const repo = join(dir, 'repo');
    mkdirSync(join(repo, '.github'), { recursive: true });
    expect(await detectRepository(join(repo, '.github/conveyor.yml'))).toBeUndefined();
    git(repo, 'init', '-q');
    expect(await detectRepository(join(repo, '.github/conveyor.yml'))).toBeUndefined();
    git(repo, 'remote', 'add', 'origin', 'https://github.com/acme/app.git');
    expect(await detectRepository(join(repo, '.github/conveyor.yml'))).toBe('acme/app');
  });
});
