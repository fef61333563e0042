/**
 * How a command says it cannot go on. Both end the command with exit code 2 and one `sluice: …` line:
 * a UsageError is followed by the command's help (the command line itself is wrong), an InputError is
 * not (the command line is fine; a file, plan or store it names cannot be used, and the sentence says
 * why).
 */
import { storeFailureOf } from '../core/store/store-failure.ts';

// One class for a wrong command line, whichever host parses it (serve's flags are the desktop app's too).
export { UsageError } from '../host/options.ts';

export class InputError extends Error {}

/**
 * The commands' answer to a store failure (a damaged store, a full disk: store/store-failure.ts): an
 * InputError whose sentence says what is wrong and the fix; null for any other error. `file` is the
 * store's database file.
 */
export function storeFailureInput(error: unknown, file: string): InputError | null {
  const failure = storeFailureOf(error, file);
  return failure && new InputError(failure.message);
}
