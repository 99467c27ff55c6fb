import { OperationError } from '../errors.js';

/**
 * The database itself failed: locked, full, read-only, unreachable, the
 * connection dropped. Not the fault of the message being written, so no
 * stage shunts a message for it; the run stops and the next one resumes.
 * The drivers turn their engine's errors into this, with a sentence and a
 * hint; any other error passes through unchanged.
 */
export class StoreFailure extends OperationError {
  constructor(
    message: string,
    hint: string,
    readonly code?: string,
  ) {
    super(message, hint);
  }
}
