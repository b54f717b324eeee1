// GitHub's workflow artifacts as the TranscriptStore (transcript.ts), through @actions/artifact: the
// results service a JavaScript action reaches with the runner's ACTIONS_RUNTIME_TOKEN at
// ACTIONS_RESULTS_URL (no `permissions:` needed), linked as GitHub's page of the artifact.
// The library reads those variables from process.env itself: `env` here must be the same runner's.
import { dirname } from 'node:path';
import { z } from 'zod';
import type { TranscriptStore } from './transcript.ts';

const retentionDays = z.coerce.number().int().min(1);

/**
 * The store on GitHub's runners (GITHUB_ACTIONS=true); none elsewhere, where the transcript stays a
 * file as it is. A runner that gives the action no artifact runtime, or a bad
 * `transcript-retention-days` (the action input, '' for the repository's setting), gets a store
 * that says so for every transcript instead of keeping it.
 */
export function artifactTranscriptStore(env: NodeJS.ProcessEnv, retentionInput = ''): TranscriptStore | undefined {
  if (env.GITHUB_ACTIONS !== 'true') return undefined;
  const refuse = (why: string): TranscriptStore => ({
    kind: 'workflow artifact',
    keep: () => Promise.reject(new Error(why)),
  });
  if (!env.ACTIONS_RUNTIME_TOKEN || !env.ACTIONS_RESULTS_URL) {
    return refuse('this runner gives the action no artifact runtime (ACTIONS_RUNTIME_TOKEN and ACTIONS_RESULTS_URL are not set)');
  }
  if (!env.GITHUB_REPOSITORY || !env.GITHUB_RUN_ID) return refuse('GITHUB_REPOSITORY and GITHUB_RUN_ID are needed to link the artifact');
  let days: number | undefined;
  if (retentionInput.trim()) {
    const parsed = retentionDays.safeParse(retentionInput.trim());
    if (!parsed.success) {
      return refuse(`the action input \`transcript-retention-days\` must be a whole number of days, 1 or more, not "${retentionInput}"`);
    }
    days = parsed.data;
  }
  const server = (env.GITHUB_SERVER_URL || 'https://github.com').replace(/\/+$/, '');
  const runUrl = `${server}/${env.GITHUB_REPOSITORY}/actions/runs/${env.GITHUB_RUN_ID}`;
  return {
    kind: 'workflow artifact',
    async keep(name, path) {
      // Loaded only when a transcript is kept: the embedded mode and steps without an agent never pay for it.
      const { DefaultArtifactClient } = await import('@actions/artifact');
      // Zipped (the library's default, which every artifact backend takes): transcripts of JSON
      // events compress well, and the file keeps its name inside.
      const { id } = await new DefaultArtifactClient().uploadArtifact(name, [path], dirname(path), days ? { retentionDays: days } : {});
      if (id === undefined) throw new Error(`GitHub gave no id for the artifact ${name}, so it cannot be linked`);
      return { url: `${runUrl}/artifacts/${id}` };
    },
  };
}
