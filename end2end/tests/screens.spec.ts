// Every screen, looked at: a full-page screenshot at 1024 px and 360 px in two languages
// (saved under test-results/), and axe-core with the WCAG 2.2 AA rules on each, which must
// find no serious or critical violation.

import type { Page } from '@playwright/test';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { axeViolations } from './support/a11y';
import { expect, test } from './support/fixtures';
import { BASE_URL } from './support/partner';
import { chooseFirstAvailableDay, fillCustomerDetails, openShop, PAYMENT_PAGE, ticketsFrame, waitForSettledFrame } from './support/shop';

function texts(locale: string): any {
  return JSON.parse(readFileSync(join(__dirname, '..', '..', 'app', 'locales', `${locale}.json`), 'utf8'));
}

for (const locale of ['en-GB', 'nl-NL']) {
  for (const width of [1024, 360]) {
    test.describe(`${locale} at ${width} px`, () => {
      test.use({ locale, viewport: { width, height: 800 } });

      test('every screen is clean for axe and photographed', async ({ page, partner }) => {
        test.setTimeout(120_000);
        const t = texts(locale);
        const found: string[] = [];
        const look = async (name: string, target: Page = page) => {
          // Let the frame settle at its reported height before the picture.
          await target.waitForTimeout(800);
          // A cross-site iframe is painted only inside the viewport, so the viewport takes the
          // whole page's height for the picture (a full-page capture would cut the frame off).
          const height = await target.evaluate(() => document.documentElement.scrollHeight);
          await target.setViewportSize({ width, height: Math.max(800, height) });
          await target.waitForTimeout(300);
          await target.screenshot({ path: test.info().outputPath(`${name}-${locale}-${width}.png`) });
          await target.setViewportSize({ width, height: 800 });
          found.push(...(await axeViolations(target)).map((v) => `${name}: ${v}`));
        };

        const frame = await openShop(page, partner, { user: `e2e-look-${locale}-${width}-${Date.now()}` });
        await expect(frame.getByRole('heading', { name: t.merchants.title })).toBeVisible();
        await expect(frame.locator('.card').first()).toBeVisible();
        await look('1-merchants');

        const museum = locale === 'nl-NL' ? 'Museum aan de Gracht' : 'Canal House Museum';
        await frame.getByRole('link', { name: museum }).click();
        await expect(frame.locator('.product-card').first()).toBeVisible();
        await look('2-merchant');

        await frame.getByRole('link', { name: /^(Adult admission|Toegang volwassene)$/ }).click();
        await expect(frame.getByRole('grid')).toBeVisible();
        await frame.getByRole('grid').locator('button.bookable').first().click();
        await look('3-product');

        await frame.getByRole('button', { name: t.product.proceed }).click();
        await expect(frame.getByTestId('total')).toBeVisible();
        await frame.getByRole('button', { name: t.checkout.pay }).click();
        await expect(frame.locator('[aria-invalid="true"]').first()).toBeVisible();
        await look('4-checkout-errors');

        await frame.getByLabel(t.checkout.email).fill('e2e.look@example.com');
        await frame.getByLabel(t.checkout.first_name).fill('Ada');
        await frame.getByLabel(t.checkout.last_name).fill('Lovelace');
        await frame.getByRole('button', { name: t.checkout.pay }).click();
        await page.waitForURL(PAYMENT_PAGE);
        await look('5-sandbox-payment');

        await page.getByRole('button', { name: t.pay.pay, exact: true }).click();
        await page.waitForURL((url) => url.origin === partner.origin);
        await expect(ticketsFrame(page).getByRole('img').first()).toBeVisible({ timeout: 20_000 });
        await look('6-tickets');

        const after = ticketsFrame(page);
        await after.getByRole('link', { name: t.nav.orders }).click();
        await expect(after.getByRole('heading', { name: t.orders.title })).toBeVisible();
        await expect(after.locator('.order').first()).toBeVisible();
        await look('7-orders');

        await after.getByRole('link', { name: t.nav.points }).click();
        await expect(after.getByRole('table')).toBeVisible();
        // The order's points, named in the customer's language with its display id, then the day.
        const earned = t.ledger.earned_for_order.replace('{{ reference }}', 'BX-[0-9A-Z]{4}-[0-9A-Z]{4}');
        await expect(after.getByRole('cell', { name: new RegExp(`^${earned} \\d`) })).toBeVisible();
        await look('8-points');

        // The zoo's timeslots, and a physical product's address form.
        const zoo = await openShop(page, partner, { user: `e2e-look2-${locale}-${width}-${Date.now()}` });
        await zoo.getByRole('link', { name: locale === 'nl-NL' ? 'Dierenpark De Zonnebloem' : 'Sunflower Zoo' }).click();
        // The merchant's page is taller: a click while the host still resizes the iframe is lost.
        await waitForSettledFrame(page);
        await zoo.getByRole('link', { name: /^(Day ticket with entry time|Dagkaart met tijdslot)$/ }).click();
        await chooseFirstAvailableDay(zoo).catch(() => zoo.getByRole('grid').locator('button.bookable').first().click());
        await expect(zoo.getByRole('radio').first()).toBeVisible();
        await look('9-timeslots');

        await page.goto(`${BASE_URL}/frame`);
        await expect(page.getByRole('heading', { name: t.session.missing_title })).toBeVisible();
        await look('10-no-session');

        await page.goto(`${BASE_URL}/prod/merchant/onboarding?code=not-a-real-code`);
        await expect(page.getByText(t.onboarding.failed)).toBeVisible();
        await look('11-onboarding-link-used');

        expect(found).toEqual([]);
      });
    });
  }
}

test('a physical product\'s address form is clean for axe', async ({ page, partner }) => {
  const frame = await openShop(page, partner, { user: `e2e-address-${Date.now()}` });
  await frame.getByRole('link', { name: /Canal House Museum/ }).click();
  await waitForSettledFrame(page);
  await frame.getByRole('link', { name: /Museum guide/ }).click();
  await frame.getByRole('button', { name: 'Continue' }).click();
  await fillCustomerDetails(frame);
  await frame.getByRole('button', { name: 'Go to payment' }).click();
  await expect(frame.getByLabel('Street')).toHaveAttribute('aria-invalid', 'true');
  await page.screenshot({ path: test.info().outputPath('address-errors.png'), fullPage: true });
  expect(await axeViolations(page)).toEqual([]);
});
