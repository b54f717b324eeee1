// Configurations for plan tests, loaded through the real validator: the compiler assumes a
// validated configuration, so tests must not hand it anything the validator would refuse.
import { readFileSync } from 'node:fs';
import type { Config } from '../../../core/config/schema.ts';
import { formatConfigError, loadConfig } from '../../../core/config/load.ts';

export const FIXTURES = new URL('../../fixtures/configs/plan/', import.meta.url);

export function fixtureText(name: string): string {
  return readFileSync(new URL(name, FIXTURES), 'utf8');
}

export function configOf(text: string, file = 'conveyor.yml'): Config {
  const loaded = loadConfig(text, file);
  if (!loaded.ok) throw new Error(`fixture is not valid:\n${loaded.errors.map(formatConfigError).join('\n')}`);
  return loaded.config;
}
