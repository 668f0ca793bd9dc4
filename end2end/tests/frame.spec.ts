import { expect, test, type ConsoleMessage, type Page } from '@playwright/test';

/** Collects uncaught page errors and console errors, which must stay empty. */
function watchForErrors(page: Page): string[] {
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(`page error: ${error.message}`));
  page.on('console', (message: ConsoleMessage) => {
    if (message.type() === 'error') {
      errors.push(`console error: ${message.text()}`);
    }
  });
  return errors;
}

test('the server-rendered frame carries the hydration script and its assets', async ({ request }) => {
  const response = await request.get('/frame');
  expect(response.status()).toBe(200);
  expect(response.headers()['content-type']).toContain('text/html');
  const html = await response.text();

  expect(html).toContain('<html lang="nl-NL"');
  expect(html).toContain('Welkom bij Boxoffice');
  expect(html).toMatch(/<link rel="modulepreload" href="\/pkg\/boxoffice\.js"/);
  expect(html).toMatch(/<link rel="preload" href="\/pkg\/boxoffice\.wasm"/);
  expect(html).toMatch(/<script type="module"[^>]*>[^<]*mod\.hydrate\(\)/);
  expect(html).toContain('href="/pkg/boxoffice.css"');

  for (const [path, type] of [
    ['/pkg/boxoffice.js', 'javascript'],
    ['/pkg/boxoffice.wasm', 'application/wasm'],
    ['/pkg/boxoffice.css', 'text/css'],
    ['/favicon.svg', 'image/svg+xml'],
  ]) {
    const asset = await request.get(path);
    expect(asset.status(), path).toBe(200);
    expect(asset.headers()['content-type'], path).toContain(type);
  }
});

test('the frame hydrates: the language switcher changes the page without a reload', async ({ page }) => {
  const errors = watchForErrors(page);
  await page.goto('/frame');

  // Effects run only in the browser, so this attribute proves the WASM app took over.
  await expect(page.locator('.frame[data-hydrated="true"]')).toBeVisible();

  const heading = page.getByTestId('welcome');
  const dutch = page.getByRole('button', { name: 'Nederlands' });
  const english = page.getByRole('button', { name: 'English' });
  await expect(heading).toHaveText('Welkom bij Boxoffice');
  await expect(dutch).toHaveAttribute('aria-pressed', 'true');
  await expect(english).toHaveAttribute('aria-pressed', 'false');
  await expect(page.locator('html')).toHaveAttribute('lang', 'nl-NL');

  await english.click();

  await expect(heading).toHaveText('Welcome to Boxoffice');
  await expect(english).toHaveAttribute('aria-pressed', 'true');
  await expect(dutch).toHaveAttribute('aria-pressed', 'false');
  await expect(page.locator('html')).toHaveAttribute('lang', 'en-GB');

  expect(errors).toEqual([]);
});
