// The step payload, read once at the start of the step process (main.ts) and handed to whatever
// needs it: the token (only a payload that validates gets an OIDC token asked for), the check run
// (is this attempt still current?) and the entry (the step itself, or the failure it reports).
// Whoever may dispatch the workflow writes it, so it is validated (zod) before anything trusts it.
import { readFile } from 'node:fs/promises';
import { ConveyorError } from '../../core/errors.ts';
import { describeIssues, stepPayloadSchema, type StepPayload } from '../../core/contract/wire.ts';

/**
 * The payload as read: valid, or why not. `raw` is its JSON however it validated (undefined when it
 * could not be read or is not JSON), read leniently for what a bad payload still tells: which
 * attempt a failure belongs to, and what its receipt seals.
 */
export type PayloadRead =
  | { ok: true; payload: StepPayload; raw: unknown }
  | {
      ok: false;
      /** Why, in a few words (the file that cannot be read, the fields that do not validate). */
      reason: string;
      /** What the step reports (`bad-payload`). */
      error: ConveyorError;
      raw: unknown;
    };

export interface PayloadSource {
  env: NodeJS.ProcessEnv;
  /** An action input ('' when absent), as @actions/core reads it. */
  getInput(name: string): string;
}

/** The payload's text: CONVEYOR_PAYLOAD_PATH's file (the embedded mode), else the input `payload`. */
async function payloadText(io: PayloadSource): Promise<string> {
  const path = io.env.CONVEYOR_PAYLOAD_PATH;
  if (path) {
    try {
      return await readFile(path, 'utf8');
    } catch (e) {
      throw new ConveyorError('bad-payload', `CONVEYOR_PAYLOAD_PATH ${path} cannot be read: ${(e as Error).message}`);
    }
  }
  const text = io.getInput('payload');
  if (!text.trim()) throw new ConveyorError('bad-payload', 'no payload: give the action input `payload` (JSON) or set CONVEYOR_PAYLOAD_PATH to a payload file');
  return text;
}

/** Reads and validates the payload; never throws: a payload that cannot be had is a PayloadRead that says why. */
export async function readPayload(io: PayloadSource): Promise<PayloadRead> {
  let text: string;
  try {
    text = await payloadText(io);
  } catch (e) {
    const error = e as ConveyorError;
    return { ok: false, reason: error.message, error, raw: undefined };
  }
  const invalid = (reason: string, raw: unknown): PayloadRead => ({
    ok: false,
    reason,
    error: new ConveyorError('bad-payload', `the step payload is not valid: ${reason}`),
    raw,
  });
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (e) {
    return invalid(`payload is not JSON: ${(e as Error).message}`, undefined);
  }
  const parsed = stepPayloadSchema.safeParse(raw);
  return parsed.success ? { ok: true, payload: parsed.data, raw } : invalid(describeIssues(parsed.error), raw);
}
