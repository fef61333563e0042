// Playwright Test for examples/playwright-fixture/: `npx playwright test -c examples/playwright-fixture/playwright.config.mjs`
// (after `npm i -D sluice @playwright/test @segment/analytics-next`). The shop (shop.mjs) is started by
// globalSetup. Uses the Chromium at SLUICE_CHROMIUM (default /usr/bin/chromium) rather than one
// `npx playwright install` downloads; drop `executablePath` to use that.
import { defineConfig } from '@playwright/test';

export default defineConfig({
  testDir: '.',
  globalSetup: './shop.mjs',
  reporter: 'list',
  timeout: 30_000,
  use: {
    browserName: 'chromium',
    launchOptions: {
      executablePath: process.env.SLUICE_CHROMIUM ?? '/usr/bin/chromium',
      args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    },
  },
});
