// app.yml, the GitHub App manifest at the repository's root (Probot's convention): the events and
// permissions `conveyor serve`'s setup registers the app with. Read and checked here, so a typo in
// it is said before GitHub is shown a manifest it would refuse.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { z } from 'zod';
import { UsageError } from '../core/errors.ts';

export const APP_MANIFEST = fileURLToPath(new URL('../app.yml', import.meta.url));

const level = z.enum(['read', 'write']);

/** GitHub's manifest parameters (docs: "Registering a GitHub App from a manifest"), the ones Conveyor's app.yml may set. */
const manifestSchema = z
  .object({
    name: z.string().min(1).max(34),
    description: z.string().optional(),
    url: z.url().optional(),
    public: z.boolean().default(false),
    hook_attributes: z.object({ url: z.url(), active: z.boolean().optional() }).strict().optional(),
    default_events: z.array(z.string().regex(/^[a-z_]+$/)).min(1),
    default_permissions: z.record(z.string().regex(/^[a-z_]+$/), level),
  })
  .strict();

export type AppManifest = z.infer<typeof manifestSchema>;

/** app.yml, parsed and checked; a UsageError naming the file and the key when it is not a manifest. */
export function readManifest(path = APP_MANIFEST): AppManifest {
  const parsed = manifestSchema.safeParse(parse(readFileSync(path, 'utf8')));
  if (!parsed.success) {
    const issues = parsed.error.issues.map((i) => `${i.path.join('.') || '(top)'}: ${i.message}`).join('; ');
    throw new UsageError(`${path} is not a GitHub App manifest GitHub would take: ${issues}`);
  }
  return parsed.data;
}

/** The manifest GitHub is shown: app.yml with its homepage and webhook URL filled in from where this app is reached. */
export function manifestFor(manifest: AppManifest, where: { publicUrl: string; webhookPath: string }): AppManifest {
  return {
    ...manifest,
    url: manifest.url ?? where.publicUrl,
    hook_attributes: manifest.hook_attributes ?? { url: `${where.publicUrl}${where.webhookPath}` },
  };
}
