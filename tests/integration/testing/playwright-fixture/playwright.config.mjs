// Playwright Test for the fixture's tests (tests/integration/testing/playwright-fixture.test.ts runs
// it with the JSON reporter): two workers, Debian's Chromium, the shop of shop.mjs.
import { defineConfig } from '@playwright/test';

export default defineConfig({
  testDir: '.',
  testMatch: '*.spec.mjs',
  globalSetup: './shop.mjs',
  workers: 2,
  timeout: 20_000,
  reporter: 'json',
  use: {
    browserName: 'chromium',
    launchOptions: {
      executablePath: process.env.SLUICE_CHROMIUM ?? '/usr/bin/chromium',
      args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    },
  },
});
