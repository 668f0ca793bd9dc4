import { expect, test } from './support/fixtures';
import { BASE_URL, createSession, DEMO_CAMPAIGN, trustPartnerIssuer } from './support/partner';
import { frameOf, hostEvents, openShop, ticketsFrame, waitForHostEvent } from './support/shop';

test('the server render is in the request\'s language, never cached, referred or cookied, and framed only by the partner', async ({ request }) => {
  const { session_code: code } = await createSession();
  const response = await request.get(`/frame?session_code=${code}`, { headers: { 'Accept-Language': 'de-AT, en;q=0.5' } });
  expect(response.status()).toBe(200);
  const headers = response.headers();
  expect(headers['cache-control']).toBe('no-store');
  expect(headers['referrer-policy']).toBe('no-referrer');
  expect(headers['content-security-policy']).toMatch(/^frame-ancestors .*http:\/\/localhost:\*/);
  expect(headers['content-security-policy']).not.toContain(' *');
  expect(headers['set-cookie']).toBeUndefined();
  const html = await response.text();
  expect(html).toContain('<html lang="de-DE"');
  expect(html).toMatch(/<link rel="modulepreload" href="\/pkg\/boxoffice\.js"/);
  expect(html).not.toContain(code);

  // The site is served precompressed: the brotli twin, as it is.
  for (const [path, type] of [['/pkg/boxoffice.wasm', 'application/wasm'], ['/pkg/boxoffice.js', 'javascript'], ['/pkg/boxoffice.css', 'text/css'], ['/embed.js', 'javascript']]) {
    const asset = await request.get(path, { headers: { 'Accept-Encoding': 'br' } });
    expect(asset.status(), path).toBe(200);
    expect(asset.headers()['content-encoding'], path).toBe('br');
    expect(asset.headers()['content-type'], path).toContain(type);
  }
});

/** The bearer the frame sends to the API, as seen on its requests. */
function watchBearer(page: import('@playwright/test').Page): () => string | undefined {
  let bearer: string | undefined;
  page.on('request', (request) => {
    const auth = request.headers()['authorization'];
    if (request.url().startsWith(`${BASE_URL}/v2/`) && auth?.startsWith('Bearer ')) {
      bearer = auth.slice('Bearer '.length);
    }
  });
  return () => bearer;
}

test('the frame takes the code out of its address and keeps the bearer out of URLs and cookies', async ({ page, partner }) => {
  const bearerOf = watchBearer(page);
  await openShop(page, partner);
  const frame = await frameOf(page);
  await expect(ticketsFrame(page).getByRole('heading', { name: 'Where would you like to go?' })).toBeVisible();
  expect(frame.url()).not.toContain('session_code');
  expect(frame.url()).toContain('client_id=demo-partner');
  // The first list came with the page (webframe.md §16); a merchant's page is read with the bearer.
  await ticketsFrame(page).getByRole('link', { name: 'Canal House Museum' }).click();
  await expect(ticketsFrame(page).getByRole('heading', { level: 1, name: 'Canal House Museum' })).toBeVisible();
  const bearer = bearerOf()!;
  expect(bearer).toBeTruthy();
  // With third-party storage blocked (as here) the bearer lives in the frame's memory alone.
  expect(await frame.evaluate(() => { try { return sessionStorage.length; } catch { return 'blocked'; } })).toBe('blocked');
  expect(frame.url()).not.toContain(bearer);
  expect(await frame.evaluate(() => document.cookie)).toBe('');
  expect(await frame.content()).not.toContain(bearer);
});

test('a code that expired before the frame opened shows the expired screen and tells the host', async ({ page, partner }) => {
  test.setTimeout(60_000);
  // The e2e server gives codes 20 s (BOXOFFICE_SESSION_CODE_TTL in .ci/test).
  const { session_code: code } = await createSession(`e2e-late-${Date.now()}`);
  await page.waitForTimeout(21_000);
  await page.goto(partner.url('/shop', { code }));
  await expect(ticketsFrame(page).getByRole('heading', { name: 'Your session has ended' })).toBeVisible();
  await waitForHostEvent(page, 'boxoffice:session-expired');
});

test('a bearer that stops working mid-way shows the expired screen and tells the host', async ({ page, partner, request }) => {
  const { session_code: code } = await createSession(`e2e-revoked-${Date.now()}`);
  await page.goto(partner.url('/shop', { code }));
  await waitForHostEvent(page, 'boxoffice:ready');
  const frame = ticketsFrame(page);
  await expect(frame.getByRole('heading', { name: 'Where would you like to go?' })).toBeVisible();

  // Redeeming a code twice revokes the bearer it gave (RFC 6749 §4.1.2), as a stolen code would.
  const replay = await request.post(`${BASE_URL}/frame/api/session`, { form: { code } });
  expect(replay.status()).toBe(200);

  await frame.getByRole('link', { name: /Canal House Museum/ }).click();
  await expect(frame.getByRole('heading', { name: 'Your session has ended' })).toBeVisible();
  await waitForHostEvent(page, 'boxoffice:session-expired');
});

test('the identity handoff: the host posts its identity token and the frame signs the customer in', async ({ page, partner, request }) => {
  await trustPartnerIssuer(partner);
  const bearerOf = watchBearer(page);
  await page.goto(partner.url('/identity-shop', { user: `acc-${Date.now()}` }));
  const frame = ticketsFrame(page);
  await expect(frame.getByRole('heading', { name: 'Where would you like to go?' })).toBeVisible();

  const bearer = bearerOf();
  const me = await request.get(`${BASE_URL}/v2/me`, { headers: { Authorization: `Bearer ${bearer}` } });
  expect(me.status()).toBe(200);
  const data = (await me.json()).data;
  expect(data.mode).toBe('identity');
  expect(data.integrator_params.accountuid).toMatch(/^acc-/);

  await frame.getByRole('link', { name: 'My points' }).click();
  await expect(frame.getByRole('heading', { name: 'My points' })).toBeVisible();
  await expect(frame.getByText('You have not collected any points yet.')).toBeVisible();
  expect((await hostEvents(page)).map((e) => e.type)).toContain('boxoffice:ready');
});

test('opened outside a partner\'s page, the frame says where to go', async ({ page }) => {
  // Playwright's browser asks for en-US, which the frame serves as en-GB.
  await page.goto(`${BASE_URL}/frame`);
  await expect(page.getByRole('heading', { name: "This page opens from a partner's website" })).toBeVisible();
});

test('a kept session resumes only on a reload of the opening it began in', async ({ page }) => {
  // The frame opened in a first-party tab, as on a same-site host page: sessionStorage works,
  // so the frame keeps its session for a reload.
  const { session_code: code } = await createSession(`e2e-kept-${Date.now()}`);
  await page.goto(`${BASE_URL}/frame?session_code=${code}`);
  const merchants = page.getByRole('heading', { name: 'Where would you like to go?' });
  await expect(merchants).toBeVisible();
  // The list is in the page at once (webframe.md §16); the session starts a moment later.
  await expect(page).toHaveURL(/[?&]opening=[0-9a-f]+/);
  expect(await page.evaluate(() => sessionStorage.getItem('boxoffice.session'))).not.toBeNull();

  await page.reload();
  await expect(merchants).toBeVisible();

  // The next person on this device opens the partner's page in identity mode: the frame
  // waits for their token instead of showing the previous customer's session.
  await page.goto(`${BASE_URL}/frame?client_id=demo-partner&campaign_id=${DEMO_CAMPAIGN}`);
  await expect(page.getByText('Signing you in…')).toBeVisible();
  await expect(merchants).toBeHidden();

  // A handoff that fails (a code already used) clears what the tab kept.
  await page.goto(`${BASE_URL}/frame?session_code=${code}`);
  await expect(page.getByRole('heading', { name: "This page opens from a partner's website" })).toBeVisible();
  expect(await page.evaluate(() => sessionStorage.getItem('boxoffice.session'))).toBeNull();
});
