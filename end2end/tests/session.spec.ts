import { expect, test } from '@playwright/test';

// The e2e server runs with its demo data: the demo partner and campaign below.
const DEMO_CAMPAIGN = 'd3e0ca11-0000-4000-8000-000000000001';

test('the webframe dance: the frame redeems its code, keeps the bearer and drops the code', async ({ page, request }) => {
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(error.message));

  const token = await request.post('/oauth/token', {
    form: { grant_type: 'client_credentials', client_id: 'demo-partner', client_secret: 'demo-secret' },
  });
  expect(token.status()).toBe(200);
  const backend = (await token.json()).access_token as string;

  const started = await request.post('/v1/session', {
    headers: { Authorization: `Bearer ${backend}` },
    data: { integration: 'webframe', user: { reference: 'e2e-user' }, campaign_id: DEMO_CAMPAIGN },
  });
  expect(started.status()).toBe(201);
  const { session_code: code, frame_url: frameUrl } = (await started.json()).data;

  const response = await page.goto(`${frameUrl}?session_code=${code}`);
  expect(response?.headers()['cache-control']).toBe('no-store');
  expect(response?.headers()['content-security-policy']).toContain('frame-ancestors');

  const session = page.getByTestId('session');
  await expect(session).toHaveAttribute('data-state', 'active');
  await expect(page).not.toHaveURL(/session_code/);
  await expect(page).toHaveURL(/client_id=demo-partner/);

  const stored = await page.evaluate(() => sessionStorage.getItem('boxoffice.session'));
  const bearer = JSON.parse(stored ?? '{}').access_token as string;
  expect(bearer).toBeTruthy();
  const me = await request.get('/v2/me', { headers: { Authorization: `Bearer ${bearer}` } });
  expect(me.status()).toBe(200);
  expect((await me.json()).data.mode).toBe('webframe');

  // A reload resumes the session kept in this tab.
  await page.reload();
  await expect(session).toHaveAttribute('data-state', 'active');
  expect(errors).toEqual([]);
});

test('the frame without a session says so', async ({ page }) => {
  await page.goto('/frame');
  await expect(page.getByTestId('session')).toHaveAttribute('data-state', 'missing');
});
