import { expect, test } from './support/fixtures';
import { axeViolations } from './support/a11y';
import { type Bought, buy, museumProduct } from './support/buy';
import { BASE_URL, apiData, customerBearer } from './support/partner';
import { hostEvents, openShop, waitForHostEvent, waitForSettledFrame } from './support/shop';

/**
 * After the sale, as a customer does it: from the ticket mail's link to the ticket page, then
 * "Cancel or change this booking", where one of two tickets is cancelled after seeing its
 * refund; a shipped book is withdrawn from (EU) in German; a dated ticket offers no withdrawal;
 * inside a partner's frame, the order screen opens the same page in the frame, which tells
 * the host page what changed.
 * Orders are bought through the API as the demo partner's user, so the demo mailbox shows
 * their mails (server/src/demo/mail.rs).
 */

/** A day `days` ahead, as the express checkout takes it. */
function daysAhead(days: number): string {
  return new Date(Date.now() + days * 86_400_000).toISOString().slice(0, 10);
}

/** Opens the ticket page the ticket mail of `order` links to, from the visit's demo mailbox. */
async function openTicketPage(page: import('@playwright/test').Page, visitor: string, order: Bought, linkName: RegExp) {
  await expect(async () => {
    await page.goto(`${BASE_URL}/demo/mail?visitor=${visitor}`);
    const mails = page.frameLocator('article iframe');
    let href: string | null = null;
    for (let i = 0; i < (await page.locator('article iframe').count()); i++) {
      const mail = mails.nth(i);
      if ((await mail.getByText(order.displayId).count()) > 0) {
        href = await mail.getByRole('link', { name: linkName }).first().getAttribute('href');
      }
    }
    expect(href).toBeTruthy();
    await page.goto(href!);
  }).toPass({ timeout: 20_000 });
}

test('a customer cancels one of two tickets on the ticket page after seeing the refund, moves the other to another day, and a dated ticket offers no withdrawal', async ({ page }) => {
  test.setTimeout(60_000);
  const visitor = `demo-visit-${crypto.randomUUID()}`;
  const bearer = await customerBearer(visitor);
  const adult = await museumProduct(bearer, 'MUS-ADULT');
  const order = await buy(bearer, adult, 2, 'en-GB', daysAhead(5));

  await openTicketPage(page, visitor, order, /View your tickets online/);
  await page.getByRole('link', { name: 'Cancel or change this booking' }).click();
  await expect(page.getByRole('heading', { level: 1, name: 'Manage your booking' })).toBeVisible();
  await expect(page.getByRole('heading', { name: 'Cancel tickets' })).toBeVisible();
  await expect(page.getByRole('heading', { name: 'Change date' })).toBeVisible();
  await expect(page.getByRole('button', { name: 'Withdraw from contract here' })).toHaveCount(0);
  expect(await axeViolations(page)).toEqual([]);
  for (const width of [360, 1024]) {
    await page.setViewportSize({ width, height: 900 });
    await page.screenshot({ path: test.info().outputPath(`manage-en-${width}.png`), fullPage: true });
  }

  // One ticket, chosen by keyboard; the refund shows before anything happens.
  const first = page.getByRole('checkbox').first();
  await first.focus();
  await page.keyboard.press('Space');
  await expect(first).toBeChecked();
  await page.getByRole('button', { name: 'Review cancellation' }).click();
  await expect(page.getByRole('heading', { name: 'Review cancellation' })).toBeVisible();
  await expect(page.getByText(/^Refund: €\d+\.\d\d$/)).toBeVisible();
  await page.screenshot({ path: test.info().outputPath('review-en-360.png'), fullPage: true });
  await page.getByRole('button', { name: 'Confirm cancellation' }).click();

  await expect(page.getByRole('status')).toHaveText('Your tickets are cancelled. We sent you an e-mail with the refund.');
  await expect(page.getByRole('heading', { name: 'Cancelled' })).toBeVisible();
  const read = await apiData(`/v2/me/fulfillment/orders/${order.orderId}`, bearer);
  expect(read.tickets.map((t: { status: string }) => t.status).sort()).toEqual(['CANCELLED', 'VALID']);
  expect(read.refunds).toHaveLength(1);

  // The other ticket moves a week on (the same weekday: the same price).
  const later = daysAhead(12);
  await page.getByLabel('New date').fill(later);
  await page.getByRole('button', { name: 'Review new date' }).click();
  await expect(page.getByText('Same price: nothing to pay, nothing refunded.')).toBeVisible();
  await page.getByRole('button', { name: 'Confirm new date' }).click();
  await expect(page.getByRole('status')).toHaveText('Your visit is moved. We sent you the new tickets by e-mail.');
  const moved = await apiData(`/v2/me/fulfillment/orders/${order.orderId}`, bearer);
  expect(moved.visit_date).toBe(later);
  expect(moved.tickets.filter((t: { status: string }) => t.status === 'VALID')).toHaveLength(1);

  // The ticket page now shows the one valid ticket, on its new day.
  await page.getByRole('link', { name: 'Back to your tickets' }).click();
  await expect(page.getByRole('img', { name: /^[0-9A-Z]{4}-/ })).toHaveCount(1);
});

test('a shipped book is withdrawn from in German, with the control and its confirmation step', async ({ page }) => {
  test.setTimeout(60_000);
  const visitor = `demo-visit-${crypto.randomUUID()}`;
  const bearer = await customerBearer(visitor);
  const guide = await museumProduct(bearer, 'MUS-GUIDE');
  const order = await buy(bearer, guide, 1, 'de-DE', daysAhead(0), {
    shipping_address: { street: 'Herengracht', house_number: '386', postal_code: '1016 CJ', city: 'Amsterdam', country: 'NL' },
  });

  await openTicketPage(page, visitor, order, /online/);
  await page.getByRole('link', { name: 'Buchung stornieren oder ändern' }).click();
  await expect(page.getByRole('heading', { level: 1, name: 'Ihre Buchung verwalten' })).toBeVisible();
  const withdraw = page.getByRole('button', { name: 'Vertrag hier widerrufen' });
  await expect(withdraw).toBeVisible();
  expect(await axeViolations(page)).toEqual([]);
  for (const width of [360, 1024]) {
    await page.setViewportSize({ width, height: 900 });
    await page.screenshot({ path: test.info().outputPath(`manage-de-${width}.png`), fullPage: true });
  }
  await withdraw.click();
  await expect(page.getByText(/^Erstattung: /)).toBeVisible();
  await page.getByRole('button', { name: 'Widerruf bestätigen' }).click();
  await expect(page.getByRole('status')).toContainText('Ihr Widerruf ist eingegangen.');
  await expect(page.getByText('Diese Bestellung ist storniert.')).toBeVisible();
  await page.screenshot({ path: test.info().outputPath('withdrawn-de-360.png'), fullPage: true });
});

test('inside the frame, a customer cancels one of two tickets from the order screen and moves the other, and the host page is told', async ({ page, partner }) => {
  test.setTimeout(90_000);
  const user = `e2e-after-sale-${test.info().workerIndex}-${Date.now()}`;
  const bearer = await customerBearer(user);
  const adult = await museumProduct(bearer, 'MUS-ADULT');
  const order = await buy(bearer, adult, 2, 'en-GB', daysAhead(5));

  const frame = await openShop(page, partner, { user });
  await frame.getByRole('link', { name: 'My orders' }).click();
  await expect(frame.getByRole('heading', { name: `Order ${order.displayId}` })).toBeVisible();
  await waitForSettledFrame(page);
  await frame.getByText('Show tickets').click();
  await expect(frame.getByRole('button', { name: 'Cancel tickets' })).toBeVisible();
  await expect(frame.getByRole('button', { name: 'Change date' })).toBeVisible();
  await expect(frame.getByRole('button', { name: 'Withdraw from contract here' })).toHaveCount(0);

  // The manage page opens in a panel of the frame; the frame's session stays underneath.
  await frame.getByRole('button', { name: 'Cancel tickets' }).click();
  const panel = frame.frameLocator('iframe[title="Manage your booking"]');
  await expect(panel.getByRole('heading', { level: 1, name: 'Manage your booking' })).toBeVisible();
  await panel.getByRole('checkbox').first().check();
  for (const width of [360, 1024]) {
    await page.setViewportSize({ width, height: 2400 });
    await waitForSettledFrame(page);
    await page.screenshot({ path: test.info().outputPath(`framed-manage-en-${width}.png`), fullPage: true });
  }
  await panel.getByRole('button', { name: 'Review cancellation' }).click();
  await expect(panel.getByText(/^Refund: €\d+\.\d\d$/)).toBeVisible();
  await panel.getByRole('button', { name: 'Confirm cancellation' }).click();
  await expect(panel.getByRole('status')).toHaveText('Your tickets are cancelled. We sent you an e-mail with the refund.');

  const cancelled = (await waitForHostEvent(page, 'boxoffice:order-cancelled')).detail;
  expect(cancelled.order_id).toBe(order.orderId);
  expect(cancelled.ticket_ids).toHaveLength(1);
  expect(cancelled.reason).toBe('CUSTOMER');
  const refund = (await hostEvents(page)).filter((e) => e.type === 'boxoffice:analytics' && e.detail.name === 'refund');
  expect(refund).toHaveLength(1);
  expect(refund[0].detail.params).toEqual({
    transaction_id: order.orderId,
    currency: 'EUR',
    value: Number(cancelled.refund.value),
  });
  await page.screenshot({ path: test.info().outputPath('framed-cancelled-en-1024.png'), fullPage: true });

  // Closed, the order is read again; the other ticket moves a week on.
  await frame.getByRole('button', { name: 'Close' }).click();
  await expect(frame.getByRole('heading', { name: `Order ${order.displayId}` })).toBeVisible();
  await waitForSettledFrame(page);
  await frame.getByText('Show tickets').click();
  await expect(frame.getByText('Cancelled', { exact: true })).toBeVisible();
  await frame.getByRole('button', { name: 'Change date' }).click();
  const later = daysAhead(12);
  await panel.getByLabel('New date').fill(later);
  await panel.getByRole('button', { name: 'Review new date' }).click();
  await panel.getByRole('button', { name: 'Confirm new date' }).click();
  await expect(panel.getByRole('status')).toHaveText('Your visit is moved. We sent you the new tickets by e-mail.');
  const rebooked = (await waitForHostEvent(page, 'boxoffice:order-rebooked')).detail;
  expect(rebooked.order_id).toBe(order.orderId);
  expect(rebooked.to.date).toBe(later);
  expect(rebooked.new_ticket_ids).toHaveLength(1);
});

test('in German, the frame offers the changes in German and the panel reads well on a phone and a desktop', async ({ page, partner }) => {
  test.setTimeout(60_000);
  const user = `e2e-after-sale-de-${test.info().workerIndex}-${Date.now()}`;
  const bearer = await customerBearer(user);
  const adult = await museumProduct(bearer, 'MUS-ADULT');
  const order = await buy(bearer, adult, 2, 'de-DE', daysAhead(5));

  const frame = await openShop(page, partner, { user, lang: 'de-DE' });
  await frame.getByRole('link', { name: 'Meine Bestellungen' }).click();
  await expect(frame.getByRole('heading', { name: `Bestellung ${order.displayId}` })).toBeVisible();
  await waitForSettledFrame(page);
  await frame.getByText('Tickets anzeigen').click();
  await frame.getByRole('button', { name: 'Tickets stornieren' }).click();
  const panel = frame.frameLocator('iframe[title="Ihre Buchung verwalten"]');
  await expect(panel.getByRole('heading', { level: 1, name: 'Ihre Buchung verwalten' })).toBeVisible();
  await expect(frame.getByRole('button', { name: 'Schließen' })).toBeVisible();
  expect(await axeViolations(page)).toEqual([]);
  // A viewport as tall as the page: Chromium paints a cross-site iframe only where it is in view.
  for (const width of [360, 1024]) {
    await page.setViewportSize({ width, height: 2400 });
    await waitForSettledFrame(page);
    await page.screenshot({ path: test.info().outputPath(`framed-manage-de-${width}.png`), fullPage: true });
  }
});
