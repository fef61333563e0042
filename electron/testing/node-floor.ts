// sluice/testing on a Node.js too old for the relay: importing it throws the refusal's one sentence
// (the `sluice` command's, naming sluice/testing), before any module of the store is evaluated — the
// store's first use of node:sqlite would die with "Cannot destructure property 'DatabaseSync'".
// testing/index.ts imports this module first, so that it is evaluated first.
import { relayNodeProblem } from '../host/node-check.js';

const problem = relayNodeProblem(process.versions.node, 'testing');
if (problem !== undefined) throw new Error(`${problem}.`);
