// Playwright Test for examples/playwright/. Uses the Chromium at SLUICE_CHROMIUM (default
// /usr/bin/chromium) rather than one `npx playwright install` downloads; drop `executablePath` to use that.
import { defineConfig } from '@playwright/test';

export default defineConfig({
  testDir: '.',
  reporter: 'line',
  timeout: 30_000,
  use: {
    browserName: 'chromium',
    launchOptions: {
      executablePath: process.env.SLUICE_CHROMIUM ?? '/usr/bin/chromium',
      args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    },
  },
});
