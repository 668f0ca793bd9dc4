import { defineConfig } from '@playwright/test';

// The server is started outside Playwright: `.ci/test` builds the release site, starts the
// server on a free port with a temporary data directory, waits for /readyz and passes its
// address in BOXOFFICE_BASE_URL. `cargo leptos end-to-end --release` also works: it starts the
// server on the workspace's site-addr, which is the default below.
const baseURL = process.env.BOXOFFICE_BASE_URL ?? 'http://127.0.0.1:3000';

// Debian's Chromium, never a downloaded browser build (this machine cannot fetch one). The
// flags keep it from dialling out at start, which the closed network refuses.
const chromium = process.env.BOXOFFICE_CHROMIUM ?? '/usr/bin/chromium';

export default defineConfig({
  testDir: './tests',
  timeout: 45_000,
  expect: { timeout: 10_000 },
  fullyParallel: true,
  forbidOnly: !!process.env.CI,
  retries: 0,
  workers: process.env.CI ? 1 : undefined,
  reporter: process.env.CI ? [['list']] : [['list'], ['html', { open: 'never' }]],
  use: {
    baseURL,
    trace: 'retain-on-failure',
  },
  projects: [
    {
      name: 'chromium',
      use: {
        browserName: 'chromium',
        launchOptions: {
          executablePath: chromium,
          args: [
            '--headless',
            '--no-sandbox',
            '--disable-gpu',
            '--disable-quic',
            '--no-first-run',
            '--disable-background-networking',
            '--disable-component-update',
            '--disable-sync',
            // Third-party cookies blocked, as Safari and privacy settings do: the frame must not need any.
            '--test-third-party-cookie-phaseout',
          ],
        },
      },
    },
  ],
});
