import type { Page } from '@playwright/test';
import { expect, test } from './support/fixtures';
import { BASE_URL, BOXOFFICE_ORIGIN, startPartner } from './support/partner';
import { FRAME_SELECTOR, frameOf, hostEvents, openShop, ticketsFrame, waitForHostEvent, waitForSettledFrame } from './support/shop';

/** The iframe's height in the host page beside the last height the frame reported. */
async function heights(page: Page): Promise<{ reported: number; shown: number }> {
  return page.evaluate((selector) => {
    const resize = window.boxofficeEvents.filter((e) => e.type === 'boxoffice:resize').pop();
    const iframe = document.querySelector(selector) as HTMLIFrameElement;
    return { reported: Math.ceil(Number(resize?.detail.height ?? -1)), shown: iframe.getBoundingClientRect().height };
  }, FRAME_SELECTOR);
}

test('the host page hears the frame: ready, then its height, and the iframe takes that height', async ({ page, partner }) => {
  await openShop(page, partner);

  const resize = await waitForHostEvent(page, 'boxoffice:resize');
  expect(resize.detail.height).toBeGreaterThan(0);
  await expect.poll(async () => {
    const { reported, shown } = await heights(page);
    return shown === reported;
  }).toBe(true);
  expect((await hostEvents(page)).map((e) => e.type)).toContain('boxoffice:ready');

  // Sized to its content, the frame never scrolls inside itself.
  const frame = await frameOf(page);
  await expect.poll(() => frame.evaluate(() => {
    const root = document.documentElement;
    return root.scrollHeight <= root.clientHeight;
  })).toBe(true);
});

for (const width of [320, 768, 1440]) {
  test(`at ${width} px the frame fits its iframe: no scroll bar inside, either way`, async ({ page, partner }) => {
    await page.setViewportSize({ width, height: 700 });
    const shop = await openShop(page, partner);
    await shop.getByRole('link', { name: /Canal House Museum/ }).click();
    await expect(shop.getByRole('link', { name: /Adult admission/ })).toBeVisible();
    await waitForSettledFrame(page);
    await shop.getByRole('link', { name: /Adult admission/ }).click();
    await expect(shop.getByRole('grid')).toBeVisible();

    const frame = await frameOf(page);
    const fits = () => frame.evaluate(() => {
      const root = document.documentElement;
      return root.scrollWidth <= root.clientWidth && root.scrollHeight <= root.clientHeight;
    });
    await expect.poll(fits).toBe(true);
  });
}

test('a bare <iframe> without embed.js gets the same messages', async ({ page, partner }) => {
  await openShop(page, partner, { bare: '1' });

  const resize = await waitForHostEvent(page, 'boxoffice:resize');
  expect(resize.detail.height).toBeGreaterThan(0);
  await expect(ticketsFrame(page).getByRole('heading', { name: 'Where would you like to go?' })).toBeVisible();
});

test('a site that is not among the partner\'s frame origins cannot frame it', async ({ page }) => {
  // 127.0.0.2 is loopback too, but the demo partner registered only localhost and 127.0.0.1.
  const stranger = await startPartner({ host: '127.0.0.2' });
  try {
    const refusals: string[] = [];
    page.on('console', (message) => {
      if (message.text().includes('frame-ancestors')) {
        refusals.push(message.text());
      }
    });

    await page.goto(stranger.url('/shop'));
    await expect(page.getByRole('heading', { level: 1, name: 'Partner shop' })).toBeVisible();
    await page.waitForFunction(() => window.boxofficeFrameLoads > 0);

    // Chromium refuses the document, says why, and shows its own error page in its place.
    await expect.poll(() => refusals.length).toBeGreaterThan(0);
    const inside = await frameOf(page);
    expect(await inside.evaluate(() => location.origin).catch(() => 'unreachable')).not.toBe(BOXOFFICE_ORIGIN);
    await expect(ticketsFrame(page).getByRole('heading', { name: 'Where would you like to go?' })).toHaveCount(0);
    // Refused before it ran, the frame never spoke to the host page.
    expect(await hostEvents(page)).toEqual([]);
  } finally {
    await stranger.close();
  }
});

test('the frame sets no cookie, in its own document or for the Boxoffice origin', async ({ page, context, partner }) => {
  const frameLocator = await openShop(page, partner);
  await expect(frameLocator.getByRole('heading', { name: 'Where would you like to go?' })).toBeVisible();

  const frame = await frameOf(page);
  expect(await frame.evaluate(() => document.cookie)).toBe('');

  const boxofficeHost = new URL(BASE_URL).hostname;
  const cookies = await context.cookies();
  expect(cookies.filter((c) => c.domain.replace(/^\./, '') === boxofficeHost)).toEqual([]);
});

test('deep links open a merchant, or one of its products, directly', async ({ page, partner, request }) => {
  // Any error the frame logs (a panic among them) fails the test.
  const errors: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error') {
      errors.push(message.text());
    }
  });
  page.on('pageerror', (error) => errors.push(error.message));
  const museum = 'd3e0e7c1-0000-4000-8000-000000000001';
  const products = await request.get(`${BASE_URL}/v2/merchants/${museum}/products`, {
    headers: { 'x-campaign-id': 'd3e0ca11-0000-4000-8000-000000000001', 'Accept-Language': 'en-GB' },
  });
  const adult = (await products.json()).data.find((p: { sku: string }) => p.sku === 'MUS-ADULT');

  const product = await openShop(page, partner, { merchant_id: museum, product_id: adult.id });
  await expect(product.getByRole('heading', { level: 1, name: 'Adult admission' })).toBeVisible();
  await expect(product.getByRole('grid')).toBeVisible();

  const merchant = await openShop(page, partner, { merchant_id: museum });
  await expect(merchant.getByRole('heading', { level: 1, name: 'Canal House Museum' })).toBeVisible();
  expect(errors).toEqual([]);
});
