// What a partner adds to the checkout (issue 27): fields prefilled and locked through the
// session, attribution from the host page's URL, and the hold: held through the payment,
// "More time" in its last two minutes, and an expired hold that keeps the customer's choice.
// The host (the fake partner on localhost) and the frame (Boxoffice on 127.0.0.1) are two
// origins, and the browser blocks third-party cookies (playwright.config.ts).

import type { Page } from '@playwright/test';
import { expect, test } from './support/fixtures';
import { apiData, customerBearer, type Partner } from './support/partner';
import {
  chooseFirstAvailableDay,
  fillCustomerDetails,
  hostEvents,
  openShop,
  PAYMENT_PAGE,
  settleSandboxPayment,
  SHOPPER,
  ticketsFrame,
  waitForHostEvent,
  waitForSettledFrame,
} from './support/shop';

function freshUser(kind: string): string {
  return `e2e-${kind}-${test.info().workerIndex}-${Date.now()}`;
}

/** Opens the shop with `params`, chooses a museum ticket for the first free day, and continues to the checkout. */
async function reachCheckout(page: Page, partner: Partner, params: Record<string, string>) {
  const frame = await openShop(page, partner, params);
  await frame.getByRole('link', { name: /Canal House Museum/ }).click();
  await expect(frame.getByRole('link', { name: /Adult admission/ })).toBeVisible();
  await waitForSettledFrame(page);
  await frame.getByRole('link', { name: /Adult admission/ }).click();
  await chooseFirstAvailableDay(frame);
  await frame.getByRole('button', { name: 'Continue' }).click();
  await expect(frame.getByRole('heading', { name: 'Your order' })).toBeVisible();
  await expect(frame.getByText(/^Your tickets are held for \d+:\d\d$/)).toBeVisible();
  return frame;
}

test('the session prefills the details, a locked one is read-only, and a changed one is refused by the server', async ({ page, partner }) => {
  test.setTimeout(60_000);
  const frame = await reachCheckout(page, partner, {
    user: freshUser('prefill'),
    email: 'e2e.member@example.com',
    first_name: 'Mia',
    last_name: 'Member',
    locked: 'email',
  });

  const email = frame.getByLabel('Email address');
  await expect(email).toHaveValue('e2e.member@example.com');
  await expect(email).toHaveAttribute('readonly', '');
  await expect(frame.getByText('Provided by the shop; it cannot be changed here.')).toBeVisible();
  // Not locked: prefilled, and the customer may change it.
  const firstName = frame.getByLabel('First name');
  await expect(firstName).toHaveValue('Mia');
  await expect(firstName).not.toHaveAttribute('readonly', /.*/);
  await firstName.fill('Mila');
  await expect(frame.getByLabel('Last name')).toHaveValue('Member');

  // A page cannot forge the locked value: with the field made writable by hand, the server
  // refuses the changed address and the frame shows why, at the field.
  await email.evaluate((input) => input.removeAttribute('readonly'));
  await email.fill('someone.else@example.com');
  await frame.getByRole('button', { name: 'Go to payment' }).click();
  await expect(frame.getByText('This was provided by the shop and cannot be changed.')).toBeVisible();
  await expect(email).toHaveAttribute('aria-invalid', 'true');
  expect(page.url()).not.toMatch(PAYMENT_PAGE);
});

test('the host page\'s utm parameters and ref travel with the checkout into the order', async ({ page, partner }) => {
  test.setTimeout(60_000);
  const user = freshUser('utm');
  const attribution = {
    utm_source: 'newsletter',
    utm_medium: 'email',
    utm_campaign: 'winter-2026',
    utm_term: 'museum tickets',
    utm_content: 'banner',
    ref: 'friend-42',
  };
  const frame = await reachCheckout(page, partner, { user, ...attribution });
  await fillCustomerDetails(frame);
  await frame.getByRole('button', { name: 'Go to payment' }).click();
  await settleSandboxPayment(page, partner, 'Pay');
  await expect(ticketsFrame(page).getByRole('heading', { name: 'Thank you! Your order is paid' })).toBeVisible({ timeout: 20_000 });
  const paid = await waitForHostEvent(page, 'boxoffice:order-paid');

  // The order as the customer's own bearer reads it.
  const bearer = await customerBearer(user);
  const order = await apiData(`/v2/me/fulfillment/orders/${paid.detail.order_id}`, bearer);
  expect(order.attribution).toEqual(attribution);
  const checkout = await apiData(`/v2/checkouts/${order.checkout_id}`, bearer);
  expect(checkout.attribution).toEqual(attribution);
});

test('going to payment holds the tickets for the payment window', async ({ page, partner }) => {
  test.setTimeout(60_000);
  const user = freshUser('paying');
  const frame = await reachCheckout(page, partner, { user });
  await fillCustomerDetails(frame);
  const before = Date.now();
  await frame.getByRole('button', { name: 'Go to payment' }).click();
  await page.waitForURL(PAYMENT_PAGE);

  const bearer = await customerBearer(user);
  const [order] = await apiData('/v2/me/fulfillment/orders?limit=1', bearer);
  const checkout = await apiData(`/v2/checkouts/${order.checkout_id}`, bearer);
  expect(checkout.status).toBe('CONFIRMED');
  const heldFor = Date.parse(checkout.expires_at) - before;
  // 30 minutes from the confirmation: longer than the 15-minute reservation, never longer than the payment.
  expect(heldFor).toBeGreaterThan(29 * 60_000);
  expect(heldFor).toBeLessThanOrEqual(30 * 60_000 + 5_000);
});

test('in the last two minutes the shopper gets "More time", once', async ({ page, partner }) => {
  test.setTimeout(60_000);
  // The browser's clock (the frame's too) is the test's: the hold's end stays the server's.
  await page.clock.install();
  const frame = await reachCheckout(page, partner, { user: freshUser('more-time') });
  await expect(frame.getByRole('button', { name: 'More time' })).toHaveCount(0);

  await page.clock.fastForward('13:30');
  await expect(frame.getByText('Less than two minutes left. Need more time? You can extend once.')).toBeVisible();
  await frame.getByRole('button', { name: 'More time' }).click();
  await expect(frame.getByText('Done: you have ten more minutes.')).toBeVisible();
  await expect(frame.getByText(/^Your tickets are held for 1[01]:\d\d$/)).toBeVisible();
  await expect(frame.getByRole('button', { name: 'More time' })).toHaveCount(0);
});

test('an expired hold says so, tells the host, and reserves the same choice again with the details kept', async ({ page, partner }) => {
  test.setTimeout(60_000);
  await page.clock.install();
  const frame = await reachCheckout(page, partner, { user: freshUser('expired') });
  await fillCustomerDetails(frame);

  await page.clock.fastForward('15:05');
  await expect(frame.getByText('The time to complete your order has run out and the tickets were released.')).toBeVisible();
  const expired = await waitForHostEvent(page, 'boxoffice:hold-expired');
  expect(expired.detail.checkout_id).toMatch(/^[0-9a-f-]{36}$/);
  // The host's analytics hear the held places go back, once: the tickets that were held.
  await expect.poll(async () => (await hostEvents(page))
    .filter((e) => e.type === 'boxoffice:analytics' && e.detail.name === 'remove_from_cart')
    .map((e) => e.detail.params.items.map((i: { item_name: string; quantity: number }) => [i.item_name, i.quantity])))
    .toEqual([[['Adult admission', 1]]]);
  await expect(frame.getByRole('link', { name: 'Choose tickets again' })).toBeVisible();

  // Back to the real time, so the new hold is counted from now, as the server does.
  await page.clock.setSystemTime(new Date());
  await frame.getByRole('button', { name: 'Reserve these tickets again' }).click();
  await expect(frame.getByText(/^Your tickets are held for 1[45]:\d\d$/)).toBeVisible();
  await expect(frame.getByLabel('Email address')).toHaveValue(SHOPPER.email);
  await expect(frame.getByLabel('Last name')).toHaveValue(SHOPPER.lastName);
});
