import { createRequire as __conveyorCreateRequire } from 'node:module'; const require = __conveyorCreateRequire(import.meta.url);
import {
  DEPLOYMENT_DESCRIPTION_MAX,
  PR_TITLE_MAX,
  REVIEW_BODY_MAX,
  fitComment,
  fitText,
  repoParams
} from "./chunk-RJ72IU5G.js";
import {
  MergeRefused,
  ReviewRefused,
  external_exports,
  splitRepo
} from "./chunk-ZQDVONEP.js";
import {
  GitHubApiError,
  createGitHubOctokit,
  graphqlRefusal,
  unlessAbsent
} from "./chunk-GBXMUY2I.js";
import {
  ConveyorError
} from "./chunk-DJRTUKIR.js";
import "./chunk-YEZRHRCQ.js";
import "./chunk-SD7663DA.js";

// adapters/github/forge/deployments.ts
var Deployments = class {
  constructor(octokit) {
    this.octokit = octokit;
  }
  octokit;
  async create(request) {
    const { data, status } = await this.octokit.rest.repos.createDeployment({
      ...repoParams(request.repo),
      ref: request.ref,
      environment: request.environment,
      description: request.description.slice(0, DEPLOYMENT_DESCRIPTION_MAX),
      transient_environment: request.transient,
      production_environment: false,
      // A preview is not a release: no merging of the base into the ref, no required statuses.
      auto_merge: false,
      required_contexts: []
    });
    const answer = data;
    const id = answer.id;
    if (status !== 201 || typeof id !== "number") {
      const message = typeof answer.message === "string" ? answer.message : "no deployment id in the answer";
      throw new GitHubApiError(
        status,
        "POST /repos/{owner}/{repo}/deployments",
        `${message} (no deployment of ${request.repo}@${request.ref.slice(0, 12)} was created)`,
        false
      );
    }
    return { id };
  }
  async setStatus(repo, id, status) {
    await this.octokit.rest.repos.createDeploymentStatus({
      ...repoParams(repo),
      deployment_id: id,
      state: status.state,
      ...status.environmentUrl ? { environment_url: status.environmentUrl } : {},
      ...status.description ? { description: status.description.slice(0, DEPLOYMENT_DESCRIPTION_MAX) } : {}
    });
  }
};

// adapters/github/forge/git-data.ts
var REFUSED = /* @__PURE__ */ new Set([409, 422]);
var TOO_LARGE = /too large|too big/i;
var GitHubGitData = class {
  constructor(octokit) {
    this.octokit = octokit;
  }
  octokit;
  async createBlob(repo, content) {
    try {
      const { data } = await this.octokit.rest.git.createBlob({ ...repoParams(repo), content: content.toString("base64"), encoding: "base64" });
      return data.sha;
    } catch (e) {
      if (e instanceof GitHubApiError && (e.status === 413 || e.status === 422 && TOO_LARGE.test(e.githubMessage))) {
        throw new ConveyorError("change-too-large", `GitHub refused a file of ${content.length} bytes in ${repo} (HTTP ${e.status}): ${e.githubMessage}`, {
          cause: e
        });
      }
      throw e;
    }
  }
  async createTree(repo, base, entries) {
    const tree = entries.map((e) => ({
      path: e.path,
      mode: e.mode,
      type: e.mode === "160000" ? "commit" : "blob",
      ..."content" in e ? { content: e.content } : { sha: e.sha }
    }));
    const { data } = await this.octokit.rest.git.createTree({ ...repoParams(repo), base_tree: base, tree });
    return data.sha;
  }
  async createCommit(repo, commit) {
    const { data } = await this.octokit.rest.git.createCommit({
      ...repoParams(repo),
      message: commit.message,
      tree: commit.tree,
      parents: [...commit.parents]
    });
    const verification = data.verification;
    return { sha: data.sha, verified: verification?.verified === true, ...verification?.reason ? { reason: verification.reason } : {} };
  }
  async createBranch(repo, branch, sha) {
    return this.refusalOf(repo, branch, sha, () => this.octokit.rest.git.createRef({ ...repoParams(repo), ref: `refs/heads/${branch}`, sha }));
  }
  async advanceBranch(repo, branch, sha) {
    return this.refusalOf(repo, branch, sha, () => this.octokit.rest.git.updateRef({ ...repoParams(repo), ref: `heads/${branch}`, sha, force: false }));
  }
  async moveBranch(repo, branch, sha, expected) {
    const at = (await unlessAbsent(this.octokit.rest.git.getRef({ ...repoParams(repo), ref: `heads/${branch}` })))?.data.object.sha;
    if (at === sha) return { updated: true };
    if (at !== expected) return { updated: false, message: `the branch is ${at ? `at ${at.slice(0, 12)}` : "gone"}, not at ${expected.slice(0, 12)}` };
    return this.refusalOf(repo, branch, sha, () => this.octokit.rest.git.updateRef({ ...repoParams(repo), ref: `heads/${branch}`, sha, force: true }));
  }
  /** Runs a branch update; a refusal counts only when the branch is not at `sha` after all. */
  async refusalOf(repo, branch, sha, update) {
    try {
      await update();
      return { updated: true };
    } catch (e) {
      if (!(e instanceof GitHubApiError && e.status !== void 0 && REFUSED.has(e.status))) throw e;
      const now = await unlessAbsent(this.octokit.rest.git.getRef({ ...repoParams(repo), ref: `heads/${branch}` }));
      if (now?.data.object.sha === sha) return { updated: true };
      return { updated: false, message: `${e.githubMessage} (HTTP ${e.status}; the branch is ${now ? `at ${now.data.object.sha.slice(0, 12)}` : "gone"})` };
    }
  }
};

// adapters/github/forge/ci.ts
var JOB_LOG_MAX = 1048576;
var GitHubCi = class {
  constructor(octokit) {
    this.octokit = octokit;
  }
  octokit;
  async requiredChecks(repo, branch) {
    const out = [];
    const answer = await unlessAbsent(this.octokit.rest.repos.getBranch({ ...repoParams(repo), branch }));
    const protection = answer?.data.protection?.required_status_checks;
    const withApp = /* @__PURE__ */ new Set();
    for (const c of protection?.checks ?? []) {
      out.push({ context: c.context, ...typeof c.app_id === "number" ? { appId: c.app_id } : {} });
      withApp.add(c.context);
    }
    for (const context of protection?.contexts ?? []) if (!withApp.has(context)) out.push({ context });
    const rules2 = await unlessAbsent(this.octokit.paginate(this.octokit.rest.repos.getBranchRules, { ...repoParams(repo), branch, per_page: 100 }));
    for (const rule of rules2 ?? []) {
      if (rule.type !== "required_status_checks") continue;
      const checks = rule.parameters?.required_status_checks;
      for (const c of checks ?? []) out.push({ context: c.context, ...typeof c.integration_id === "number" ? { appId: c.integration_id } : {} });
    }
    return out;
  }
  async commitChecks(repo, sha) {
    const runs = await this.octokit.paginate(this.octokit.rest.checks.listForRef, { ...repoParams(repo), ref: sha, filter: "latest", per_page: 100 });
    const checkRuns = runs.map((c) => ({
      id: c.id,
      name: c.name,
      status: c.status,
      conclusion: c.conclusion ?? null,
      ...c.app?.id !== void 0 ? { appId: c.app.id } : {},
      ...c.app?.slug ? { appSlug: c.app.slug } : {},
      ...c.html_url ? { url: c.html_url } : {},
      ...c.output?.title ? { title: c.output.title } : {},
      ...c.output?.summary ? { summary: c.output.summary } : {}
    }));
    const listed = await this.octokit.paginate(this.octokit.rest.repos.listCommitStatusesForRef, { ...repoParams(repo), ref: sha, per_page: 100 });
    const statuses = [];
    for (const s of listed) {
      if (statuses.some((x) => x.context === s.context)) continue;
      statuses.push({
        context: s.context,
        state: s.state,
        ...s.description ? { description: s.description } : {},
        ...s.target_url ? { url: s.target_url } : {}
      });
    }
    return { checkRuns, statuses };
  }
  async jobLog(repo, jobId) {
    const answer = await unlessAbsent(this.octokit.rest.actions.downloadJobLogsForWorkflowRun({ ...repoParams(repo), job_id: jobId }));
    const data = answer?.data;
    const text = typeof data === "string" ? data : data instanceof ArrayBuffer ? Buffer.from(data).toString("utf8") : void 0;
    if (text === void 0) return void 0;
    return text.length > JOB_LOG_MAX ? text.slice(-JOB_LOG_MAX) : text;
  }
};

// adapters/github/forge/pulls.ts
function toPullRequest(repo, p) {
  const mergeable = "mergeable" in p ? p.mergeable : void 0;
  const mergeableState = "mergeable_state" in p ? p.mergeable_state : void 0;
  const merged = Boolean("merged" in p && p.merged || p.merged_at);
  return {
    repo,
    number: p.number,
    url: p.html_url,
    branch: p.head.ref,
    head: p.head.sha,
    base: p.base.ref,
    title: p.title,
    body: p.body ?? "",
    state: merged ? "merged" : p.state === "open" ? "open" : "closed",
    ...merged && p.merge_commit_sha ? { mergeCommit: p.merge_commit_sha } : {},
    ...mergeable !== void 0 ? { mergeable } : {},
    ...mergeableState !== void 0 ? { mergeableState } : {},
    ...p.draft !== void 0 ? { draft: p.draft } : {},
    ...p.node_id ? { nodeId: p.node_id } : {}
  };
}
var REVERT_PULL_REQUEST = `mutation($input: RevertPullRequestInput!) {
  revertPullRequest(input: $input) {
    revertPullRequest { id number url headRefName headRefOid baseRefName title body state merged isDraft }
  }
}`;
var revertAnswer = external_exports.object({
  revertPullRequest: external_exports.object({
    revertPullRequest: external_exports.object({
      id: external_exports.string(),
      number: external_exports.number().int().positive(),
      url: external_exports.string(),
      headRefName: external_exports.string(),
      headRefOid: external_exports.string(),
      baseRefName: external_exports.string(),
      title: external_exports.string(),
      body: external_exports.string(),
      state: external_exports.enum(["OPEN", "CLOSED", "MERGED"]),
      merged: external_exports.boolean(),
      isDraft: external_exports.boolean()
    })
  })
});
var revertBranch = (number, branch) => `revert-${number}-${branch}`;
var Pulls = class {
  constructor(octokit) {
    this.octokit = octokit;
  }
  octokit;
  async find(repo, branch) {
    const { owner } = splitRepo(repo);
    const { data } = await this.octokit.rest.pulls.list({ ...repoParams(repo), head: `${owner}:${branch}`, state: "open", per_page: 10 });
    const found = data.find((p) => p.head.ref === branch);
    return found ? toPullRequest(repo, found) : void 0;
  }
  async open(pr, how = {}) {
    const { data } = await this.octokit.rest.pulls.create({
      ...repoParams(pr.repo),
      head: pr.branch,
      base: pr.base,
      title: pr.title.slice(0, PR_TITLE_MAX),
      body: fitComment(pr.body),
      ...how.draft ? { draft: true } : {}
    });
    return toPullRequest(pr.repo, data);
  }
  /**
   * The run's draft pull request, opened as the run starts so that its check runs live on it from
   * the first step: an empty commit on the base's head (its tree, the head as parent) through the
   * Git data API, the work branch at it, and a draft PR. A work branch that exists already (a
   * restart on the same branch) is kept as it is, and its open PR taken when there is one.
   */
  async openDraft(pr) {
    const at = repoParams(pr.repo);
    const commit = await this.octokit.rest.git.createCommit({ ...at, message: pr.message, tree: pr.baseCommit.tree, parents: [pr.baseCommit.sha] });
    try {
      await this.octokit.rest.git.createRef({ ...at, ref: `refs/heads/${pr.branch}`, sha: commit.data.sha });
    } catch (e) {
      if (!(e instanceof GitHubApiError && e.status === 422)) throw e;
      const open = await this.find(pr.repo, pr.branch);
      if (open) return open;
    }
    return this.open(pr, { draft: true });
  }
  /** GraphQL's markPullRequestReadyForReview: REST cannot turn a draft into a PR ready to merge. */
  async markReadyForReview(pr) {
    const id = pr.nodeId ?? (await this.get(pr.repo, pr.number)).nodeId;
    if (!id) throw new Error(`${pr.repo}#${pr.number} has no GraphQL id to mark it ready for review`);
    await this.octokit.graphql("mutation($id: ID!) { markPullRequestReadyForReview(input: { pullRequestId: $id }) { pullRequest { isDraft } } }", { id });
  }
  /**
   * GraphQL's revertPullRequest (REST has no revert): GitHub makes the revert commit on a new branch
   * of its own naming and opens the PR, so the app runs no git. Its answer is checked (zod) before
   * it becomes a PullRequest; a refusal (not merged, a revert that does not apply) is a
   * ConveyorError `forge-failed` naming the PR and GitHub's words. GitHub opens another revert PR
   * each time it is asked: a revert PR already open on its branch (`revert-<number>-<branch>`:
   * the command given again after a failure past this point, a delivery GitHub made again) is
   * answered instead.
   */
  async revert(repo, number, pr) {
    const original = await this.get(repo, number);
    const open = await this.find(repo, revertBranch(number, original.branch));
    if (open) return open;
    if (!original.nodeId) throw new ConveyorError("forge-failed", `${repo}#${number} has no GraphQL id to revert it by`);
    let answer;
    try {
      answer = await this.octokit.graphql(REVERT_PULL_REQUEST, {
        input: { pullRequestId: original.nodeId, title: pr.title.slice(0, PR_TITLE_MAX), body: fitComment(pr.body), draft: false }
      });
    } catch (e) {
      if (e instanceof GitHubApiError) throw e;
      throw new ConveyorError("forge-failed", `GitHub did not revert ${repo}#${number}: ${graphqlRefusal(e)}`, { cause: e });
    }
    const parsed2 = revertAnswer.safeParse(answer);
    if (!parsed2.success)
      throw new ConveyorError("forge-failed", `GitHub's answer to reverting ${repo}#${number} is not a pull request: ${external_exports.prettifyError(parsed2.error)}`);
    const p = parsed2.data.revertPullRequest.revertPullRequest;
    return {
      repo,
      number: p.number,
      url: p.url,
      branch: p.headRefName,
      head: p.headRefOid,
      base: p.baseRefName,
      title: p.title,
      body: p.body,
      state: p.merged ? "merged" : p.state === "OPEN" ? "open" : "closed",
      draft: p.isDraft,
      nodeId: p.id
    };
  }
  async update(repo, number, change) {
    const fitted = {
      ...change.title !== void 0 ? { title: change.title.slice(0, PR_TITLE_MAX) } : {},
      ...change.body !== void 0 ? { body: fitComment(change.body) } : {}
    };
    const { data } = await this.octokit.rest.pulls.update({ ...repoParams(repo), pull_number: number, ...fitted });
    return toPullRequest(repo, data);
  }
  /** Opens a closed PR again; GitHub refuses (422, saying why) when its head branch is gone. */
  async reopen(repo, number) {
    await this.octokit.rest.pulls.update({ ...repoParams(repo), pull_number: number, state: "open" });
  }
  /** With its mergeability (`mergeable: null` while GitHub computes it). */
  async get(repo, number) {
    const { data } = await this.octokit.rest.pulls.get({ ...repoParams(repo), pull_number: number });
    return toPullRequest(repo, data);
  }
  /**
   * A PR's body alone, read as its issue's: a read of the PR itself (get) has GitHub start computing
   * its mergeability, which a body does not need.
   */
  async body(repo, number) {
    const { data } = await this.octokit.rest.issues.get({ ...repoParams(repo), issue_number: number });
    return data.body ?? "";
  }
  async list(repo, options) {
    const { owner } = splitRepo(repo);
    const out = [];
    for (const branch of options.branches) {
      const pulls = await this.octokit.paginate(this.octokit.rest.pulls.list, {
        ...repoParams(repo),
        head: `${owner}:${branch}`,
        state: options.state ?? "all",
        per_page: 100
      });
      for (const p of pulls) if (p.head.ref === branch) out.push(toPullRequest(repo, p));
    }
    return out.sort((a, b) => a.number - b.number);
  }
  /**
   * Not retried on a server error or a lost answer (`retries: 0`): a merge GitHub did whose answer
   * was lost must be judged again (read), not sent twice. A refusal is a GitHubApiError with its status.
   */
  async merge(repo, number, options) {
    try {
      const { data } = await this.octokit.rest.pulls.merge({
        ...repoParams(repo),
        pull_number: number,
        merge_method: options.method,
        commit_title: options.title,
        ...options.message !== void 0 ? { commit_message: options.message } : {},
        ...options.expectedHead ? { sha: options.expectedHead } : {},
        request: { retries: 0 }
      });
      return { merged: data.merged, sha: data.sha, ...!data.merged && data.message ? { message: data.message } : {} };
    } catch (e) {
      if (e instanceof GitHubApiError && (e.status === 405 || e.status === 409)) throw new MergeRefused(`(HTTP ${e.status}) ${e.githubMessage}`, true);
      throw e;
    }
  }
  /** A review's inline comments (the first 100: what feedback keeps), each with its file and line. */
  async reviewComments(repo, number, reviewId) {
    const { data } = await this.octokit.rest.pulls.listCommentsForReview({ ...repoParams(repo), pull_number: number, review_id: reviewId, per_page: 100 });
    return data.map((c) => {
      const line = c.line ?? c.original_line ?? void 0;
      return { path: c.path, ...typeof line === "number" ? { line } : {}, body: c.body };
    });
  }
};

// adapters/github/forge/queue.ts
var rules = external_exports.array(external_exports.looseObject({ type: external_exports.string(), parameters: external_exports.looseObject({}).nullish() }));
var statusChecks = external_exports.looseObject({ strict_required_status_checks_policy: external_exports.boolean().optional() });
var compared = external_exports.looseObject({ behind_by: external_exports.number() });
var enqueued = external_exports.looseObject({ enqueuePullRequest: external_exports.looseObject({ mergeQueueEntry: external_exports.looseObject({ state: external_exports.string().optional() }).nullish() }).nullish() });
var held = external_exports.looseObject({
  repository: external_exports.looseObject({ pullRequest: external_exports.looseObject({ mergeQueueEntry: external_exports.looseObject({ state: external_exports.string().optional() }).nullish() }).nullish() }).nullish()
});
var ENQUEUE = "mutation($id: ID!, $head: GitObjectID) { enqueuePullRequest(input: { pullRequestId: $id, expectedHeadOid: $head }) { mergeQueueEntry { state } } }";
var DEQUEUE = "mutation($id: ID!) { dequeuePullRequest(input: { id: $id }) { mergeQueueEntry { state } } }";
var HELD = "query($owner: String!, $name: String!, $number: Int!) { repository(owner: $owner, name: $name) { pullRequest(number: $number) { mergeQueueEntry { state } } } }";
function parsed(schema, data, what) {
  const r = schema.safeParse(data);
  if (!r.success)
    throw new ConveyorError("forge-failed", `GitHub's answer to ${what} is not what its API documents: ${r.error.issues[0]?.message ?? "unreadable"}`);
  return r.data;
}
var GitHubMergeQueue = class {
  constructor(octokit) {
    this.octokit = octokit;
  }
  octokit;
  async branchRules(repo, branch) {
    const data = await this.octokit.paginate(this.octokit.rest.repos.getBranchRules, { ...repoParams(repo), branch, per_page: 100 });
    const list = parsed(rules, data, `the rules of ${repo}:${branch}`);
    return {
      mergeQueue: list.some((r) => r.type === "merge_queue"),
      upToDate: list.some(
        (r) => r.type === "required_status_checks" && statusChecks.safeParse(r.parameters ?? {}).data?.strict_required_status_checks_policy === true
      )
    };
  }
  async commitsBehind(repo, base, head) {
    const { data } = await this.octokit.rest.repos.compareCommitsWithBasehead({ ...repoParams(repo), basehead: `${base}...${head}`, per_page: 1 });
    return parsed(compared, data, `comparing ${head.slice(0, 7)} with ${base} in ${repo}`).behind_by;
  }
  async enqueue(pr, expectedHead) {
    const id = pr.nodeId ?? (await this.octokit.rest.pulls.get({ ...repoParams(pr.repo), pull_number: pr.number })).data.node_id;
    try {
      parsed(enqueued, await this.octokit.graphql(ENQUEUE, { id, head: expectedHead }), `enqueueing ${pr.repo}#${pr.number}`);
    } catch (e) {
      throw new MergeRefused(`(GraphQL enqueuePullRequest) ${graphqlRefusal(e)}`, false);
    }
  }
  async dequeue(pr) {
    const id = pr.nodeId ?? (await this.octokit.rest.pulls.get({ ...repoParams(pr.repo), pull_number: pr.number })).data.node_id;
    try {
      await this.octokit.graphql(DEQUEUE, { id });
      return true;
    } catch (e) {
      const refused = `(GraphQL dequeuePullRequest) ${graphqlRefusal(e)}`;
      const still = await this.holds(pr.repo, pr.number).catch(() => void 0);
      if (still === false) return false;
      throw new MergeRefused(still === void 0 ? `${refused}; whether it is still queued could not be read` : refused, false);
    }
  }
  async holds(repo, number) {
    const { owner, name } = splitRepo(repo);
    const data = parsed(held, await this.octokit.graphql(HELD, { owner, name, number }), `the merge queue entry of ${repo}#${number}`);
    return Boolean(data.repository?.pullRequest?.mergeQueueEntry);
  }
};

// adapters/github/forge/reviews.ts
var STATES = ["COMMENTED", "CHANGES_REQUESTED", "APPROVED", "DISMISSED", "PENDING"];
function toReview(r) {
  const state = STATES.find((s) => s === r.state) ?? "COMMENTED";
  return { id: r.id, url: r.html_url, state, body: r.body ?? "", author: r.user?.login ?? "", ...r.commit_id ? { commit: r.commit_id } : {} };
}
var fit = (body) => fitText(body, REVIEW_BODY_MAX, "the whole review is in the step's check run");
var Reviews = class {
  constructor(octokit) {
    this.octokit = octokit;
  }
  octokit;
  async create(request) {
    try {
      const { data } = await this.octokit.rest.pulls.createReview({
        ...repoParams(request.repo),
        pull_number: request.number,
        commit_id: request.commit,
        event: request.event,
        body: fit(request.body),
        comments: request.comments.map((c) => ({ path: c.path, line: c.line, side: "RIGHT", body: fit(c.body) }))
      });
      return toReview(data);
    } catch (e) {
      if (e instanceof GitHubApiError && e.status === 422) {
        if (/own pull request/i.test(e.githubMessage)) throw new ReviewRefused(e.githubMessage, "own-pull-request");
        if (request.comments.length > 0) throw new ReviewRefused(e.githubMessage, "lines");
      }
      throw e;
    }
  }
  async list(repo, number) {
    const reviews = await this.octokit.paginate(this.octokit.rest.pulls.listReviews, { ...repoParams(repo), pull_number: number, per_page: 100 });
    return reviews.map(toReview);
  }
  async dismiss(repo, number, id, message) {
    await this.octokit.rest.pulls.dismissReview({ ...repoParams(repo), pull_number: number, review_id: id, message, event: "DISMISS" });
  }
  async edit(repo, number, id, body) {
    await this.octokit.rest.pulls.updateReview({ ...repoParams(repo), pull_number: number, review_id: id, body: fit(body) });
  }
};

// adapters/github/forge/forge.ts
function octokitOf(source) {
  return "octokit" in source ? source.octokit : createGitHubOctokit(source);
}
var GitHubForge = class {
  pulls;
  deployments;
  reviews;
  gitData;
  ci;
  mergeQueue;
  constructor(source) {
    const octokit = octokitOf(source);
    this.pulls = new Pulls(octokit);
    this.deployments = new Deployments(octokit);
    this.reviews = new Reviews(octokit);
    this.gitData = new GitHubGitData(octokit);
    this.ci = new GitHubCi(octokit);
    this.mergeQueue = new GitHubMergeQueue(octokit);
  }
  branchRules(repo, branch) {
    return this.mergeQueue.branchRules(repo, branch);
  }
  commitsBehind(repo, base, head) {
    return this.mergeQueue.commitsBehind(repo, base, head);
  }
  findPullRequest(repo, branch) {
    return this.pulls.find(repo, branch);
  }
  openPullRequest(pr) {
    return this.pulls.open(pr);
  }
  updatePullRequest(repo, number, change) {
    return this.pulls.update(repo, number, change);
  }
  getPullRequest(repo, number) {
    return this.pulls.get(repo, number);
  }
  listPullRequests(repo, options) {
    return this.pulls.list(repo, options);
  }
  mergePullRequest(repo, number, options) {
    return this.pulls.merge(repo, number, options);
  }
  revertPullRequest(repo, number, pr) {
    return this.pulls.revert(repo, number, pr);
  }
  markReadyForReview(pr) {
    return this.pulls.markReadyForReview(pr);
  }
  createReview(request) {
    return this.reviews.create(request);
  }
  listReviews(repo, number) {
    return this.reviews.list(repo, number);
  }
  dismissReview(repo, number, id, message) {
    return this.reviews.dismiss(repo, number, id, message);
  }
  editReview(repo, number, id, body) {
    return this.reviews.edit(repo, number, id, body);
  }
  createDeployment(request) {
    return this.deployments.create(request);
  }
  setDeploymentStatus(repo, id, status) {
    return this.deployments.setStatus(repo, id, status);
  }
};
export {
  GitHubForge,
  octokitOf
};
//# sourceMappingURL=forge-KJ4N4A35.js.map
