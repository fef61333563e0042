// sluice/playwright on a Node.js too old for the relay: importing it throws the refusal's one sentence
// naming sluice/playwright (the entry the user imported), before sluice/testing's own check (which
// names sluice/testing) and before @playwright/test. playwright/index.ts imports this module first;
// the package build gives it a chunk of its own (build/tsdown.config.ts), which dist/playwright.js
// imports before ./testing.js. sluice/matchers has no such check: it runs no relay.
import { throwIfNodeTooOld } from '../../host/node-check.js';

throwIfNodeTooOld('playwright');
