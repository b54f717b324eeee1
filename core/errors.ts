// Typed errors: each carries a stable code (the wire contract's error codes) and a message that
// tells the user what happened and what would be right.
import type { ErrorCode } from './wire.ts';

export class ConveyorError extends Error {
  readonly code: ErrorCode;
  constructor(code: ErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'ConveyorError';
    this.code = code;
  }
}

/** A command-line usage or configuration problem: exit code 2. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}
