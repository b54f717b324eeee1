// Webhook payloads as GitHub sends them: test/fixtures/webhooks, copied from @octokit/webhooks-examples.
import { Webhooks } from '@octokit/webhooks';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

const DIR = resolve(import.meta.dirname, '../fixtures/webhooks');

/** A webhook payload of test/fixtures/webhooks by its event and action (`issues.labeled`). */
export function fixture(name: string): Record<string, unknown> {
  return JSON.parse(readFileSync(join(DIR, `${name}.json`), 'utf8')) as Record<string, unknown>;
}

/** A webhook POST as GitHub sends it: `body` signed with the app's webhook secret (by @octokit/webhooks, as GitHub signs). */
export async function signedWebhook(secret: string, body: string, event = 'ping', delivery = 'd-1'): Promise<RequestInit> {
  const signature = await new Webhooks({ secret }).sign(body);
  return {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'x-github-event': event,
      'x-github-delivery': delivery,
      'x-hub-signature-256': signature,
    },
    body,
  };
}
