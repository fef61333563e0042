/**
 * The transform editor's words, without React: a new transform's starting text, and where a refusal
 * of a save puts its problem (its line and column, from the core's sentence). Pure, tested in Node.
 */
import type { ContractError } from '../../../../shared/contract.ts';
import type { CodeProblem } from '../../components/CodeArea.tsx';

/** What the editor starts from when a destination has no transform yet. */
export const STARTER_TRANSFORM = `// Runs on each message before this destination gets it (a Segment insert function).
// Return the event (changed or not), null to drop it, or an array to send several.
async function onTrack(event, { settings, log }) {
  log('track', event.event);
  return event;
}
`;

/** A refused save (invalid_transform) as a problem at its line and column; null when the refusal names no place. */
export function problemOf(error: Pick<ContractError, 'code' | 'message'>): CodeProblem | null {
  if (error.code !== 'invalid_transform') return null;
  const at = /at line (\d+), column (\d+)/.exec(error.message);
  const message = error.message.replace(/^the transform does not compile( at line \d+, column \d+)?: /, '').replace(/; fix it and save again.*$/, '');
  return at ? { line: Number(at[1]), column: Number(at[2]), message } : { line: 1, column: 1, message };
}
