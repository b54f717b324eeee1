// A repository's full name, `owner/name`, as every boundary takes it (the configuration's service
// `repo`, a payload's repositories, `--repo`). The embedded mode makes it a folder under
// `--remotes`, so `.` and `..` are refused as either part: GitHub allows neither.
export const REPO_NAME = /^(?!\.{1,2}\/)[A-Za-z0-9_.-]+\/(?!\.{1,2}$)[A-Za-z0-9_.-]+$/;

export function isRepoName(text: string): boolean {
  return REPO_NAME.test(text);
}
