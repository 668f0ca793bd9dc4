// One smoke per language: the frame's texts, a merchant's localized name, a calendar month and
// a price, each as that locale writes them. The texts come from the locale files themselves.

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test } from './support/fixtures';
import { openShop, waitForSettledFrame } from './support/shop';

function texts(locale: string): any {
  return JSON.parse(readFileSync(join(__dirname, '..', '..', 'app', 'locales', `${locale}.json`), 'utf8'));
}

const CASES = [
  { locale: 'nl-NL', museum: 'Museum aan de Gracht', adult: 'Toegang volwassene', money: /€\u00a0\d+,\d\d/ },
  { locale: 'en-GB', museum: 'Canal House Museum', adult: 'Adult admission', money: /€\d+\.\d\d/ },
  { locale: 'de-DE', museum: 'Grachtenhausmuseum', adult: 'Eintritt Erwachsene', money: /\d+,\d\d\u00a0€/ },
  { locale: 'fr-FR', museum: 'Musée du Canal', adult: 'Entrée adulte', money: /\d+,\d\d\u00a0€/ },
];

for (const { locale, museum, adult, money } of CASES) {
  test.describe(locale, () => {
    // The browser's language: the frame's first render follows its Accept-Language.
    test.use({ locale });

    test(`the frame speaks ${locale}: texts, names, months and money`, async ({ page, partner }) => {
      const t = texts(locale);
      const frame = await openShop(page, partner);
      await expect(frame.locator('html')).toHaveAttribute('lang', locale);
      await expect(frame.getByRole('heading', { name: t.merchants.title })).toBeVisible();
      await expect(frame.getByLabel(t.merchants.search_label)).toBeVisible();
      await expect(frame.getByRole('link', { name: t.nav.orders })).toBeVisible();

      await frame.getByRole('link', { name: museum }).click();
      await expect(frame.getByRole('heading', { level: 1, name: museum })).toBeVisible();
      await frame.getByRole('heading', { level: 2, name: t.merchant.products_title }).waitFor();
      // A click while the host still resizes the iframe is lost.
      await waitForSettledFrame(page);
      // The demo's product titles are in all four languages too.
      await frame.getByRole('link', { name: adult, exact: true }).click();

      const months: string[] = t.fmt.months.split(',');
      await expect(frame.getByRole('heading', { level: 3, name: new RegExp(`^(${months.join('|')}) \\d{4}$`) })).toBeVisible();
      const day = frame.getByRole('grid').locator('button.bookable').first();
      await expect(day).toHaveAttribute('aria-label', money);
      await expect(frame.getByRole('button', { name: t.product.proceed })).toBeVisible();
    });

    test(`on a 320 px phone the ${locale} menu stays one row`, async ({ page, partner }) => {
      const t = texts(locale);
      await page.setViewportSize({ width: 320, height: 640 });
      const frame = await openShop(page, partner);
      const menu = frame.getByRole('navigation', { name: t.nav.label });
      const links = [t.nav.shop, t.nav.orders, t.nav.points].map((name) => menu.getByRole('link', { name }));
      const boxes = await Promise.all(links.map(async (link) => (await link.boundingBox())!));
      // One row: every link's box spans the same band, whatever its own height.
      const top = Math.max(...boxes.map((b) => b.y));
      const bottom = Math.min(...boxes.map((b) => b.y + b.height));
      expect(top).toBeLessThan(bottom);
      for (const box of boxes) expect(box.height).toBeGreaterThanOrEqual(44);
      // A label may take two lines, but only between its words: each word is one box.
      for (const link of links) {
        const split = await link.evaluate((el) => {
          const split: string[] = [];
          const texts = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
          for (let text = texts.nextNode(); text; text = texts.nextNode()) {
            for (const word of (text.textContent ?? '').matchAll(/\S+/g)) {
              const range = document.createRange();
              range.setStart(text, word.index!);
              range.setEnd(text, word.index! + word[0].length);
              if (range.getClientRects().length > 1) split.push(word[0]);
            }
          }
          return split;
        });
        expect(split).toEqual([]);
      }
    });
  });
}

test('the host can switch the language, and so can the customer', async ({ page, partner }) => {
  const frame = await openShop(page, partner, { lang: 'fr-FR' });
  await expect(frame.getByRole('heading', { name: texts('fr-FR').merchants.title })).toBeVisible();
  await frame.getByLabel(texts('fr-FR').language.label).selectOption('de-DE');
  await expect(frame.getByRole('heading', { name: texts('de-DE').merchants.title })).toBeVisible();
  await expect(frame.locator('html')).toHaveAttribute('lang', 'de-DE');
});

test('a language switch re-renders the screen on view, catalog texts included', async ({ page, partner }) => {
  // The host's language is in the frame's address (embed.js's `locale`), so the first list is
  // already French whatever the browser's language.
  const [fr, de] = [texts('fr-FR'), texts('de-DE')];
  const frame = await openShop(page, partner, { lang: 'fr-FR' });
  await frame.getByRole('link', { name: 'Musée du Canal' }).click();
  await expect(frame.getByRole('heading', { level: 1, name: 'Musée du Canal' })).toBeVisible();
  await expect(frame.getByRole('link', { name: 'Entrée adulte', exact: true })).toBeVisible();

  await frame.getByLabel(fr.language.label).selectOption('de-DE');
  // The same screen, now with the merchant's German name and product titles.
  await expect(frame.getByRole('heading', { level: 1, name: 'Grachtenhausmuseum' })).toBeVisible();
  await expect(frame.getByRole('link', { name: 'Eintritt Erwachsene', exact: true })).toBeVisible();
  await expect(frame.getByRole('heading', { level: 2, name: de.merchant.products_title })).toBeVisible();

  await waitForSettledFrame(page);
  await frame.getByRole('link', { name: 'Eintritt Erwachsene', exact: true }).click();
  await expect(frame.getByRole('heading', { level: 1, name: 'Eintritt Erwachsene' })).toBeVisible();
  await frame.getByLabel(de.language.label).selectOption('en-GB');
  await expect(frame.getByRole('heading', { level: 1, name: 'Adult admission' })).toBeVisible();
});

test('a language switch on the first screen reads the places again, names and descriptions included', async ({ page, partner }) => {
  // The list the frame's page came with (docs/webframe.md, "The first screen") is French: the
  // host's language is in the frame's address.
  const [fr, de] = [texts('fr-FR'), texts('de-DE')];
  const frame = await openShop(page, partner, { lang: 'fr-FR' });
  const lieux = frame.getByRole('list', { name: fr.merchants.results_label });
  await expect(lieux.getByRole('link', { name: 'Musée du Canal' })).toBeVisible();
  await expect(lieux.getByText('Maîtres hollandais et design moderne dans une maison de canal.')).toBeVisible();
  const count = await lieux.getByRole('listitem').count();

  await frame.getByLabel(fr.language.label).selectOption('de-DE');
  await expect(frame.getByRole('heading', { level: 1, name: de.merchants.title })).toBeVisible();
  const orte = frame.getByRole('list', { name: de.merchants.results_label });
  await expect(orte.getByRole('link', { name: 'Grachtenhausmuseum' })).toBeVisible();
  await expect(orte.getByText('Niederländische Meister und modernes Design in einem Grachtenhaus.')).toBeVisible();
  await expect(orte.getByText('Elefanten, Giraffen und ein Schmetterlingsgarten.')).toBeVisible();
  await expect(orte.getByText(`${de.category.park} · Kaatsheuvel`)).toBeVisible();
  // Every place once, and nothing French left in the list.
  await expect(orte.getByRole('listitem')).toHaveCount(count);
  await expect(orte.getByText(/Musée du Canal|Maîtres hollandais|Parc Aventure/)).toHaveCount(0);

  // The list read in German is the live one: a place opens from it, in German.
  await orte.getByRole('link', { name: 'Grachtenhausmuseum' }).click();
  await expect(frame.getByRole('heading', { level: 1, name: 'Grachtenhausmuseum' })).toBeVisible();
});
