import { createRequire as __conveyorCreateRequire } from 'node:module'; const require = __conveyorCreateRequire(import.meta.url);
import {
  MergeRefused,
  splitRepo
} from "./chunk-BDDCTM4D.js";
import {
  GitHubApiError,
  createGitHubOctokit,
  unlessAbsent
} from "./chunk-E3NFZRE2.js";

// core/hidden-html.ts
var CONTAINER = /^(?:>|[-+*](?=[ \t]|$)|\d{1,9}[.)](?=[ \t]|$)|\[\^[^\]\s]*\]:)/;
var FENCE = /^(`{3,}|~{3,})(.*)$/;
var KIND_1 = /^<(?:pre|script|style|textarea)(?:[ \t>]|$)/i;
var KIND_1_END = /<\/(?:pre|script|style|textarea)>/i;
var KIND_6 = /^<\/?(?:address|article|aside|base|basefont|blockquote|body|caption|center|col|colgroup|dd|details|dialog|dir|div|dl|dt|fieldset|figcaption|figure|footer|form|frame|frameset|h[1-6]|head|header|hr|html|iframe|legend|li|link|main|menu|menuitem|nav|noframes|ol|optgroup|option|p|param|search|section|summary|table|tbody|td|tfoot|th|thead|title|tr|track|ul)(?:[ \t>]|\/>|$)/i;
var ATTRIBUTE = `[ \\t]+[A-Za-z_:][A-Za-z0-9_.:-]*(?:[ \\t]*=[ \\t]*(?:[^ \\t"'=<>\`]+|'[^']*'|"[^"]*"))?`;
var KIND_7 = new RegExp(
  `^(?:<(?!(?:pre|script|style|textarea)\\b)[A-Za-z][A-Za-z0-9-]*(?:${ATTRIBUTE})*[ \\t]*/?>|</[A-Za-z][A-Za-z0-9-]*[ \\t]*>)[ \\t]*$`,
  "i"
);
var MAX_STATES = 16;
function hiddenFormAt(text, i) {
  if (text[i] !== "<") return void 0;
  if (text[i + 1] === "?") return "instruction";
  if (text[i + 1] !== "!") return void 0;
  if (text.startsWith("--", i + 2)) return "comment";
  if (text.startsWith("[CDATA[", i + 2)) return "cdata";
  return /[A-Za-z]/.test(text[i + 2] ?? "") ? "declaration" : void 0;
}
function indentation(line) {
  let cols = 0;
  let offset = 0;
  for (; offset < line.length; offset++) {
    if (line[offset] === " ") cols++;
    else if (line[offset] === "	") cols += 4 - cols % 4;
    else break;
  }
  return { cols, offset };
}
function fenceOpening(content) {
  const m = FENCE.exec(content);
  if (!m || m[1][0] === "`" && m[2].includes("`")) return void 0;
  return { char: m[1][0], size: m[1].length };
}
var LIST_FENCE = /^ {0,3}(?:(?:[-+*]|\d{1,9}[.)]) {1,4}(?! ))+(?=`{3}|~{3})/;
function hiddenHtmlRanges(text) {
  const n = text.length;
  const lines = [];
  for (let start = 0; ; ) {
    const nl = text.indexOf("\n", start);
    lines.push({ start, end: nl < 0 ? n : nl });
    if (nl < 0) break;
    start = nl + 1;
  }
  const lineText = (li) => text.slice(lines[li].start, lines[li].end);
  const isBlank = (li) => /^[ \t]*$/.test(lineText(li));
  const lineOf = (pos) => {
    let lo = 0;
    let hi = lines.length - 1;
    while (lo < hi) {
      const mid = lo + hi + 1 >> 1;
      if (lines[mid].start <= pos) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  };
  const found = /* @__PURE__ */ new Map();
  const find = (needle, from) => {
    const last = found.get(needle);
    if (last && last.from <= from && (last.at === -1 || last.at >= from)) return last.at;
    const at = text.indexOf(needle, from);
    found.set(needle, { from, at });
    return at;
  };
  const endOf = (needle, from) => {
    const at = find(needle, from);
    return at < 0 ? -1 : at + needle.length;
  };
  const quoted = (li) => /^(?:[ \t]*(?:>|[-+*](?=[ \t]|$)|\d{1,9}[.)](?=[ \t]|$)))*/.exec(lineText(li))[0].length;
  let gt = { from: -1, at: -1 };
  const gtEnd = (from) => {
    if (gt.from >= 0 && gt.from <= from && (gt.at === -1 || gt.at >= from)) return gt.at < 0 ? -1 : gt.at + 1;
    let at = text.indexOf(">", from);
    while (at >= 0 && at - lines[lineOf(at)].start < quoted(lineOf(at))) at = text.indexOf(">", at + 1);
    gt = { from, at };
    return at < 0 ? -1 : at + 1;
  };
  const closeOf = (form, i) => form === "comment" ? endOf("-->", i + 2) : form === "instruction" ? endOf("?>", i + 2) : form === "declaration" ? gtEnd(i + 2) : endOf("]]>", i + 9);
  const browserEnd = (i) => {
    const at = gtEnd(i + 2);
    return at < 0 ? n : at;
  };
  const remainders = [];
  const remainderEnd = (i) => {
    if (remainders.length > 8) remainders.splice(0, remainders.length, ...remainders.filter(([, to]) => to > i));
    let end;
    for (const [from, to] of remainders) if (from <= i && i < to) end = end === void 0 ? to : Math.min(end, to);
    return end;
  };
  const regions = [];
  let reach = 0;
  const hide = (form, i, end) => {
    if (end <= i) return;
    regions.push([i, end]);
    reach = Math.max(reach, end);
    if (form === "instruction" || form === "cdata") {
      const gt2 = browserEnd(i);
      if (gt2 < end) {
        const last = remainders.at(-1);
        if (last && last[1] === end) last[0] = Math.min(last[0], gt2);
        else remainders.push([gt2, end]);
      }
    }
  };
  const endUnder = (rule, form, i) => {
    if (form === "comment") {
      const close2 = closeOf(form, i);
      let end = close2 < 0 ? n : close2;
      if (rule.kind === "raw" && end > rule.extent) end = n;
      if (rule.kind === "loose" && end > rule.lineEnd) end = n;
      const remainder = remainderEnd(i);
      return remainder !== void 0 && end > remainder ? n : end;
    }
    if (rule.kind === "paragraph") {
      const close2 = closeOf(form, i);
      return close2 < 0 ? i : close2;
    }
    if (rule.kind === "raw") return browserEnd(i);
    const close = closeOf(form, i);
    return close >= 0 && close <= rule.lineEnd ? Math.max(close, browserEnd(i)) : browserEnd(i);
  };
  const nextBlank = new Array(lines.length + 1);
  const nextEndTag = new Array(lines.length + 1);
  nextBlank[lines.length] = lines.length;
  nextEndTag[lines.length] = lines.length;
  for (let li = lines.length - 1; li >= 0; li--) {
    nextBlank[li] = isBlank(li) ? li : nextBlank[li + 1];
    nextEndTag[li] = KIND_1_END.test(lineText(li)) ? li : nextEndTag[li + 1];
  }
  const blockTo = (last, base) => ({ ...base, mode: "html", last, extent: lines[last].end, para: "none", container: false });
  function topLevel(s, li, cols, offset) {
    const { start, end } = lines[li];
    const at = start + offset;
    const content = text.slice(at, end);
    const base = { ...s, mode: "normal", blank: false };
    const paragraph = (para, container = s.container && !(cols <= 1 && s.blank)) => ({
      state: { ...base, para, container },
      segments: [{ from: start, to: end, rule: { kind: "paragraph" } }]
    });
    if (cols >= 4) return [paragraph(s.para === "open" ? "open" : "unknown", s.container)];
    const fence2 = fenceOpening(content);
    if (fence2)
      return [
        {
          state: { ...base, mode: "fence", fence: { ...fence2, column: 0, exact: true }, para: "none", container: false },
          segments: [{ from: start, to: end, rule: "code" }]
        }
      ];
    const form = hiddenFormAt(text, at);
    if (form === "comment") {
      const close = endOf("-->", at + 2);
      const last = close < 0 ? lines.length - 1 : lineOf(close - 1);
      const skipTo = close < 0 ? n : close;
      hide(form, at, skipTo);
      return [
        {
          state: last === li ? { ...base, para: "none", container: false } : { ...base, mode: "comment", last, skipTo, para: "none", container: false },
          segments: last === li ? [{ from: skipTo, to: end, rule: { kind: "raw", extent: end } }] : []
        }
      ];
    }
    if (form) {
      const close = form === "instruction" ? endOf("?>", at + 1) : form === "declaration" ? endOf(">", at + 2) : endOf("]]>", at + 9);
      const last = close < 0 ? lines.length - 1 : lineOf(close - 1);
      const state = blockTo(last, base);
      const outcome = { state: last === li ? { ...base, para: "none", container: false } : state, segments: [] };
      outcome.segments.push({ from: at + 1, to: end, rule: { kind: "raw", extent: state.extent } });
      hide(form, at, close < 0 ? n : close);
      return [outcome];
    }
    const html = (last) => {
      const state = blockTo(last, base);
      return {
        state: last === li ? { ...base, para: "none", container: false } : state,
        segments: [{ from: start, to: end, rule: { kind: "raw", extent: state.extent } }]
      };
    };
    if (KIND_1.test(content)) return [html(nextEndTag[li] < lines.length ? nextEndTag[li] : lines.length - 1)];
    if (KIND_6.test(content)) return [html(nextBlank[li + 1] - 1)];
    if (KIND_7.test(content)) {
      if (s.para === "open") return [paragraph("open")];
      if (s.para === "none") return [html(nextBlank[li + 1] - 1)];
      return [paragraph("unknown"), html(nextBlank[li + 1] - 1)];
    }
    if (/^#{1,6}(?:[ \t]|$)/.test(content)) return [paragraph("none", false)];
    return [paragraph(/^[-=_*]/.test(content) || content.includes("|") ? "unknown" : "open")];
  }
  function advance(s, li) {
    const { start, end } = lines[li];
    const line = text.slice(start, end);
    const loose = (state) => ({ state, segments: [{ from: start, to: end, rule: { kind: "loose", lineEnd: end } }] });
    if (s.mode === "lost") return [loose(s)];
    if (s.mode === "fence") {
      const fence2 = s.fence;
      const code = (state) => ({ state, segments: [{ from: start, to: end, rule: "code" }] });
      const after = { mode: "normal", para: fence2.column ? "unknown" : "none", container: fence2.column > 0, blank: false };
      if (/^[ \t]*$/.test(line)) return [code(s)];
      const { cols: cols2, offset: offset2 } = indentation(line);
      if (cols2 < fence2.column) {
        const ended = advance(after, li);
        return fence2.exact || cols2 < fence2.column - 3 ? ended : [code(s), ...ended];
      }
      const closing = new RegExp(`^\\${fence2.char}{${fence2.size},}[ \\t]*$`);
      if (cols2 > fence2.column + 3 || !closing.test(line.slice(offset2))) return [code(s)];
      return fence2.exact || cols2 === fence2.column ? [code(after)] : [code(after), code(s)];
    }
    if (s.mode === "html" || s.mode === "comment") {
      const done = { mode: "normal", para: "none", container: false, blank: false };
      if (s.mode === "comment" && li < s.last) return [{ state: s, segments: [] }];
      const from = s.mode === "comment" ? s.skipTo : start;
      const extent = s.mode === "comment" ? end : s.extent;
      return [{ state: li === s.last ? done : s, segments: [{ from, to: end, rule: { kind: "raw", extent } }] }];
    }
    if (/^[ \t]*$/.test(line)) return [{ state: { ...s, para: "none", blank: true }, segments: [] }];
    const { cols, offset } = indentation(line);
    const content = line.slice(offset);
    if (cols <= 3 && CONTAINER.test(content)) {
      const opened = !line.includes("	") && LIST_FENCE.exec(line);
      const fence2 = opened && fenceOpening(line.slice(opened[0].length));
      if (!opened || !fence2) return [loose({ ...s, para: "unknown", container: true, blank: false })];
      return [
        {
          state: { ...s, mode: "fence", fence: { ...fence2, column: opened[0].length, exact: true }, para: "unknown", container: true, blank: false },
          segments: [{ from: start, to: end, rule: "code" }]
        }
      ];
    }
    if (s.container && cols >= 2) {
      const fence2 = fenceOpening(content);
      const inside = fence2 && cols <= 3 && !line.slice(0, offset).includes("	") ? {
        state: { ...s, mode: "fence", fence: { ...fence2, column: cols, exact: false }, para: "unknown", blank: false },
        segments: [{ from: start, to: end, rule: "code" }]
      } : loose({ ...s, para: "unknown", blank: false });
      const startsBlock = fence2 || hiddenFormAt(text, start + offset) || KIND_1.test(content) || KIND_6.test(content) || KIND_7.test(content);
      return cols <= 3 && startsBlock ? [inside, ...topLevel({ ...s, container: false }, li, cols, offset)] : [inside];
    }
    return topLevel(s, li, cols, offset);
  }
  let states = [{ mode: "normal", para: "none", container: false, blank: true }];
  for (let li = 0; li < lines.length && reach < n; li++) {
    const outcomes = states.flatMap((s) => advance(s, li));
    const segments = outcomes.flatMap((o) => o.segments);
    const { start, end } = lines[li];
    for (let i = text.indexOf("<", start); i >= 0 && i < end; i = text.indexOf("<", i + 1)) {
      const form = hiddenFormAt(text, i);
      if (!form) continue;
      let hiddenTo = i;
      for (const seg of segments) if (seg.rule !== "code" && seg.from <= i && i < seg.to) hiddenTo = Math.max(hiddenTo, endUnder(seg.rule, form, i));
      hide(form, i, hiddenTo);
    }
    const unique = new Map(outcomes.map((o) => [JSON.stringify(o.state), o.state]));
    states = unique.size > MAX_STATES ? [{ mode: "lost", para: "unknown", container: true, blank: false }] : [...unique.values()];
  }
  regions.sort((a, b) => a[0] - b[0]);
  const merged = [];
  for (const [from, to] of regions) {
    const last = merged.at(-1);
    if (last && from <= last[1]) last[1] = Math.max(last[1], to);
    else merged.push([from, to]);
  }
  return merged;
}
function stripHiddenHtml(text) {
  const normal = text.replace(/\r\n?/g, "\n");
  let out = "";
  let at = 0;
  for (const [from, to] of hiddenHtmlRanges(normal)) {
    out += normal.slice(at, from) + normal.slice(from, to).replace(/[^\n]/g, "");
    at = to;
  }
  return out + normal.slice(at);
}

// core/text.ts
function safeLinkTarget(url) {
  if (!url) return void 0;
  let parsed;
  try {
    parsed = new URL(url);
  } catch {
    return void 0;
  }
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:") return void 0;
  return parsed.href.replace(/[()<> ]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}
function fitText(text, max, rest) {
  if (text.length <= max) return text;
  const note = `

\u2026(cut to fit GitHub's limit of ${max} characters; ${rest})`;
  if (note.length >= max) return text.slice(0, max);
  return `${text.slice(0, max - note.length)}${note}`;
}
function sanitizeIssueText(text) {
  return stripHiddenHtml(text).replace(new RegExp("\\p{Cf}", "gu"), "").replace(/[\u034F\u115F\u1160\u3164\uFFA0]/g, "").replace(/[\uFE00-\uFE0F]|[\u{E0100}-\u{E01EF}]/gu, "").replace(/[\u0000-\u0008\u000B-\u001F\u007F-\u009F]/g, "");
}
function fence(text, lang = "text") {
  const longest = Math.max(2, ...[...text.matchAll(/`+/g)].map((m) => m[0].length));
  const ticks = "`".repeat(longest + 1);
  return `${ticks}${lang}
${text}
${ticks}`;
}

// core/github/limits.ts
var COMMENT_MAX = 65536;
var CHECK_OUTPUT_MAX = 65535;
var CHECK_TITLE_MAX = 1e3;
var DEPLOYMENT_DESCRIPTION_MAX = 140;
var PR_TITLE_MAX = 256;
function fitComment(body) {
  return fitText(body, COMMENT_MAX, "the whole text is in the run (`/conveyor status`, `conveyor status`) and the step logs");
}
function fitCheckOutput(output) {
  const title = output.title.length > CHECK_TITLE_MAX ? `${output.title.slice(0, CHECK_TITLE_MAX - 1)}\u2026` : output.title;
  return {
    ...output,
    title,
    summary: fitText(output.summary, CHECK_OUTPUT_MAX, "the whole output is in the step's log (its workflow run)"),
    ...output.text !== void 0 ? { text: fitText(output.text, CHECK_OUTPUT_MAX, "the whole output is in the step's log (its workflow run)") } : {}
  };
}

// adapters/forge/github.ts
function toWorkflowRun(r) {
  return { id: r.id, url: r.html_url, status: r.status ?? "queued", conclusion: r.conclusion ?? null, startedAt: r.run_started_at ?? null };
}
function toPullRequest(repo, p) {
  const merged = Boolean(p.merged || p.merged_at);
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
    // Only a single PR's read has these (a list does not).
    ...p.mergeable !== void 0 ? { mergeable: p.mergeable } : {},
    ...p.mergeable_state !== void 0 ? { mergeableState: p.mergeable_state } : {},
    ...p.draft !== void 0 ? { draft: p.draft } : {},
    ...p.node_id ? { nodeId: p.node_id } : {}
  };
}
function toCheckRun(c) {
  return {
    id: c.id,
    url: c.html_url ?? "",
    status: c.status,
    conclusion: c.conclusion ?? null,
    externalId: c.external_id ?? null,
    detailsUrl: c.details_url ?? null,
    startedAt: c.started_at ?? null,
    output: { summary: c.output?.summary ?? null, text: c.output?.text ?? null }
  };
}
var of = (repo) => {
  const { owner, name } = splitRepo(repo);
  return { owner, repo: name };
};
var GitHubForge = class {
  octokit;
  /** An Octokit of adapters/github/octokit.ts (the app's installation Octokit), or a token for one (the action's). */
  constructor(source) {
    this.octokit = "octokit" in source ? source.octokit : createGitHubOctokit(source);
  }
  // Pull requests (the Forge port).
  async findPullRequest(repo, branch) {
    const { owner } = splitRepo(repo);
    const { data } = await this.octokit.rest.pulls.list({ ...of(repo), head: `${owner}:${branch}`, state: "open", per_page: 10 });
    const found = data.find((p) => p.head.ref === branch);
    return found ? toPullRequest(repo, found) : void 0;
  }
  async openPullRequest(pr, how = {}) {
    const { data } = await this.octokit.rest.pulls.create({
      ...of(pr.repo),
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
  async openDraftPullRequest(pr) {
    const commit = await this.octokit.rest.git.createCommit({ ...of(pr.repo), message: pr.message, tree: pr.baseCommit.tree, parents: [pr.baseCommit.sha] });
    try {
      await this.octokit.rest.git.createRef({ ...of(pr.repo), ref: `refs/heads/${pr.branch}`, sha: commit.data.sha });
    } catch (e) {
      if (!(e instanceof GitHubApiError && e.status === 422)) throw e;
      const open = await this.findPullRequest(pr.repo, pr.branch);
      if (open) return open;
    }
    return this.openPullRequest(pr, { draft: true });
  }
  /** GraphQL's markPullRequestReadyForReview: REST cannot turn a draft into a PR ready to merge. */
  async markReadyForReview(pr) {
    const id = pr.nodeId ?? (await this.getPullRequest(pr.repo, pr.number)).nodeId;
    if (!id) throw new Error(`${pr.repo}#${pr.number} has no GraphQL id to mark it ready for review`);
    await this.octokit.graphql("mutation($id: ID!) { markPullRequestReadyForReview(input: { pullRequestId: $id }) { pullRequest { isDraft } } }", { id });
  }
  async updatePullRequest(repo, number, change) {
    const fitted = {
      ...change.title !== void 0 ? { title: change.title.slice(0, PR_TITLE_MAX) } : {},
      ...change.body !== void 0 ? { body: fitComment(change.body) } : {}
    };
    const { data } = await this.octokit.rest.pulls.update({ ...of(repo), pull_number: number, ...fitted });
    return toPullRequest(repo, data);
  }
  /** Opens a closed PR again; GitHub refuses (422, saying why) when its head branch is gone. */
  async reopenPullRequest(repo, number) {
    await this.octokit.rest.pulls.update({ ...of(repo), pull_number: number, state: "open" });
  }
  /** With its mergeability (`mergeable: null` while GitHub computes it). */
  async getPullRequest(repo, number) {
    const { data } = await this.octokit.rest.pulls.get({ ...of(repo), pull_number: number });
    return toPullRequest(repo, data);
  }
  async listPullRequests(repo, options) {
    const { owner } = splitRepo(repo);
    const out = [];
    for (const branch of options.branches) {
      const pulls = await this.octokit.paginate(this.octokit.rest.pulls.list, {
        ...of(repo),
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
  async mergePullRequest(repo, number, options) {
    try {
      const { data } = await this.octokit.rest.pulls.merge({
        ...of(repo),
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
  // Deployments (the Forge port).
  async createDeployment(request) {
    const { data, status } = await this.octokit.rest.repos.createDeployment({
      ...of(request.repo),
      ref: request.ref,
      environment: request.environment,
      description: request.description.slice(0, DEPLOYMENT_DESCRIPTION_MAX),
      transient_environment: request.transient,
      production_environment: false,
      // A preview is not a release: no merging of the base into the ref, no required statuses.
      auto_merge: false,
      required_contexts: []
    });
    const id = data.id;
    if (status !== 201 || typeof id !== "number") {
      const message = data.message ?? "no deployment id in the answer";
      throw new GitHubApiError(
        status,
        "POST /repos/{owner}/{repo}/deployments",
        `${message} (no deployment of ${request.repo}@${request.ref.slice(0, 12)} was created)`,
        false
      );
    }
    return { id };
  }
  async setDeploymentStatus(repo, id, status) {
    await this.octokit.rest.repos.createDeploymentStatus({
      ...of(repo),
      deployment_id: id,
      state: status.state,
      ...status.environmentUrl ? { environment_url: status.environmentUrl } : {},
      ...status.description ? { description: status.description.slice(0, DEPLOYMENT_DESCRIPTION_MAX) } : {}
    });
  }
  // Repository contents.
  /** A file's text at a ref, or undefined when there is no such file. */
  async readFile(repo, path, ref) {
    const answer = await unlessAbsent(this.octokit.rest.repos.getContent({ ...of(repo), path, ref }));
    const data = answer?.data;
    if (!data || Array.isArray(data) || data.type !== "file" || !("content" in data) || typeof data.content !== "string") return void 0;
    return Buffer.from(data.content, data.encoding || "base64").toString("utf8");
  }
  /** The repository's default branch (GET /repos/{owner}/{repo}), or undefined when the installation cannot see it. */
  async defaultBranch(repo) {
    const answer = await unlessAbsent(this.octokit.rest.repos.get(of(repo)));
    return answer?.data.default_branch;
  }
  /** A branch's head commit and its tree (what an empty commit on it takes). */
  async branchCommit(repo, branch) {
    const { data } = await this.octokit.rest.repos.getBranch({ ...of(repo), branch });
    return { sha: data.commit.sha, tree: data.commit.commit.tree.sha };
  }
  async branchHead(repo, branch) {
    const { data } = await this.octokit.rest.git.getRef({ ...of(repo), ref: `heads/${branch}` });
    return data.object.sha;
  }
  // Comments.
  async createComment(repo, issue, body) {
    const { data } = await this.octokit.rest.issues.createComment({ ...of(repo), issue_number: issue, body: fitComment(body) });
    return { id: data.id, url: data.html_url };
  }
  async updateComment(repo, id, body) {
    await this.octokit.rest.issues.updateComment({ ...of(repo), comment_id: id, body: fitComment(body) });
  }
  /** The issue's comment holding `marker`, if any (the tracking comment after a lost record): every page is read until it is found. */
  async findComment(repo, issue, marker) {
    for await (const { data } of this.octokit.paginate.iterator(this.octokit.rest.issues.listComments, { ...of(repo), issue_number: issue, per_page: 100 })) {
      const found = data.find((c) => c.body?.includes(marker));
      if (found) return { id: found.id, url: found.html_url };
    }
    return void 0;
  }
  async reactToComment(repo, commentId, content) {
    await this.octokit.rest.reactions.createForIssueComment({ ...of(repo), comment_id: commentId, content });
  }
  // People.
  /** admin, maintain, write, triage, read or none (the collaborator permission API, never author_association). */
  async permission(repo, user) {
    const answer = await unlessAbsent(this.octokit.rest.repos.getCollaboratorPermissionLevel({ ...of(repo), username: user }));
    return answer?.data.permission ?? "none";
  }
  /** A review's inline comments (the first 100: what feedback keeps), each with its file and line. */
  async reviewComments(repo, number, reviewId) {
    const { data } = await this.octokit.rest.pulls.listCommentsForReview({ ...of(repo), pull_number: number, review_id: reviewId, per_page: 100 });
    return data.map((c) => {
      const line = c.line ?? c.original_line ?? void 0;
      return { path: c.path, ...typeof line === "number" ? { line } : {}, body: c.body };
    });
  }
  /** active, pending or none: the user's membership of an organisation's team. */
  async teamMembership(org, team, user) {
    const answer = await unlessAbsent(this.octokit.rest.teams.getMembershipForUserInOrg({ org, team_slug: team, username: user }));
    return answer?.data.state ?? "none";
  }
  // Check runs.
  async createCheckRun(repo, check) {
    const { data } = await this.octokit.rest.checks.create({ ...of(repo), ...check, ...check.output ? { output: fitCheckOutput(check.output) } : {} });
    return toCheckRun(data);
  }
  async updateCheckRun(repo, id, patch) {
    const { data } = await this.octokit.rest.checks.update({
      ...of(repo),
      check_run_id: id,
      ...patch,
      ...patch.output ? { output: fitCheckOutput(patch.output) } : {}
    });
    return toCheckRun(data);
  }
  async getCheckRun(repo, id) {
    const { data } = await this.octokit.rest.checks.get({ ...of(repo), check_run_id: id });
    return toCheckRun(data);
  }
  /** The check run named `name` on `ref` with this external id (looked for before one is created). */
  async findCheckRun(repo, ref, name, externalId) {
    const pages = this.octokit.paginate.iterator(this.octokit.rest.checks.listForRef, { ...of(repo), ref, check_name: name, filter: "all", per_page: 100 });
    for await (const { data } of pages) {
      const found = data.find((c) => c.external_id === externalId);
      if (found) return toCheckRun(found);
    }
    return void 0;
  }
  // Workflows.
  /**
   * workflow_dispatch, asking for the run's id (`return_run_details`). A server that does not know
   * that parameter answers 204 without details, or 422 naming it: then it is sent again without.
   */
  async dispatchWorkflow(repo, workflow, ref, inputs) {
    const dispatch = { ...of(repo), workflow_id: workflow, ref, inputs };
    try {
      const { data } = await this.octokit.rest.actions.createWorkflowDispatch({ ...dispatch, return_run_details: true });
      const details = data;
      return details?.workflow_run_id ? { runId: details.workflow_run_id, ...details.html_url ? { url: details.html_url } : {} } : {};
    } catch (e) {
      if (!(e instanceof GitHubApiError && e.status === 422 && /return_run_details/.test(e.githubMessage))) throw e;
      await this.octokit.rest.actions.createWorkflowDispatch(dispatch);
      return {};
    }
  }
  /**
   * A run of `workflow` whose name holds `marker`, dispatched since `since` and started by
   * `startedBy`: anyone who may dispatch the workflow can give their run the same name, so a name
   * alone never says whose run it is.
   */
  async findWorkflowRun(repo, workflow, marker, since, startedBy) {
    const created = `>=${since.slice(0, 19)}Z`;
    const pages = this.octokit.paginate.iterator(this.octokit.rest.actions.listWorkflowRuns, {
      ...of(repo),
      workflow_id: workflow,
      event: "workflow_dispatch",
      created,
      per_page: 100
    });
    for await (const { data } of pages) {
      const found = data.find(
        (r) => (r.display_title ?? r.name ?? "").includes(marker) && (r.actor?.login ?? "").toLowerCase() === startedBy.toLowerCase()
      );
      if (found) return toWorkflowRun(found);
    }
    return void 0;
  }
  /**
   * Asks GitHub to cancel a workflow run. True when asked; false when there is nothing to cancel:
   * the run already completed (409 "Cannot cancel a workflow run that is completed") or is gone (404).
   */
  async cancelWorkflowRun(repo, id) {
    try {
      await this.octokit.rest.actions.cancelWorkflowRun({ ...of(repo), run_id: id });
      return true;
    } catch (e) {
      if (e instanceof GitHubApiError && !e.credentials && (e.status === 409 || e.status === 404)) return false;
      throw e;
    }
  }
  async getWorkflowRun(repo, id) {
    const { data } = await this.octokit.rest.actions.getWorkflowRun({ ...of(repo), run_id: id });
    return toWorkflowRun(data);
  }
};

export {
  safeLinkTarget,
  sanitizeIssueText,
  fence,
  CHECK_OUTPUT_MAX,
  GitHubForge
};
//# sourceMappingURL=chunk-2TF2UYHF.js.map
