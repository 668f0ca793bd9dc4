// `test` with a `partner` fixture: one fake partner site (http://localhost:<port>) per worker.

import { test as base } from '@playwright/test';
import { startPartner, type Partner } from './partner';

export { expect } from '@playwright/test';

type NoTestFixtures = Record<never, never>;

export const test = base.extend<NoTestFixtures, { partner: Partner }>({
  partner: [
    // Playwright requires the fixture's first argument to be a destructuring pattern.
    async ({}, use) => {
      const partner = await startPartner();
      await use(partner);
      await partner.close();
    },
    { scope: 'worker' },
  ],
});
