// Deep links to a choice (issue 27, item 4): the partner's page links straight to a day, an
// entry time and quantities; the frame makes the choice, goes on to the checkout's review when
// it is whole and can be booked, and otherwise opens the product with a clear message. Any
// error the frame logs (a panic among them) fails the test.

import type { Page } from '@playwright/test';
import { expect, test } from './support/fixtures';
import { BASE_URL, customerBearer, DEMO_CAMPAIGN } from './support/partner';
import { openShop } from './support/shop';

interface Product {
  id: string;
  sku: string;
}

/** A bearer of a headless customer of the demo partner, for reading the catalog as the frame does. */
let bearer: Promise<string> | undefined;
function catalogBearer(): Promise<string> {
  bearer ??= customerBearer('e2e-deep-link-catalog');
  return bearer;
}

/** The catalog as the frame reads it: the customer's bearer, the campaign, English. */
async function catalog(path: string, body?: unknown): Promise<any> {
  const response = await fetch(`${BASE_URL}${path}`, {
    method: body === undefined ? 'GET' : 'POST',
    headers: {
      Authorization: `Bearer ${await catalogBearer()}`,
      'x-campaign-id': DEMO_CAMPAIGN,
      'Accept-Language': 'en-GB',
      'Content-Type': 'application/json',
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  expect(response.status, `${path}: ${await response.clone().text()}`).toBe(200);
  return (await response.json()).data;
}

/** The demo merchant offering `sku`, and that product. */
async function productOf(sku: string): Promise<{ merchant: string; product: Product }> {
  for (const merchant of await catalog('/v2/merchants?limit=100')) {
    const products: Product[] = await catalog(`/v2/merchants/${merchant.id}/products`);
    const product = products.find((p) => p.sku === sku);
    if (product) {
      return { merchant: merchant.id, product };
    }
  }
  throw new Error(`no demo product ${sku}`);
}

/** The first day from tomorrow on that `product` sells, and that day's first open entry time (HH:MM, the merchant's). */
async function bookableDay(product: string): Promise<{ date: string; time?: string }> {
  const from = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);
  const until = new Date(Date.now() + 40 * 86_400_000).toISOString().slice(0, 10);
  const calendar = await catalog(`/v2/products/${product}/calendar?from=${from}&until=${until}`);
  const day = calendar.find((d: { available: boolean }) => d.available);
  expect(day, 'a bookable day in the next 40 days').toBeTruthy();
  const slots = await catalog('/v2/fulfillment/timeslots', { product_id: product, date: day.date, quantity: 2 });
  const open = slots.find((s: { available: boolean }) => s.available);
  // "2026-12-07T09:00:00+01:00": the merchant's local time is the text before the offset.
  return { date: day.date, time: open?.start_time.slice(11, 16) };
}

function failOnFrameErrors(page: Page): string[] {
  const errors: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(`${message.text()} (${message.location().url})`);
  });
  page.on('pageerror', (error) => errors.push(error.message));
  return errors;
}

test('a link with a day, an entry time and quantities opens the checkout review', async ({ page, partner }) => {
  test.setTimeout(60_000);
  const errors = failOnFrameErrors(page);
  const { merchant, product } = await productOf('ZOO-SLOT');
  const { date, time } = await bookableDay(product.id);
  expect(time, 'an open entry time').toBeTruthy();

  const frame = await openShop(page, partner, {
    user: `e2e-link-${test.info().workerIndex}-${Date.now()}`,
    merchant_id: merchant,
    product_id: product.id,
    date,
    timeslot: time!,
    quantities: `${product.id}:2`,
  });
  await expect(frame.getByRole('heading', { level: 1, name: 'Your order' })).toBeVisible({ timeout: 15_000 });
  await expect(frame.getByText('2 × Day ticket with entry time')).toBeVisible();
  await expect(frame.getByText(new RegExp(`^Entry time: ${time}`))).toBeVisible();
  await expect(frame.getByText(/^Your tickets are held for \d+:\d\d$/)).toBeVisible();
  await page.screenshot({ path: test.info().outputPath('deep-link-review-1024.png'), fullPage: true });
  expect(errors).toEqual([]);
});

test('a link without the entry time the day needs opens the product with the rest chosen', async ({ page, partner }) => {
  const errors = failOnFrameErrors(page);
  const { merchant, product } = await productOf('ZOO-SLOT');
  const { date } = await bookableDay(product.id);

  const frame = await openShop(page, partner, {
    merchant_id: merchant,
    product_id: product.id,
    date,
    quantities: `${product.id}:3`,
  });
  await expect(frame.getByRole('heading', { level: 1, name: 'Day ticket with entry time' })).toBeVisible();
  await expect(frame.getByText(/^Chosen date: /)).toBeVisible();
  await expect(frame.getByRole('group', { name: 'Choose an entry time' })).toBeVisible();
  await expect(frame.getByLabel('Number of tickets: Day ticket with entry time')).toHaveValue('3');
  await expect(frame.getByText(/could not be used|can no longer be booked/)).toHaveCount(0);
  expect(errors).toEqual([]);
});

test('a malformed or sold-out choice opens the product with a clear message', async ({ page, partner }) => {
  const errors = failOnFrameErrors(page);
  const zoo = await productOf('ZOO-SLOT');
  const malformed = await openShop(page, partner, {
    merchant_id: zoo.merchant,
    product_id: zoo.product.id,
    date: '2020-01-01',
    quantities: 'two adults',
  });
  await expect(malformed.getByRole('heading', { level: 1, name: 'Day ticket with entry time' })).toBeVisible();
  await expect(malformed.getByText("Part of the link's choice could not be used. Please check your choice below.")).toBeVisible();
  await expect(malformed.getByText(/^Chosen date: /)).toHaveCount(0);
  for (const width of [360, 1024]) {
    await page.setViewportSize({ width, height: 900 });
    await page.screenshot({ path: test.info().outputPath(`deep-link-flawed-${width}.png`), fullPage: true });
  }

  // The festival is sold out on every day.
  const festival = await productOf('PARK-FEST');
  const tomorrow = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);
  const soldOut = await openShop(page, partner, {
    merchant_id: festival.merchant,
    product_id: festival.product.id,
    date: tomorrow,
    quantities: `${festival.product.id}:1`,
  });
  await expect(soldOut.getByRole('heading', { level: 1, name: 'Summer festival' })).toBeVisible();
  await expect(soldOut.getByText('The date or entry time in the link can no longer be booked. Please choose another.')).toBeVisible();
  await expect(soldOut.getByRole('heading', { name: 'Your order' })).toHaveCount(0);
  expect(errors).toEqual([]);
});
