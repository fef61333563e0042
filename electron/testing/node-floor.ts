// sluice/testing on a Node.js too old for the relay: importing it throws the refusal's one sentence
// (the `sluice` command's, naming sluice/testing), before any module of the store is evaluated — the
// store's first use of node:sqlite would die with "Cannot destructure property 'DatabaseSync'".
// testing/index.ts imports this module first, so that it is evaluated first (sluice/playwright has its
// own, playwright/node-floor.ts, naming sluice/playwright).
import { throwIfNodeTooOld } from '../host/node-check.js';

throwIfNodeTooOld('testing');
