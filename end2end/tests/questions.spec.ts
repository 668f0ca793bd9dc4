// Booking questions in the frame's details step (docs/api-checkout.md, "Booking questions"):
// the demo's "Feed the elephants" asks each visitor's name (required) and the booking's tour
// language (a choice, optional). A missing name is shown at its own field; answered, the order
// is paid. Photographed at 1024 and 360 px in English and Dutch, and clean for axe.

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { axeViolations } from './support/a11y';
import { expect, test } from './support/fixtures';
import {
  openShop,
  PAYMENT_PAGE,
  ticketsFrame,
  waitForSettledFrame,
} from './support/shop';

function texts(locale: string): any {
  return JSON.parse(readFileSync(join(__dirname, '..', '..', 'app', 'locales', `${locale}.json`), 'utf8'));
}

const WORDS: Record<string, { zoo: string; product: string; name: string; language: string; english: string }> = {
  'en-GB': { zoo: 'Sunflower Zoo', product: 'Feed the elephants', name: "Visitor's name", language: 'Tour language', english: 'English' },
  'nl-NL': { zoo: 'Dierenpark De Zonnebloem', product: 'Olifanten voeren', name: 'Naam van de bezoeker', language: 'Taal van de rondleiding', english: 'Engels' },
};

for (const locale of ['en-GB', 'nl-NL']) {
  test.describe(`${locale}`, () => {
    test.use({ locale });

    test('the details step asks each visitor\'s name and the tour language, and names a missing answer', async ({ page, partner }) => {
      test.setTimeout(90_000);
      const t = texts(locale);
      const w = WORDS[locale];
      const frame = await openShop(page, partner, { user: `e2e-questions-${locale}-${Date.now()}` });
      await frame.getByRole('link', { name: w.zoo }).click();
      await waitForSettledFrame(page);
      await frame.getByRole('link', { name: w.product }).click();
      await expect(frame.getByRole('heading', { level: 1, name: w.product })).toBeVisible();
      // The first bookable day, in either language (`chooseFirstAvailableDay` reads English).
      await frame.getByRole('grid').locator('button.bookable').first().click();
      // Two tickets in English, one in Dutch: the demo sells three a day of this product.
      const tickets = locale === 'en-GB' ? 2 : 1;
      if (tickets === 2) {
        await frame.getByRole('button', { name: t.product.increase.replace('{{ title }}', w.product) }).click();
      }
      await frame.getByRole('button', { name: t.product.proceed }).click();
      await expect(frame.getByTestId('total')).toBeVisible();

      const ticket = (n: number) => frame.getByRole('group', { name: `${t.checkout.ticket} ${n}: ${w.product}` });
      const first = ticket(1);
      const last = ticket(tickets);
      await expect(first.getByLabel(w.name)).toBeVisible();
      await expect(last.getByLabel(w.name)).toBeVisible();
      const booking = frame.getByRole('group', { name: t.checkout.questions });
      await expect(booking.getByLabel(new RegExp(w.language))).toBeVisible();

      await frame.getByLabel(t.checkout.email).fill('e2e.questions@example.com');
      await frame.getByLabel(t.checkout.first_name).fill('Ada');
      await frame.getByLabel(t.checkout.last_name).fill('Lovelace');
      if (tickets === 2) {
        await first.getByLabel(w.name).fill('Ann Smith');
      }
      await frame.getByRole('button', { name: t.checkout.pay }).click();
      // The last visitor's name is missing: its field says so (and a given one does not).
      await expect(last.getByLabel(w.name)).toHaveAttribute('aria-invalid', 'true');
      if (tickets === 2) {
        await expect(first.getByLabel(w.name)).not.toHaveAttribute('aria-invalid', 'true');
      }

      for (const width of [1024, 360]) {
        await page.setViewportSize({ width, height: 800 });
        await page.waitForTimeout(800);
        const height = await page.evaluate(() => document.documentElement.scrollHeight);
        await page.setViewportSize({ width, height: Math.max(800, height) });
        await page.waitForTimeout(300);
        await page.screenshot({ path: test.info().outputPath(`questions-${locale}-${width}.png`) });
      }
      await page.setViewportSize({ width: 1024, height: 800 });
      expect(await axeViolations(page)).toEqual([]);
      await waitForSettledFrame(page);

      // Answered, the form is sent from the keyboard (Enter in the field just filled): a
      // click right after the host resized the iframe for the pictures can miss the button.
      await booking.getByLabel(new RegExp(w.language)).selectOption({ label: w.english });
      await last.getByLabel(w.name).fill('Bo Smith');
      await last.getByLabel(w.name).press('Enter');
      await page.waitForURL(PAYMENT_PAGE);
      await page.getByRole('button', { name: t.pay.pay, exact: true }).click();
      await page.waitForURL((url) => url.origin === partner.origin);
      await expect(ticketsFrame(page).getByRole('img').first()).toBeVisible({ timeout: 20_000 });
    });
  });
}
