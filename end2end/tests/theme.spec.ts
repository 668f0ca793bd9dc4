// A partner's look (docs/webframe.md, "Your look"): a theme set through the operator API is in
// the frame from its first paint (the page as rendered, before its script runs, looks as it
// does once hydrated), in a light and a dark scheme and in `auto` on a dark device, and axe
// finds no serious or critical violation in any of them. Screenshots at 1024 and 360 px are
// saved under test-results/.

import type { Frame, Page } from '@playwright/test';
import { axeViolations } from './support/a11y';
import { expect, test } from './support/fixtures';
import { BASE_URL, DEMO_CAMPAIGN } from './support/partner';
import { openShop, waitForSettledFrame } from './support/shop';

interface Theme {
  accent?: string;
  accent_text?: string;
  background?: string;
  text?: string;
  corner_radius?: number;
  font_stack?: string;
  color_scheme: 'light' | 'dark' | 'auto';
}

const CASES: { name: string; theme: Theme; device: 'light' | 'dark'; locale: string; museum: string; adult: string; want: { background: string; text: string; accent: string; scheme: string }}[] = [
  {
    name: 'light',
    theme: { color_scheme: 'light', accent: '#0b5cad', accent_text: '#ffffff', background: '#fbf7ef', text: '#2a1f14', corner_radius: 14, font_stack: 'Georgia, serif' },
    device: 'light',
    locale: 'en-GB',
    museum: 'Canal House Museum',
    adult: 'Adult admission',
    want: { background: 'rgb(251, 247, 239)', text: 'rgb(42, 31, 20)', accent: 'rgb(11, 92, 173)', scheme: 'light' },
  },
  {
    name: 'dark',
    theme: { color_scheme: 'dark', accent: '#ffb454', accent_text: '#1a1000', background: '#101418', text: '#f0f0f0', corner_radius: 2 },
    device: 'light',
    locale: 'nl-NL',
    museum: 'Museum aan de Gracht',
    adult: 'Toegang volwassene',
    want: { background: 'rgb(16, 20, 24)', text: 'rgb(240, 240, 240)', accent: 'rgb(255, 180, 84)', scheme: 'dark' },
  },
  {
    // `auto` on a device that prefers dark: the designed dark palette, the partner's shape.
    name: 'auto-on-a-dark-device',
    theme: { color_scheme: 'auto', accent: '#0b5cad', background: '#fbf7ef', text: '#2a1f14', corner_radius: 20 },
    device: 'dark',
    locale: 'de-DE',
    museum: 'Grachtenhausmuseum',
    adult: 'Eintritt Erwachsene',
    // The theme's CSS says `dark` outright on a dark device (server/src/theme/css.rs says why).
    want: { background: 'rgb(22, 25, 29)', text: 'rgb(230, 232, 235)', accent: 'rgb(138, 180, 248)', scheme: 'dark' },
  },
];

function admin(): string {
  const token = process.env.BOXOFFICE_ADMIN_TOKEN;
  if (!token) throw new Error('BOXOFFICE_ADMIN_TOKEN is not set: start the server with an operator token');
  return token;
}

/** A partner client with `theme` (operator API), and a webframe session code of it. */
async function themedSessionCode(name: string, theme: Theme): Promise<string> {
  const origins = ['http://localhost:*', 'http://127.0.0.1:*'];
  const created = await fetch(`${BASE_URL}/admin/v1/clients`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${admin()}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ name, campaign_ids: [DEMO_CAMPAIGN], frame_origins: origins, return_origins: origins, theme }),
  });
  expect(created.status, await created.clone().text()).toBe(201);
  const { data: client } = (await created.json()) as { data: { client_id: string; client_secret: string } };
  const token = await fetch(`${BASE_URL}/oauth/token`, {
    method: 'POST',
    body: new URLSearchParams({ grant_type: 'client_credentials', client_id: client.client_id, client_secret: client.client_secret }),
  });
  const { access_token } = (await token.json()) as { access_token: string };
  const session = await fetch(`${BASE_URL}/v1/session`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${access_token}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ integration: 'webframe', user: { reference: `e2e-theme-${Date.now()}` }, campaign_id: DEMO_CAMPAIGN }),
  });
  expect(session.status).toBe(201);
  return ((await session.json()) as { data: { session_code: string } }).data.session_code;
}

/** What the frame's document looks like: its colours, scheme, font and corner radius. */
function look() {
  const root = getComputedStyle(document.documentElement);
  const probe = document.createElement('div');
  probe.style.background = 'var(--accent)';
  document.documentElement.append(probe);
  const accent = getComputedStyle(probe).backgroundColor;
  probe.remove();
  return {
    background: root.backgroundColor,
    text: root.color,
    accent,
    scheme: root.colorScheme,
    font: root.fontFamily,
    radius: root.getPropertyValue('--radius').trim(),
  };
}

/** Records the frame's look as soon as its server-rendered document is parsed, before hydration. */
async function recordFirstLook(page: Page): Promise<void> {
  await page.addInitScript(`(() => {
    if (!location.pathname.startsWith('/frame')) return;
    const look = ${look.toString()};
    document.addEventListener('DOMContentLoaded', () => { window.boxofficeFirstLook = look(); });
  })()`);
}

function frameOf(page: Page): Frame {
  const frame = page.frames().find((f) => new URL(f.url()).pathname.startsWith('/frame'));
  if (!frame) throw new Error('no frame');
  return frame;
}

async function photograph(page: Page, name: string): Promise<void> {
  for (const width of [1024, 360]) {
    await page.setViewportSize({ width, height: 800 });
    await waitForSettledFrame(page);
    const height = await page.evaluate(() => document.documentElement.scrollHeight);
    await page.setViewportSize({ width, height: Math.max(800, height) });
    await page.waitForTimeout(300);
    await page.screenshot({ path: test.info().outputPath(`${name}-${width}.png`) });
  }
  await page.setViewportSize({ width: 1024, height: 800 });
}

for (const c of CASES) {
  test.describe(`a ${c.name} theme`, () => {
    test.use({ locale: c.locale, colorScheme: c.device });

    test('is there from the first paint, looks the same once hydrated, and is clean for axe', async ({ page, partner }) => {
      test.setTimeout(90_000);
      const code = await themedSessionCode(`e2e ${c.name} ${Date.now()}`, c.theme);
      await recordFirstLook(page);
      const frame = await openShop(page, partner, { code });

      const first = await frameOf(page).evaluate(() => (window as any).boxofficeFirstLook);
      const hydrated = await frameOf(page).evaluate(look);
      expect(first, 'recorded before hydration').toBeTruthy();
      expect(hydrated).toEqual(first);
      expect({ background: first.background, text: first.text, accent: first.accent, scheme: first.scheme }).toEqual(c.want);
      if (c.theme.corner_radius !== undefined) expect(first.radius).toBe(`${c.theme.corner_radius}px`);
      if (c.theme.font_stack) expect(first.font).toBe(c.theme.font_stack);

      await expect(frame.getByRole('link', { name: c.museum })).toBeVisible();
      expect(await axeViolations(page)).toEqual([]);
      await photograph(page, `theme-${c.name}-merchants-${c.locale}`);

      await frame.getByRole('link', { name: c.museum }).click();
      await waitForSettledFrame(page);
      await frame.getByRole('link', { name: c.adult, exact: true }).click();
      await expect(frame.getByRole('grid')).toBeVisible();
      await frame.getByRole('grid').locator('button.bookable').first().click();
      expect(await axeViolations(page)).toEqual([]);
      await photograph(page, `theme-${c.name}-product-${c.locale}`);
      expect(await frameOf(page).evaluate(look)).toEqual(first);
    });
  });
}

test('the frame without a theme keeps its own light look', async ({ page, partner }) => {
  await recordFirstLook(page);
  await openShop(page, partner);
  const first = await frameOf(page).evaluate(() => (window as any).boxofficeFirstLook);
  expect({ background: first.background, accent: first.accent, scheme: first.scheme }).toEqual({
    background: 'rgb(255, 255, 255)',
    accent: 'rgb(31, 58, 95)',
    scheme: 'light',
  });
});
