// @ts-check
// Refuses, in one sentence, a Node.js too old for the relay, before anything that needs a newer one
// is loaded: a stack trace about `node:sqlite` or a `.ts` extension tells a user nothing. It is plain
// JavaScript so that any Node.js can run it: the `sluice` command calls exitIfNodeTooOld before it
// loads a command's code, sluice/testing and sluice/playwright check at their import
// (testing/node-floor.ts, testing/playwright/node-floor.ts), and a
// checkout's `npm start` and `npm run serve` run this file before building or starting anything. The
// client library (`sluice/client`) does not need it: it runs on Node.js 20.

import { realpathSync } from 'node:fs';
import { pathToFileURL } from 'node:url';

/**
 * The oldest Node.js the relay runs on. `node:sqlite` needs no flag from 22.13, but the store reads
 * rows as arrays (`StatementSync#setReturnArrays`, from 22.16) and undici 8, which sends the
 * webhooks, declares Node.js 22.19 or newer.
 */
export const RELAY_NODE = '22.19.0';

/**
 * What needs the newer Node.js, and why, as the refusal says it: the relay (`sluice serve`, `npm start`),
 * a command that runs without a relay (export, check, plan, import, doctor), sluice/testing and
 * sluice/playwright (sluice/matchers needs no relay: it loads on any Node.js).
 */
export const NEEDS = {
  relay: { who: 'the relay', why: 'it stores messages with node:sqlite' },
  command: { who: 'this command', why: "it runs the relay's code" },
  testing: { who: 'sluice/testing', why: 'it runs a relay, which stores messages with node:sqlite' },
  playwright: { who: 'sluice/playwright', why: 'its fixture runs a relay, which stores messages with node:sqlite' },
};

/**
 * Why this Node.js cannot run what `needs` names (the relay unless told), as a sentence; undefined
 * when it can.
 * @param {string} version a Node.js version, e.g. `process.versions.node`
 * @param {keyof typeof NEEDS} [needs]
 * @returns {string | undefined}
 */
export function relayNodeProblem(version, needs = 'relay') {
  const have = version.split('.').map(Number);
  const need = RELAY_NODE.split('.').map(Number);
  for (let i = 0; i < need.length; i++) {
    const a = have[i] ?? 0;
    const b = need[i] ?? 0;
    if (a > b) return undefined;
    if (a < b) {
      const { who, why } = NEEDS[needs];
      return (
        `${who} needs Node.js ${RELAY_NODE} or newer (${why}), but this is Node.js ${version}: ` +
        'install Node.js 24 LTS from https://nodejs.org (or with a version manager: nvm install 24) and run it again ' +
        '(the client library, sluice/client, runs on Node.js 20 too)'
      );
    }
  }
  return undefined;
}

/**
 * Exits with the refusal on stderr, in one line, when this Node.js cannot run what `needs` names.
 * @param {keyof typeof NEEDS} needs
 */
export function exitIfNodeTooOld(needs) {
  const problem = relayNodeProblem(process.versions.node, needs);
  if (problem !== undefined) {
    process.stderr.write(`sluice: ${problem}.\n`);
    process.exit(1);
  }
}

/**
 * Throws the refusal (an Error whose message is the sentence) when this Node.js cannot run what `needs`
 * names: the check a module of the package makes at its import.
 * @param {keyof typeof NEEDS} needs
 */
export function throwIfNodeTooOld(needs) {
  const problem = relayNodeProblem(process.versions.node, needs);
  if (problem !== undefined) throw new Error(`${problem}.`);
}

/** Whether this file is the script Node.js was started with. */
function runAsScript() {
  try {
    return process.argv[1] !== undefined && import.meta.url === pathToFileURL(realpathSync(process.argv[1])).href;
  } catch {
    return false; // argv[1] is no file (node -e, a REPL)
  }
}

// Run as a script (`node electron/host/node-check.js`: npm start and npm run serve, before anything else).
if (runAsScript()) exitIfNodeTooOld('relay');
