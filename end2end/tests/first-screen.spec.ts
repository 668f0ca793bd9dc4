import { expect, test } from './support/fixtures';
import { createSession } from './support/partner';

// docs/webframe.md §16: the places a fresh code opens on are in the page the server sends, so
// a phone shows them before the frame's code has loaded; the page takes no input until the
// frame has started its session.

test('the places are in the first paint, before any script runs, and inert until the session starts', async ({ browser }) => {
  const { session_code: code } = await createSession(`e2e-first-${Date.now()}`);
  const context = await browser.newContext({ javaScriptEnabled: false, viewport: { width: 360, height: 740 } });
  const page = await context.newPage();
  const stylesheets: string[] = [];
  page.on('request', (request) => { if (request.resourceType() === 'stylesheet') stylesheets.push(request.url()); });
  await page.goto(`/frame?session_code=${code}&locale=en-GB`);

  await expect(page.getByText('Where would you like to go?')).toBeVisible();
  await expect(page.getByText('Canal House Museum')).toBeVisible();
  // Without its script the page never becomes usable: nothing in it takes a click or focus.
  await expect(page.locator('.frame')).toHaveAttribute('inert', '');
  await expect(page.locator('.frame')).toHaveAttribute('aria-busy', 'true');
  // The stylesheet comes in the page (docs/architecture.md): the first paint waits for no request.
  expect(stylesheets).toEqual([]);
  await expect(page.locator('head style#boxoffice')).toHaveCount(1);
  // Styled from the first paint: unstyled, the search field and its button would stack.
  await expect(page.locator('.search-row')).toHaveCSS('display', 'flex');
  await page.screenshot({ path: 'test-results/first-screen-before-script-360.png', fullPage: true });
  await context.close();
});

test('once the frame runs, the list the server rendered is the live one and works', async ({ page }) => {
  const { session_code: code } = await createSession(`e2e-first-live-${Date.now()}`);
  const reads: string[] = [];
  page.on('request', (request) => {
    if (new URL(request.url()).pathname === '/v2/merchants') reads.push(request.url());
  });
  await page.goto(`/frame?session_code=${code}&locale=en-GB`);
  await expect(page.locator('.frame[data-hydrated="true"]')).toBeVisible();
  await expect(page.locator('.frame')).not.toHaveAttribute('inert');
  const places = page.getByRole('list', { name: 'Places' });
  await expect(places.getByRole('link', { name: 'Canal House Museum' })).toBeVisible();
  await expect(page.getByRole('navigation')).toBeVisible();
  expect(reads, 'the first page is not read again').toEqual([]);

  await page.getByRole('searchbox', { name: 'Search by name, city or category' }).fill('canal');
  await page.getByRole('button', { name: 'Search' }).click();
  await expect(places.getByRole('listitem')).toHaveCount(1);
  await places.getByRole('link', { name: 'Canal House Museum' }).click();
  await expect(page.getByRole('heading', { level: 1, name: 'Canal House Museum' })).toBeVisible();
});
