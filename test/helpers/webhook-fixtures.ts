// Webhook payloads as GitHub sends them: test/fixtures/webhooks, copied from @octokit/webhooks-examples.
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

const DIR = resolve(import.meta.dirname, '../fixtures/webhooks');

/** A webhook payload of test/fixtures/webhooks by its event and action (`issues.labeled`). */
export function fixture(name: string): Record<string, unknown> {
  return JSON.parse(readFileSync(join(DIR, `${name}.json`), 'utf8')) as Record<string, unknown>;
}
