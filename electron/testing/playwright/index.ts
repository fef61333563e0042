/**
 * `sluice/playwright` (issue 27): Playwright Test's `test` and `expect` with Sluice in them. Each worker
 * starts its own relay (sluice/testing's startSluice, with the `sluiceConfig` option); each test that
 * uses `sluice` or a page gets it reset first; every page's analytics traffic to Segment's and
 * RudderStack's hosts is routed to it (intercept.ts), so the app under test keeps its production
 * snippet and write key. `expect` has sluice/matchers.
 *
 *   import { test, expect } from 'sluice/playwright';
 *   test('checkout is tracked', async ({ page, sluice }) => {
 *     await page.goto('http://localhost:3000/');          // the app, with its analytics.js snippet
 *     await page.getByRole('button', { name: 'Buy' }).click();
 *     await expect(sluice).toHaveReceived({ event: 'Order Completed', properties: { total: 42 } });
 *   });
 *
 * @playwright/test is the project's own (a peer dependency): this module is the only one of Sluice that imports it.
 */
import './node-floor.ts';
import { test as base, expect as baseExpect, type BrowserContext, type Page } from '@playwright/test';
import { startSluice, type Sluice, type StartOptions } from '../index.ts';
import { sluiceMatchers } from '../matchers/index.ts';
import { intercept, type InterceptOptions } from './intercept.ts';

export type { InterceptHosts, InterceptOptions } from './intercept.ts';

/** The relay of the test's worker, reset before the test, and the routing of a page or context to it. */
export interface SluiceFixture extends Sluice {
  /**
   * Routes the analytics requests of a page or a browser context to this relay (done for the test's own
   * `context` and `page` unless the `sluiceIntercept` option is false). Options default to that option's.
   */
  intercept(target: Page | BrowserContext, options?: InterceptOptions): Promise<void>;
}

export interface SluiceTestOptions {
  /**
   * true (default): the test's context (so `page`) is routed to Sluice with the default hosts; an object:
   * routed with these hosts and analytics.js source; false: nothing is routed until sluice.intercept().
   */
  sluiceIntercept: boolean | InterceptOptions;
}

export interface SluiceWorkerOptions {
  /** The worker's relay's configuration, as startSluice({ config }) takes it: a config object or a config file's path. */
  sluiceConfig: StartOptions['config'];
}

export interface SluiceFixtures {
  /** The worker's relay, reset before the test. */
  sluice: SluiceFixture;
}

export interface SluiceWorkerFixtures {
  /** The worker's relay itself (not reset): for a worker-scoped fixture of the project's own. */
  sluiceRelay: Sluice;
}

export const test = base.extend<SluiceTestOptions & SluiceFixtures, SluiceWorkerOptions & SluiceWorkerFixtures>({
  sluiceConfig: [undefined, { scope: 'worker', option: true }],
  sluiceRelay: [
    async ({ sluiceConfig }, use) => {
      const relay = await startSluice(sluiceConfig === undefined ? {} : { config: sluiceConfig });
      try {
        await use(relay);
      } finally {
        await relay.close();
      }
    },
    { scope: 'worker', title: 'sluice relay' },
  ],
  sluiceIntercept: [true, { option: true }],
  sluice: [
    async ({ sluiceRelay, sluiceIntercept }, use) => {
      await sluiceRelay.reset();
      const defaults = typeof sluiceIntercept === 'object' ? sluiceIntercept : {};
      // Every property of the relay, those it does not enumerate (what sluice/matchers reads) included.
      const fixture = Object.defineProperties({}, Object.getOwnPropertyDescriptors(sluiceRelay)) as SluiceFixture;
      fixture.intercept = (target, options) => intercept(sluiceRelay, target, options ?? defaults);
      await use(fixture);
    },
    { title: 'sluice (reset)' },
  ],
  context: async ({ context, sluice, sluiceIntercept }, use) => {
    if (sluiceIntercept !== false) await sluice.intercept(context);
    await use(context);
  },
});

/**
 * Playwright's expect with sluice/matchers: `await expect(sluice).toHaveReceived(filter)`,
 * `.not.toHaveReceived(filter, { within })`, `toHaveReceivedInOrder`, `toHaveDelivered`, `toHaveNoViolations`.
 */
export const expect = baseExpect.extend(sluiceMatchers);
