// Analytics to the host (issue 27, item 3): the frame posts GA4's e-commerce events as
// `boxoffice:analytics {name, params}`, which embed.js re-dispatches on the container; the
// frame itself loads no tracker. A whole purchase gives the whole funnel, `purchase` matches
// the order, and no event carries anything the customer typed.

import { expect, test } from './support/fixtures';
import { apiData, BASE_URL, customerBearer } from './support/partner';
import {
  chooseFirstAvailableDay,
  fillCustomerDetails,
  openShop,
  settleSandboxPayment,
  SHOPPER,
  tabEvents,
  ticketsFrame,
  waitForHostEvent,
  waitForSettledFrame,
} from './support/shop';

test('a purchase gives the host the GA4 funnel, with purchase matching the order and nothing personal', async ({ page, partner, context }) => {
  test.setTimeout(60_000);
  const user = `e2e-analytics-${test.info().workerIndex}-${Date.now()}`;
  // Every request the frame's page makes, to show it calls no tracker.
  const hosts = new Set<string>();
  context.on('request', (request) => hosts.add(new URL(request.url()).host));

  const frame = await openShop(page, partner, { user });
  await frame.getByRole('link', { name: /Canal House Museum/ }).click();
  await expect(frame.getByRole('link', { name: /Adult admission/ })).toBeVisible();
  await waitForSettledFrame(page);
  await frame.getByRole('link', { name: /Adult admission/ }).click();
  await chooseFirstAvailableDay(frame);
  await frame.getByRole('button', { name: 'One more: Adult admission' }).click();
  await frame.getByRole('button', { name: 'Continue' }).click();
  await expect(frame.getByRole('heading', { name: 'Your order' })).toBeVisible();

  // A refused step: the details left empty.
  await frame.getByRole('button', { name: 'Go to payment' }).click();
  await expect(frame.getByText('Please correct the fields marked below.')).toBeVisible();
  await fillCustomerDetails(frame);
  await frame.getByRole('button', { name: 'Go to payment' }).click();
  await settleSandboxPayment(page, partner, 'Pay');
  await expect(ticketsFrame(page).getByRole('heading', { name: 'Thank you! Your order is paid' })).toBeVisible({ timeout: 20_000 });
  const paid = await waitForHostEvent(page, 'boxoffice:order-paid');
  await waitForHostEvent(page, 'boxoffice:analytics');

  const events = (await tabEvents(page)).filter((e) => e.type === 'boxoffice:analytics').map((e) => e.detail);
  expect(events.map((e) => e.name)).toEqual([
    'view_item_list',
    'select_item',
    'view_item',
    'add_to_cart',
    'begin_checkout',
    'checkout_error',
    'add_shipping_info',
    'add_payment_info',
    'purchase',
  ]);
  const byName = (name: string) => events.find((e) => e.name === name).params;

  const list = byName('view_item_list');
  expect(list.item_list_name).toBe('Canal House Museum');
  expect(list.items.map((i: { item_name: string }) => i.item_name)).toContain('Adult admission');
  expect(byName('select_item').items).toHaveLength(1);
  expect(byName('select_item').items[0].item_name).toBe('Adult admission');
  expect(byName('checkout_error')).toEqual({ type: expect.stringMatching(/^[a-z-]+$/) });

  // `purchase` is the order: its id, total and lines.
  const order = await apiData(`/v2/me/fulfillment/orders/${paid.detail.order_id}`, await customerBearer(user));
  const purchase = byName('purchase');
  expect(purchase.transaction_id).toBe(order.order_id);
  expect(purchase.currency).toBe(order.total.currency);
  expect(purchase.value).toBe(Number(order.total.value));
  expect(purchase.items.map((i: { item_id: string; quantity: number }) => [i.item_id, i.quantity])).toEqual(
    order.items.map((i: { product_id: string; quantity: number }) => [i.product_id, i.quantity]),
  );
  expect(byName('add_to_cart').items[0].quantity).toBe(2);
  expect(byName('begin_checkout').value).toBe(purchase.value);

  // Nothing the customer typed, nor who they are, in any event.
  const text = JSON.stringify(events);
  for (const personal of [SHOPPER.email, SHOPPER.firstName, SHOPPER.lastName, user]) {
    expect(text).not.toContain(personal);
  }
  // No tracker: the pages talked to the partner and to Boxoffice only.
  const expected = new Set([new URL(partner.origin).host, new URL(BASE_URL).host]);
  expect([...hosts].filter((h) => !expected.has(h))).toEqual([]);
});
