// Pictures in the frame (docs/api-catalog.md, "Pictures"): the demo's merchants and two of its
// products have drawn covers. The merchant list shows each cover beside its card's text, the
// product screen above its choices; each is described by its alternative text in the
// customer's language, loads lazily from `srcset` at the width the layout needs, and has its
// box before it loads. Photographed at 1024 and 360 px in English and Dutch, and clean for axe.

import { axeViolations } from './support/a11y';
import { expect, test } from './support/fixtures';
import { openShop, waitForSettledFrame } from './support/shop';

const WORDS: Record<string, { zoo: string; zooAlt: RegExp; product: string; productAlt: RegExp }> = {
  'en-GB': {
    zoo: 'Sunflower Zoo',
    zooAlt: /^Drawn landscape: green hills under a blue sky$/,
    product: 'Feed the elephants',
    productAlt: /^Drawn landscape: green hills under a blue sky$/,
  },
  'nl-NL': {
    zoo: 'Dierenpark De Zonnebloem',
    zooAlt: /^Getekend landschap: groene heuvels onder een blauwe lucht$/,
    product: 'Olifanten voeren',
    productAlt: /^Getekend landschap: groene heuvels onder een blauwe lucht$/,
  },
};

// Screenshots of the whole frame at both widths.
async function photograph(page: import('@playwright/test').Page, name: string) {
  for (const width of [1024, 360]) {
    await page.setViewportSize({ width, height: 800 });
    await page.waitForTimeout(800);
    const height = await page.evaluate(() => document.documentElement.scrollHeight);
    await page.setViewportSize({ width, height: Math.max(800, height) });
    await page.waitForTimeout(300);
    await page.screenshot({ path: test.info().outputPath(`${name}-${width}.png`) });
  }
  await page.setViewportSize({ width: 1024, height: 800 });
}

for (const locale of ['en-GB', 'nl-NL']) {
  test.describe(`${locale}`, () => {
    test.use({ locale });

    test('covers show on the merchant list and the product screen, described and lazily loaded', async ({ page, partner }) => {
      test.setTimeout(90_000);
      const w = WORDS[locale];
      const frame = await openShop(page, partner, { user: `e2e-pictures-${locale}-${Date.now()}` });

      // The list: the zoo's card has its cover, named by its alternative text.
      const card = frame.getByRole('listitem').filter({ has: frame.getByRole('link', { name: w.zoo }) });
      const cover = card.getByRole('img', { name: w.zooAlt });
      await expect(cover).toBeVisible();
      await expect(cover).toHaveAttribute('loading', 'lazy');
      await expect(cover).toHaveAttribute('srcset', /320\.webp 320w, .*640\.webp 640w, .*1280\.webp 1280w$/);
      await expect(cover).toHaveAttribute('sizes', /10rem/);
      // Its box is there before and after it loads: a thumbnail left of the text, 4:3.
      const box = await cover.boundingBox();
      expect(box).not.toBeNull();
      expect(Math.round((box!.width / box!.height) * 3)).toBe(4);
      await expect
        .poll(() => cover.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth > 0))
        .toBe(true);
      // The name comes before the picture for a screen reader.
      const order = await card.evaluate((li) => Array.from(li.querySelectorAll('a, img')).map((e) => e.tagName));
      expect(order).toEqual(['A', 'IMG']);
      await photograph(page, `pictures-list-${locale}`);
      expect(await axeViolations(page)).toEqual([]);

      // The product: its cover under the title, full width, 16:9.
      await frame.getByRole('link', { name: w.zoo }).click();
      await waitForSettledFrame(page);
      await frame.getByRole('link', { name: w.product }).click();
      await expect(frame.getByRole('heading', { level: 1, name: w.product })).toBeVisible();
      const hero = frame.getByRole('img', { name: w.productAlt });
      await expect(hero).toBeVisible();
      await expect(hero).toHaveAttribute('loading', 'lazy');
      await expect
        .poll(() => hero.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth > 0))
        .toBe(true);
      // The browser took a rendition from srcset, not a fixed file.
      const chosen = await hero.evaluate((img: HTMLImageElement) => img.currentSrc);
      expect(chosen).toMatch(/\/images\/[0-9a-f-]+\/(320|640|1280)\.webp$/);
      await photograph(page, `pictures-product-${locale}`);
      expect(await axeViolations(page)).toEqual([]);
    });
  });
}
