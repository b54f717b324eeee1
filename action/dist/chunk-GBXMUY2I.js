import { createRequire as __conveyorCreateRequire } from 'node:module'; const require = __conveyorCreateRequire(import.meta.url);
import {
  ConveyorError
} from "./chunk-DJRTUKIR.js";
import {
  Octokit,
  legacyRestEndpointMethods,
  paginateRest,
  requestLog,
  require_light,
  retry
} from "./chunk-YEZRHRCQ.js";
import {
  __toESM
} from "./chunk-SD7663DA.js";

// node_modules/@octokit/rest/dist-src/version.js
var VERSION = "22.0.1";

// node_modules/@octokit/rest/dist-src/index.js
var Octokit2 = Octokit.plugin(requestLog, legacyRestEndpointMethods, paginateRest).defaults(
  {
    userAgent: `octokit-rest.js/${VERSION}`
  }
);

// node_modules/@octokit/plugin-throttling/dist-bundle/index.js
var import_light = __toESM(require_light(), 1);
var VERSION2 = "0.0.0-development";
var noop = () => Promise.resolve();
function wrapRequest(state, request, options) {
  return state.retryLimiter.schedule(doRequest, state, request, options);
}
async function doRequest(state, request, options) {
  const { pathname } = new URL(options.url, "http://github.test");
  const isAuth = isAuthRequest(options.method, pathname);
  const isWrite = !isAuth && options.method !== "GET" && options.method !== "HEAD";
  const isSearch = options.method === "GET" && pathname.startsWith("/search/");
  const isGraphQL = pathname.startsWith("/graphql");
  const retryCount = ~~request.retryCount;
  const jobOptions = retryCount > 0 ? { priority: 0, weight: 0 } : {};
  if (state.clustering) {
    jobOptions.expiration = 1e3 * 60;
  }
  if (isWrite || isGraphQL) {
    await state.write.key(state.id).schedule(jobOptions, noop);
  }
  if (isWrite && state.triggersNotification(pathname)) {
    await state.notifications.key(state.id).schedule(jobOptions, noop);
  }
  if (isSearch) {
    await state.search.key(state.id).schedule(jobOptions, noop);
  }
  const req = (isAuth ? state.auth : state.global).key(state.id).schedule(jobOptions, request, options);
  if (isGraphQL) {
    const res = await req;
    if (res.data.errors != null && res.data.errors.some((error) => error.type === "RATE_LIMITED")) {
      const error = Object.assign(new Error("GraphQL Rate Limit Exceeded"), {
        response: res,
        data: res.data
      });
      throw error;
    }
  }
  return req;
}
function isAuthRequest(method, pathname) {
  return method === "PATCH" && // https://docs.github.com/en/rest/apps/apps?apiVersion=2022-11-28#create-a-scoped-access-token
  /^\/applications\/[^/]+\/token\/scoped$/.test(pathname) || method === "POST" && // https://docs.github.com/en/rest/apps/oauth-applications?apiVersion=2022-11-28#reset-a-token
  (/^\/applications\/[^/]+\/token$/.test(pathname) || // https://docs.github.com/en/rest/apps/apps?apiVersion=2022-11-28#create-an-installation-access-token-for-an-app
  /^\/app\/installations\/[^/]+\/access_tokens$/.test(pathname) || // https://docs.github.com/en/apps/oauth-apps/building-oauth-apps/authorizing-oauth-apps
  pathname === "/login/oauth/access_token");
}
var triggers_notification_paths_default = [
  "/orgs/{org}/invitations",
  "/orgs/{org}/invitations/{invitation_id}",
  "/orgs/{org}/teams/{team_slug}/discussions",
  "/orgs/{org}/teams/{team_slug}/discussions/{discussion_number}/comments",
  "/repos/{owner}/{repo}/collaborators/{username}",
  "/repos/{owner}/{repo}/commits/{commit_sha}/comments",
  "/repos/{owner}/{repo}/issues",
  "/repos/{owner}/{repo}/issues/{issue_number}/comments",
  "/repos/{owner}/{repo}/issues/{issue_number}/sub_issue",
  "/repos/{owner}/{repo}/issues/{issue_number}/sub_issues/priority",
  "/repos/{owner}/{repo}/pulls",
  "/repos/{owner}/{repo}/pulls/{pull_number}/comments",
  "/repos/{owner}/{repo}/pulls/{pull_number}/comments/{comment_id}/replies",
  "/repos/{owner}/{repo}/pulls/{pull_number}/merge",
  "/repos/{owner}/{repo}/pulls/{pull_number}/requested_reviewers",
  "/repos/{owner}/{repo}/pulls/{pull_number}/reviews",
  "/repos/{owner}/{repo}/releases",
  "/teams/{team_id}/discussions",
  "/teams/{team_id}/discussions/{discussion_number}/comments"
];
function routeMatcher(paths) {
  const regexes = paths.map(
    (path) => path.split("/").map((c) => c.startsWith("{") ? "(?:.+?)" : c).join("/")
  );
  const regex2 = `^(?:${regexes.map((r) => `(?:${r})`).join("|")})[^/]*$`;
  return new RegExp(regex2, "i");
}
var regex = routeMatcher(triggers_notification_paths_default);
var triggersNotification = regex.test.bind(regex);
var groups = {};
var createGroups = function(Bottleneck, common) {
  groups.global = new Bottleneck.Group({
    id: "octokit-global",
    maxConcurrent: 10,
    ...common
  });
  groups.auth = new Bottleneck.Group({
    id: "octokit-auth",
    maxConcurrent: 1,
    ...common
  });
  groups.search = new Bottleneck.Group({
    id: "octokit-search",
    maxConcurrent: 1,
    minTime: 2e3,
    ...common
  });
  groups.write = new Bottleneck.Group({
    id: "octokit-write",
    maxConcurrent: 1,
    minTime: 1e3,
    ...common
  });
  groups.notifications = new Bottleneck.Group({
    id: "octokit-notifications",
    maxConcurrent: 1,
    minTime: 3e3,
    ...common
  });
};
function throttling(octokit, octokitOptions) {
  const {
    enabled = true,
    Bottleneck = import_light.default,
    id = "no-id",
    timeout = 1e3 * 60 * 2,
    // Redis TTL: 2 minutes
    connection
  } = octokitOptions.throttle || {};
  if (!enabled) {
    return {};
  }
  const common = { timeout };
  if (typeof connection !== "undefined") {
    common.connection = connection;
  }
  const state = Object.assign(
    {
      clustering: connection != null,
      triggersNotification,
      fallbackSecondaryRateRetryAfter: 60,
      retryAfterBaseValue: 1e3,
      id
    },
    octokitOptions.throttle
  );
  if (typeof state.onSecondaryRateLimit !== "function" || typeof state.onRateLimit !== "function") {
    throw new Error(`octokit/plugin-throttling error:
        You must pass the onSecondaryRateLimit and onRateLimit error handlers.
        See https://octokit.github.io/rest.js/#throttling

        const octokit = new Octokit({
          throttle: {
            onSecondaryRateLimit: (retryAfter, options) => {/* ... */},
            onRateLimit: (retryAfter, options) => {/* ... */}
          }
        })
    `);
  }
  let initialized = false;
  const initializeBottleneck = () => {
    if (initialized) {
      return;
    }
    initialized = true;
    if (groups.global == null) {
      createGroups(Bottleneck, common);
    }
    state.global = state.global ?? groups.global;
    state.auth = state.auth ?? groups.auth;
    state.search = state.search ?? groups.search;
    state.write = state.write ?? groups.write;
    state.notifications = state.notifications ?? groups.notifications;
    state.retryLimiter = state.retryLimiter ?? new Bottleneck();
    const events = {};
    const emitter = new Bottleneck.Events(events);
    events.on("secondary-limit", state.onSecondaryRateLimit);
    events.on("rate-limit", state.onRateLimit);
    events.on(
      "error",
      (e) => octokit.log.warn("Error in throttling-plugin limit handler", e)
    );
    state.retryLimiter.on("failed", async function(error, info) {
      const [state2, request, options] = info.args;
      const { pathname } = new URL(options.url, "http://github.test");
      const shouldRetryGraphQL = pathname.startsWith("/graphql") && error.status !== 401;
      if (!(shouldRetryGraphQL || error.status === 403 || error.status === 429)) {
        return;
      }
      const retryCount = ~~request.retryCount;
      request.retryCount = retryCount;
      options.request.retryCount = retryCount;
      const { wantRetry, retryAfter = 0 } = await (async function() {
        if (/\bsecondary rate\b/i.test(error.message)) {
          const retryAfter2 = Number(error.response.headers["retry-after"]) || state2.fallbackSecondaryRateRetryAfter;
          const wantRetry2 = await emitter.trigger(
            "secondary-limit",
            retryAfter2,
            options,
            octokit,
            retryCount
          );
          return { wantRetry: wantRetry2, retryAfter: retryAfter2 };
        }
        if (error.response.headers != null && error.response.headers["x-ratelimit-remaining"] === "0" || (error.response.data?.errors ?? []).some(
          (error2) => error2.type === "RATE_LIMITED"
        )) {
          const rateLimitReset = new Date(
            ~~error.response.headers["x-ratelimit-reset"] * 1e3
          ).getTime();
          const retryAfter2 = Math.max(
            // Add one second so we retry _after_ the reset time
            // https://docs.github.com/en/rest/overview/resources-in-the-rest-api?apiVersion=2022-11-28#exceeding-the-rate-limit
            Math.ceil((rateLimitReset - Date.now()) / 1e3) + 1,
            0
          );
          const wantRetry2 = await emitter.trigger(
            "rate-limit",
            retryAfter2,
            options,
            octokit,
            retryCount
          );
          return { wantRetry: wantRetry2, retryAfter: retryAfter2 };
        }
        return {};
      })();
      if (wantRetry) {
        request.retryCount++;
        return retryAfter * state2.retryAfterBaseValue;
      }
    });
  };
  octokit.hook.wrap("request", (request, options) => {
    initializeBottleneck();
    return wrapRequest(state, request, options);
  });
  return {};
}
throttling.VERSION = VERSION2;
throttling.triggersNotification = triggersNotification;

// adapters/github/errors.ts
var TOKEN_PATH = /\/app\/installations\/[^/]+\/access_tokens$/;
var GitHubApiError = class extends ConveyorError {
  constructor(status, route, githubMessage, credentials, options) {
    super("forge-failed", describe(status, route, githubMessage, credentials), options);
    this.status = status;
    this.route = route;
    this.githubMessage = githubMessage;
    this.credentials = credentials;
  }
  status;
  route;
  githubMessage;
  credentials;
  name = "GitHubApiError";
  /** GitHub answered 404 for the thing asked for (not for the token): it is not there. */
  get absent() {
    return this.status === 404 && !this.credentials;
  }
};
function describe(status, route, message, credentials) {
  const answer = status === void 0 ? "no answer" : `HTTP ${status}`;
  if (credentials) {
    return `GitHub ${route} was not sent: the installation's token could not be had (${answer}): ${message}. Is the app still installed on the repository, with the permissions it asks for?`;
  }
  return `GitHub ${route} failed (${answer}): ${message}`;
}
function routeOf(options) {
  const method = (options.method ?? "GET").toUpperCase();
  let path = options.url ?? "";
  if (/^https?:\/\//i.test(path)) {
    const base = options.baseUrl ? new URL(options.baseUrl).pathname.replace(/\/+$/, "") : "";
    path = new URL(path).pathname;
    if (base && path.startsWith(base)) path = path.slice(base.length);
  }
  return `${method} ${path}`;
}
function messageOf(data) {
  if (!data || typeof data !== "object" || typeof data.message !== "string") return void 0;
  const { message, errors } = data;
  const details = (Array.isArray(errors) ? errors : []).map((x) => {
    if (typeof x === "string") return x;
    const d = x ?? {};
    return typeof d.message === "string" ? d.message : [d.resource, d.field, d.code].filter((v) => typeof v === "string").join(" ");
  });
  return details.length > 0 ? `${message}: ${details.join("; ")}` : message;
}
function toGitHubApiError(error, options) {
  const route = routeOf(options);
  if (error instanceof GitHubApiError) {
    if (!error.credentials && TOKEN_PATH.test(error.route) && !TOKEN_PATH.test(route))
      return new GitHubApiError(error.status, route, error.githubMessage, true, { cause: error });
    return error;
  }
  const e = error ?? {};
  const answered = e.response !== void 0 && typeof e.status === "number";
  const status = answered ? e.status : void 0;
  const failedUrl = e.request?.url ? new URL(e.request.url, "http://github.invalid").pathname : "";
  const credentials = TOKEN_PATH.test(failedUrl) && !TOKEN_PATH.test(route);
  const fallback = typeof e.message === "string" && e.message ? e.message.slice(0, 300) : String(error);
  const message = (answered ? messageOf(e.response.data) : void 0) ?? fallback;
  return new GitHubApiError(status, route, message, credentials, { cause: error });
}
function gitHubErrors(octokit) {
  octokit.hook.error("request", (error, options) => {
    throw toGitHubApiError(error, options);
  });
  return {};
}
async function unlessAbsent(call) {
  try {
    return await call;
  } catch (e) {
    if (e instanceof GitHubApiError && e.absent) return void 0;
    throw e;
  }
}
function graphqlRefusal(e) {
  const errors = e.errors;
  return errors?.map((x) => x.message).filter(Boolean).join("; ") || e.message;
}

// adapters/github/octokit.ts
var RATE_LIMIT_RETRIES = 3;
var UNPACED = { key: () => ({ schedule: (_options, job) => job() }) };
function policyOptions(policy = {}) {
  const retries = policy.rateLimitRetries ?? RATE_LIMIT_RETRIES;
  const msPerSecond = policy.msPerSecond ?? 1e3;
  const handler = (kind) => (retryAfter, options, octokit, retryCount) => {
    const route = `${options.method} ${options.url}`;
    const retrying = retryCount < retries;
    octokit.log.warn(
      `GitHub ${kind} rate limit on ${route}: ${retrying ? `retry ${retryCount + 1} of ${retries} in ${retryAfter} s` : `given up after ${retries} retries`}`
    );
    policy.onRateLimit?.({ kind, retryAfter, route, retryCount, retrying });
    return retrying;
  };
  return {
    throttle: {
      enabled: true,
      onRateLimit: handler("primary"),
      onSecondaryRateLimit: handler("secondary"),
      retryAfterBaseValue: msPerSecond,
      ...policy.paceWrites === false ? { write: UNPACED, notifications: UNPACED } : {}
    },
    // 409 is GitHub's word on the state of the thing (a completed workflow run cannot be cancelled,
    // a merge's head moved): asking again the same moment gets the same answer. 413: a body too
    // large (a blob of a big file) is as large the next time.
    retry: { retryAfterBaseValue: msPerSecond, doNotRetry: [400, 401, 403, 404, 409, 410, 413, 422, 429, 451] }
  };
}
function withPolicyOptions(options, policy) {
  const own = policyOptions(policy);
  return { ...options, throttle: { ...options.throttle, ...own.throttle }, retry: { ...options.retry, ...own.retry } };
}
function callObserver(onCall) {
  return (octokit, options) => {
    const installation = options.auth?.installationId;
    const report = (request, answer) => {
      const method = (request.method ?? "GET").toUpperCase();
      const url = request.url ?? "";
      const headers = answer?.headers ?? answer?.response?.headers;
      const remaining = Number(headers?.["x-ratelimit-remaining"]);
      const status = answer?.response ? answer.response.status : answer?.status;
      onCall({
        route: /^https?:\/\//i.test(url) ? `${method} (next page)` : `${method} ${url}`,
        status: typeof status === "number" ? status : void 0,
        installation: typeof installation === "number" ? installation : installation !== void 0 ? Number(installation) : void 0,
        rateLimitRemaining: headers && Number.isFinite(remaining) ? remaining : void 0
      });
    };
    octokit.hook.wrap("request", async (request, requestOptions) => {
      try {
        const response = await request(requestOptions);
        report(requestOptions, response);
        return response;
      } catch (e) {
        report(requestOptions, e);
        throw e;
      }
    });
    return {};
  };
}
function withGitHubPolicy(Base, policy = {}) {
  const plugins = policy.onCall ? [callObserver(policy.onCall), gitHubErrors] : [gitHubErrors];
  return Base.plugin(...plugins).defaults((options) => withPolicyOptions(options, policy));
}
var ActionOctokit = Octokit2.plugin(throttling, retry, gitHubErrors);
function octokitLog(log) {
  return { debug: () => void 0, info: () => void 0, warn: (m) => log.warn(`GitHub: ${m}`), error: (m) => log.error(`GitHub: ${m}`) };
}
function createGitHubOctokit(options) {
  const { token, baseUrl, userAgent, log, ...policy } = options;
  const octokit = new ActionOctokit({
    ...typeof token === "string" ? { auth: token } : {},
    baseUrl: (baseUrl || "https://api.github.com").replace(/\/+$/, ""),
    userAgent: userAgent ?? "conveyor",
    ...log ? { log } : {},
    ...policyOptions(policy)
  });
  if (typeof token === "function") {
    octokit.hook.before("request", async (request) => {
      request.headers.authorization = `token ${await token()}`;
    });
  }
  return octokit;
}

export {
  GitHubApiError,
  unlessAbsent,
  graphqlRefusal,
  RATE_LIMIT_RETRIES,
  policyOptions,
  withGitHubPolicy,
  octokitLog,
  createGitHubOctokit
};
//# sourceMappingURL=chunk-GBXMUY2I.js.map
