// `conveyor pr RUN`: the embedded mode's pull requests of a run as the local forge keeps them (what
// GitHub's PR page would show): each one's title and body, the reviews the review steps posted on
// it (state, body, comments on lines), and its diff.
import type { Command } from 'commander';
import { openLocalForge } from '../../adapters/forge/local.ts';
import { UsageError } from '../../core/errors.ts';
import type { Review } from '../../engine/ports/forge.ts';
import { say } from '../../lib/terminal.ts';
import { DEFAULT_STATE, loadRun, runOptions } from '../embedded.ts';
import { action, EXIT } from '../program.ts';

const STATE_WORDS: Record<Review['state'], string> = {
  COMMENTED: 'comment',
  CHANGES_REQUESTED: 'changes requested',
  APPROVED: 'approved',
  DISMISSED: 'dismissed',
  PENDING: 'pending',
};

const indent = (text: string, by: string): string =>
  text
    .split('\n')
    .map((l) => (l ? `${by}${l}` : l))
    .join('\n');

/** A review as text: its state, then its body (without Conveyor's marker) and its comments, indented. */
export function renderReview(r: Review): string {
  const head = `  review ${r.id} (${STATE_WORDS[r.state]}${r.commit ? ` on ${r.commit.slice(0, 12)}` : ''}) by ${r.author}${r.dismissal ? `: ${r.dismissal}` : ''}`;
  const body = r.body.replace(/^<!--[^\n]*-->\n?/, '').trim();
  const comments = (r.comments ?? []).map((c) => `    ${c.path}:${c.line}  ${c.body.replace(/\s*\n\s*/g, ' ')}`);
  return [head, ...(body ? [indent(body, '    ')] : []), ...comments].join('\n');
}

export function register(program: Command): void {
  program
    .command('pr')
    .description("Show a run's pull requests in the local forge: their titles, bodies, reviews (with their comments on lines) and diffs")
    .argument('<run>', 'run id')
    .option('--state <db>', 'state database', DEFAULT_STATE)
    .option('--remotes <dir>', 'folder of bare repositories (default: as the run was started)')
    .option('--json', 'print JSON', false)
    .option('--no-diff', 'leave the diffs out')
    .action(
      action(async (runId: string, o: { state: string; remotes?: string; json: boolean; diff: boolean }) => {
        const run = await loadRun(o.state, runId);
        const remotes = o.remotes ?? runOptions(run).remotes;
        // A folder that moved since the run (or a mistyped --remotes) is the user's to fix, not a crash.
        const forge = await openLocalForge(remotes).catch((e: unknown) => {
          throw new UsageError(`--remotes ${remotes}: ${e instanceof Error ? e.message : String(e)}`);
        });
        try {
          const pulls = [];
          for (const ref of run.prs) {
            const pr = await forge.getPullRequest(ref.repo, ref.number);
            pulls.push({ ...pr, reviews: await forge.listReviews(ref.repo, ref.number), ...(o.diff ? { diff: await forge.pullRequestDiff(pr) } : {}) });
          }
          if (o.json) {
            say(JSON.stringify(pulls, null, 2));
            return EXIT.ok;
          }
          if (pulls.length === 0) say(`Run ${runId} has no pull request.`);
          for (const pr of pulls) {
            say(`${pr.repo}#${pr.number} (${pr.state}) ${pr.branch} -> ${pr.base}  ${pr.url}`);
            say(`  ${pr.title}`);
            // Its body as GitHub would show its text (Conveyor's markers left out), then its reviews and its diff.
            const body = pr.body.replace(/^[ \t]*<!--[^\n]*-->[ \t]*\n?/gm, '').trim();
            if (body) say(indent(body, '    '));
            say(pr.reviews.length === 0 ? '  no review' : pr.reviews.map(renderReview).join('\n\n'));
            if (pr.diff !== undefined) say(pr.diff.trim() ? indent(pr.diff.trimEnd(), '    ') : '  no difference from its base');
          }
          return EXIT.ok;
        } finally {
          forge.close();
        }
      }),
    );
}
