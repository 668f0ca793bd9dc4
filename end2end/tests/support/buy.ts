// Paid orders of the demo museum, bought through the API as the demo partner's customer
// would (an express checkout, paid on the sandbox's payment page), for tests that start
// after the sale: the after-sale pages, the gate's scanner.

import { expect } from '@playwright/test';
import { BASE_URL, DEMO_CAMPAIGN, apiData } from './partner';

/** The demo museum (seeded by BOXOFFICE_DEMO=1) as the customer of `bearer` sees it. */
export async function demoMuseum(bearer: string): Promise<{ id: string; name: string; timezone: string }> {
  const merchants = await apiData(`/v2/merchants?limit=100`, bearer);
  const museum = merchants.find((m: { name: string }) => /Canal House Museum|Museum aan de Gracht/.test(m.name));
  if (!museum) {
    throw new Error('the demo museum is not in /v2/merchants: is the server started with BOXOFFICE_DEMO=1?');
  }
  return museum;
}

/** The demo museum's product with `sku`. */
export async function museumProduct(bearer: string, sku: string): Promise<string> {
  const museum = await demoMuseum(bearer);
  const response = await fetch(`${BASE_URL}/v2/merchants/${museum.id}/products`, {
    headers: { 'x-campaign-id': DEMO_CAMPAIGN },
  });
  expect(response.status).toBe(200);
  const products = ((await response.json()) as { data: { id: string; sku: string }[] }).data;
  return products.find((p) => p.sku === sku)!.id;
}

export interface Bought {
  orderId: string;
  displayId: string;
}

/** Buys `quantity` of `product` for the customer of `bearer` in `language` and pays. */
export async function buy(bearer: string, product: string, quantity: number, language: string, date: string, extra = {}): Promise<Bought> {
  const response = await fetch(`${BASE_URL}/v2/checkouts/express`, {
    method: 'POST',
    headers: {
      Authorization: `Bearer ${bearer}`,
      'Content-Type': 'application/json',
      'Accept-Language': language,
      'Idempotency-Key': crypto.randomUUID(),
      'x-campaign-id': DEMO_CAMPAIGN,
    },
    body: JSON.stringify({
      date,
      flexible_date: false,
      lines: [{ product_id: product, quantity }],
      email: 'ada@example.com',
      first_name: 'Ada',
      last_name: 'Lovelace',
      return_url: 'http://localhost:5173/done',
      ...extra,
    }),
  });
  expect(response.status, await response.clone().text()).toBe(200);
  const { data } = await response.json();
  const pay = await fetch(data.payment_url, {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    body: 'action=pay',
    redirect: 'manual',
  });
  expect(pay.status).toBe(303);
  return { orderId: data.order_id, displayId: data.order_display_id };
}
