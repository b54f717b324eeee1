// What a base branch requires on GitHub, and its merge queue. The rules come from the rules API
// (`GET /repos/{owner}/{repo}/rules/branches/{branch}`: every active ruleset's rules for that
// branch, readable with the metadata permission every app has): a `merge_queue` rule means only
// the queue may merge, a `required_status_checks` rule with `strict_required_status_checks_policy`
// means a PR must be up to date with the branch. Classic branch protection's "up to date" is not
// read (that needs the Administration permission): GitHub shows it as the PR's `mergeable_state`
// `behind`, which the merge policy reads. Enqueueing is GraphQL's `enqueuePullRequest`, pinned
// to the approved head (`expectedHeadOid`): GitHub refuses it if the head moved. Dequeueing (a
// cancelled run) is `dequeuePullRequest`, whose input is `id` (the PR's node id), not `pullRequestId`.
import { z } from 'zod';
import { ConveyorError } from '../../../core/errors.ts';
import { graphqlRefusal } from '../errors.ts';
import { MergeRefused, splitRepo, type BranchRules, type MergeQueue, type PullRequest } from '../../../engine/ports/forge.ts';
import type { GitHubOctokit } from '../octokit.ts';
import { repoParams } from './api.ts';

const rules = z.array(z.looseObject({ type: z.string(), parameters: z.looseObject({}).nullish() }));
const statusChecks = z.looseObject({ strict_required_status_checks_policy: z.boolean().optional() });
const compared = z.looseObject({ behind_by: z.number() });
const enqueued = z.looseObject({ enqueuePullRequest: z.looseObject({ mergeQueueEntry: z.looseObject({ state: z.string().optional() }).nullish() }).nullish() });
const held = z.looseObject({
  repository: z.looseObject({ pullRequest: z.looseObject({ mergeQueueEntry: z.looseObject({ state: z.string().optional() }).nullish() }).nullish() }).nullish(),
});

const ENQUEUE =
  'mutation($id: ID!, $head: GitObjectID) { enqueuePullRequest(input: { pullRequestId: $id, expectedHeadOid: $head }) { mergeQueueEntry { state } } }';
const DEQUEUE = 'mutation($id: ID!) { dequeuePullRequest(input: { id: $id }) { mergeQueueEntry { state } } }';
const HELD =
  'query($owner: String!, $name: String!, $number: Int!) { repository(owner: $owner, name: $name) { pullRequest(number: $number) { mergeQueueEntry { state } } } }';

/** An answer GitHub gave that is not what its API documents: said so, naming the call. */
function parsed<T>(schema: z.ZodType<T>, data: unknown, what: string): T {
  const r = schema.safeParse(data);
  if (!r.success)
    throw new ConveyorError('forge-failed', `GitHub's answer to ${what} is not what its API documents: ${r.error.issues[0]?.message ?? 'unreadable'}`);
  return r.data;
}

export class GitHubMergeQueue implements MergeQueue {
  constructor(private readonly octokit: GitHubOctokit) {}

  async branchRules(repo: string, branch: string): Promise<BranchRules> {
    const data = await this.octokit.paginate(this.octokit.rest.repos.getBranchRules, { ...repoParams(repo), branch, per_page: 100 });
    const list = parsed(rules, data, `the rules of ${repo}:${branch}`);
    return {
      mergeQueue: list.some((r) => r.type === 'merge_queue'),
      upToDate: list.some(
        (r) => r.type === 'required_status_checks' && statusChecks.safeParse(r.parameters ?? {}).data?.strict_required_status_checks_policy === true,
      ),
    };
  }

  async commitsBehind(repo: string, base: string, head: string): Promise<number> {
    const { data } = await this.octokit.rest.repos.compareCommitsWithBasehead({ ...repoParams(repo), basehead: `${base}...${head}`, per_page: 1 });
    return parsed(compared, data, `comparing ${head.slice(0, 7)} with ${base} in ${repo}`).behind_by;
  }

  async enqueue(pr: Pick<PullRequest, 'repo' | 'number' | 'nodeId'>, expectedHead: string): Promise<void> {
    const id = pr.nodeId ?? (await this.octokit.rest.pulls.get({ ...repoParams(pr.repo), pull_number: pr.number })).data.node_id;
    try {
      parsed(enqueued, await this.octokit.graphql(ENQUEUE, { id, head: expectedHead }), `enqueueing ${pr.repo}#${pr.number}`);
    } catch (e) {
      // GraphQL says why in its errors (the head moved, the PR is not mergeable, no queue is required).
      throw new MergeRefused(`(GraphQL enqueuePullRequest) ${graphqlRefusal(e)}`, false);
    }
  }

  async dequeue(pr: Pick<PullRequest, 'repo' | 'number' | 'nodeId'>): Promise<boolean> {
    const id = pr.nodeId ?? (await this.octokit.rest.pulls.get({ ...repoParams(pr.repo), pull_number: pr.number })).data.node_id;
    try {
      await this.octokit.graphql(DEQUEUE, { id });
      return true;
    } catch (e) {
      // GitHub refuses to dequeue what its queue no longer holds (it merged, the queue removed it), in
      // words it does not document, and has been seen to refuse one it did remove: the queue is asked.
      const refused = `(GraphQL dequeuePullRequest) ${graphqlRefusal(e)}`;
      const still = await this.holds(pr.repo, pr.number).catch(() => undefined);
      if (still === false) return false;
      throw new MergeRefused(still === undefined ? `${refused}; whether it is still queued could not be read` : refused, false);
    }
  }

  async holds(repo: string, number: number): Promise<boolean> {
    const { owner, name } = splitRepo(repo);
    const data = parsed(held, await this.octokit.graphql(HELD, { owner, name, number }), `the merge queue entry of ${repo}#${number}`);
    return Boolean(data.repository?.pullRequest?.mergeQueueEntry);
  }
}
