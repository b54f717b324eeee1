// `owner/name` at every boundary: GitHub's characters, and never `.` or `..` as a part (the
// embedded mode makes the name a folder under --remotes).
import { describe, expect, it } from 'vitest';
import { isRepoName } from '../../core/repo-name.ts';

describe('repository names', () => {
  it.each(['acme/web', 'acme/.github', 'a-b_c.d/e.f-g_h', 'acme/..web', '.acme/web'])('takes %s', (name) => {
    expect(isRepoName(name)).toBe(true);
  });

  it.each(['../web', '../..', 'acme/..', 'acme/.', './web', 'acme', 'acme/web/x', 'acme/', '/web', 'acme web/x', 'https://github.com/acme/web', ''])(
    'refuses %j',
    (name) => {
      expect(isRepoName(name)).toBe(false);
    },
  );
});
