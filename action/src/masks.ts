// Values to mask that this step process is not given as variables. In the embedded mode a step
// process inherits only the secrets its own commands list (adapters/dispatch/local.ts), yet its
// commands may still print another's, e.g. a gate printing a file an agent wrote its key into. The
// dispatcher hands those values over in a file, which is read once and deleted here, as the token
// file is: in this process's memory, in no environment a command could read.
import { readFileSync, unlinkSync } from 'node:fs';
import { z } from 'zod';
import { ConveyorError } from '../../core/errors.ts';

/** The values in CONVEYOR_MASKS_PATH (a JSON list of strings), the file deleted; none without it. */
export function takeMasks(env: NodeJS.ProcessEnv): string[] {
  const path = env.CONVEYOR_MASKS_PATH;
  if (!path) return [];
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
    unlinkSync(path);
  } catch (e) {
    throw new ConveyorError('internal', `the masks file ${path} cannot be read and deleted: ${(e as Error).message}`);
  }
  const parsed = z.array(z.string()).safeParse(JSON.parse(text));
  if (!parsed.success) throw new ConveyorError('internal', `the masks file ${path} is not a JSON list of strings`);
  return parsed.data;
}
