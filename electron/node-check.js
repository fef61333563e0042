// @ts-check
// Refuses, in one sentence, a Node.js too old for the relay, before anything that needs a newer one
// is loaded: a stack trace about `node:sqlite` or a `.ts` extension tells a user nothing. Importing
// this module runs the check. It is plain JavaScript so that any Node.js can run it: `sluice serve`
// imports it before the relay, and a checkout's `npm start` and `npm run serve` run it before
// building or starting anything. The client library (`sluice/client`) does not need it: it runs on
// Node.js 20.

/**
 * The oldest Node.js the relay runs on. `node:sqlite` needs no flag from 22.13, but the store reads
 * rows as arrays (`StatementSync#setReturnArrays`, from 22.16) and undici 8, which sends the
 * webhooks, declares Node.js 22.19 or newer.
 */
export const RELAY_NODE = '22.19.0';

/**
 * Why this Node.js cannot run the relay, as a sentence; undefined when it can.
 * @param {string} version a Node.js version, e.g. `process.versions.node`
 * @returns {string | undefined}
 */
export function relayNodeProblem(version) {
  const have = version.split('.').map(Number);
  const need = RELAY_NODE.split('.').map(Number);
  for (let i = 0; i < need.length; i++) {
    const a = have[i] ?? 0;
    const b = need[i] ?? 0;
    if (a > b) return undefined;
    if (a < b) {
      return (
        `the relay needs Node.js ${RELAY_NODE} or newer (it stores messages with node:sqlite), but this is Node.js ${version}: ` +
        'install Node.js 24 LTS from https://nodejs.org (or with a version manager: nvm install 24) and run it again ' +
        '(the client library, sluice/client, runs on Node.js 20 too)'
      );
    }
  }
  return undefined;
}

const problem = relayNodeProblem(process.versions.node);
if (problem !== undefined) {
  process.stderr.write(`sluice: ${problem}.\n`);
  process.exit(1);
}
