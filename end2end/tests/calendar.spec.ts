// The calendar in each language: axe (label-content-name-mismatch included, see a11y.ts) finds
// no serious or critical violation, and every day's accessible name begins with what the day
// shows, its number and short price (WCAG 2.5.3 Label in Name), so voice control users can say
// what they see and screen reader users hear it first.

import { axeViolations } from './support/a11y';
import { expect, test } from './support/fixtures';
import { openShop, waitForSettledFrame } from './support/shop';

const CASES = [
  { locale: 'nl-NL', museum: 'Museum aan de Gracht', adult: 'Toegang volwassene' },
  { locale: 'en-GB', museum: 'Canal House Museum', adult: 'Adult admission' },
  { locale: 'de-DE', museum: 'Grachtenhausmuseum', adult: 'Eintritt Erwachsene' },
  { locale: 'fr-FR', museum: 'Musée du Canal', adult: 'Entrée adulte' },
];

/** Letters and digits only, one space between runs: how a name is compared with a label. */
function words(text: string): string {
  return text.replace(/[^\p{L}\p{N}]+/gu, ' ').trim();
}

for (const { locale, museum, adult } of CASES) {
  test.describe(locale, () => {
    test.use({ locale });

    test(`the ${locale} calendar names each day starting with what it shows, and is clean for axe`, async ({ page, partner }) => {
      const frame = await openShop(page, partner);
      await frame.getByRole('link', { name: museum }).click();
      await waitForSettledFrame(page);
      await frame.getByRole('link', { name: adult, exact: true }).click();
      const grid = frame.getByRole('grid');
      await expect(grid.locator('button.bookable').first()).toBeVisible();

      const days = await grid.locator('button.bookable').evaluateAll((buttons) =>
        buttons.map((b) => ({ shown: (b as HTMLElement).innerText, name: b.getAttribute('aria-label') ?? '' })),
      );
      expect(days.length).toBeGreaterThan(0);
      for (const { shown, name } of days) {
        expect(words(name).startsWith(words(shown)), `"${name}" begins with "${shown}"`).toBe(true);
        expect(words(shown).split(' ').length, `number and price: "${shown}"`).toBeGreaterThanOrEqual(2);
      }
      expect(await axeViolations(page)).toEqual([]);
    });
  });
}
