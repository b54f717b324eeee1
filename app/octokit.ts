// The Octokit class the app gives Probot. Probot builds a new installation Octokit for every
// webhook (its `context.octokit`), which costs more than the app's own handling of most webhooks,
// and the app never uses it: it talks to GitHub through its own client per installation
// (client.ts). So each installation's event Octokit is built once and shared by its webhooks, as
// the app's own client is. Installation tokens are renewed by the shared Octokit's auth as before.
import { ProbotOctokit } from 'probot';

/** Installations whose event Octokit is kept; far more than one app serves at once. */
const KEPT_INSTALLATIONS = 1000;

interface EventAuthOptions {
  type?: string;
  event?: { name?: string; payload?: { action?: string; installation?: { id?: number } } };
}

type Auth = (options?: EventAuthOptions) => Promise<unknown>;

/** An Octokit plugin: `auth({ type: 'event-octokit' })` answers from a cache per installation. */
export function shareEventOctokits(octokit: { auth: unknown }): { auth: Auth } {
  const auth = octokit.auth as Auth;
  const kept = new Map<number, Promise<unknown>>();
  return {
    auth: (options) => {
      const event = options?.type === 'event-octokit' ? options.event : undefined;
      const installation = event?.payload?.installation?.id;
      // Events about the installation itself (suspended, deleted, new permissions) build afresh and
      // drop what was kept: the next webhook of that installation gets a new Octokit.
      if (installation === undefined || event?.name === 'installation') {
        if (installation !== undefined) kept.delete(installation);
        return auth(options);
      }
      let shared = kept.get(installation);
      if (!shared) {
        shared = auth(options);
        kept.set(installation, shared);
        // A failure is not kept: the next webhook tries again.
        shared.catch(() => kept.delete(installation));
        if (kept.size > KEPT_INSTALLATIONS) kept.delete(kept.keys().next().value!);
      }
      return shared;
    },
  };
}

export const ConveyorOctokit = ProbotOctokit.plugin(shareEventOctokits);
