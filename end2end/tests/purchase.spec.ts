import { createPublicKey, verify } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { expect, test } from './support/fixtures';
import { BASE_URL } from './support/partner';
import {
  AVAILABLE_DAY,
  chooseFirstAvailableDay,
  PAYMENT_PAGE,
  SHOPPER,
  fillCustomerDetails,
  frameOf,
  hostEvents,
  openShop,
  settleSandboxPayment,
  tabEvents,
  waitForSettledFrame,
  ticketsFrame,
  waitForHostEvent,
} from './support/shop';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

test('a shopper buys a museum ticket for a day, pays in the top window and gets the ticket back in the frame', async ({ page, partner }) => {
  test.setTimeout(60_000);
  let frame = await openShop(page, partner, { user: `e2e-buyer-${test.info().workerIndex}-${Date.now()}` });

  await frame.getByRole('link', { name: /Canal House Museum/ }).click();
  await expect(frame.getByRole('link', { name: /Adult admission/ })).toBeVisible();
  await waitForSettledFrame(page);
  await frame.getByRole('link', { name: /Adult admission/ }).click();
  await expect(frame.getByRole('heading', { name: 'Adult admission' })).toBeVisible();

  await chooseFirstAvailableDay(frame);
  // The chosen ticket starts at one; the shopper adds a second.
  const quantity = frame.getByLabel('Number of tickets: Adult admission');
  await expect(quantity).toHaveValue('1');
  await frame.getByRole('button', { name: 'One more: Adult admission' }).click();
  await expect(quantity).toHaveValue('2');
  await frame.getByRole('button', { name: 'Continue' }).click();

  await expect(frame.getByRole('heading', { name: 'Your order' })).toBeVisible();
  await fillCustomerDetails(frame);
  await frame.getByRole('button', { name: 'Go to payment' }).click();

  // The payment page opens in the top window, never inside the frame; then back to the partner.
  await settleSandboxPayment(page, partner, 'Pay');
  await expect(page).not.toHaveURL(/payment_id=|boxoffice_checkout=/);

  frame = ticketsFrame(page);
  await expect(frame.getByRole('heading', { name: 'Thank you! Your order is paid' })).toBeVisible({ timeout: 20_000 });
  await expect(frame.getByRole('img', { name: /QR code of ticket/ }).first()).toBeVisible();

  const paid = await waitForHostEvent(page, 'boxoffice:order-paid');
  expect(paid.detail.order_id).toMatch(UUID);
  expect(typeof paid.detail.order_display_id).toBe('string');
  await expect(frame.getByText(`Order ${paid.detail.order_display_id}`)).toBeVisible();

  // The redirect was heard by the page the shopper left; the tab's log keeps it.
  const redirects = (await tabEvents(page)).filter((e) => e.type === 'boxoffice:redirect');
  expect(redirects).toHaveLength(1);
  expect(redirects[0].detail.url).toMatch(/\/pay\//);
  expect((await hostEvents(page)).map((e) => e.type)).not.toContain('boxoffice:redirect');
});

/** Opens the shop for a fresh customer, then a merchant's product. */
async function openProduct(
  page: import('@playwright/test').Page,
  partner: import('./support/partner').Partner,
  merchant: RegExp,
  product: RegExp,
  user = `e2e-${test.info().workerIndex}-${Date.now()}`,
) {
  const frame = await openShop(page, partner, { user });
  await frame.getByRole('link', { name: merchant }).click();
  await expect(frame.getByRole('link', { name: product })).toBeVisible();
  await waitForSettledFrame(page);
  await frame.getByRole('link', { name: product }).click();
  await expect(frame.getByRole('heading', { level: 1, name: product })).toBeVisible();
  return frame;
}

/** Details, payment in the top window, and the tickets back in the frame. */
async function payAndSeeTickets(page: import('@playwright/test').Page, partner: import('./support/partner').Partner) {
  let frame = ticketsFrame(page);
  await fillCustomerDetails(frame);
  await frame.getByRole('button', { name: 'Go to payment' }).click();
  await settleSandboxPayment(page, partner, 'Pay');
  frame = ticketsFrame(page);
  await expect(frame.getByRole('heading', { name: 'Thank you! Your order is paid' })).toBeVisible({ timeout: 20_000 });
  await expect(frame.getByRole('img', { name: /QR code of ticket/ }).first()).toBeVisible();
  return frame;
}

test('a timeslotted ticket needs an entry time, and the order carries it', async ({ page, partner }) => {
  test.setTimeout(60_000);
  const frame = await openProduct(page, partner, /Sunflower Zoo/, /Day ticket with entry time/);
  await chooseFirstAvailableDay(frame);
  // Without an entry time there is no reservation: a midnight time is never assumed.
  await frame.getByRole('button', { name: 'Continue' }).click();
  await expect(frame.getByRole('alert').filter({ hasText: 'Choose an entry time first.' })).toBeVisible();

  // Today's earlier entry times may have passed: the first one still open.
  const slot = frame.getByRole('radio', { disabled: false }).first();
  const time = (await slot.getAttribute('aria-label')) ?? (await frame.locator('label.slot:not(.full) .slot-time').first().innerText());
  expect(time).toMatch(/^\d\d:\d\d–\d\d:\d\d$/);
  await slot.check();
  await frame.getByRole('button', { name: 'Continue' }).click();
  await expect(frame.getByRole('heading', { name: 'Your order' })).toBeVisible();
  await expect(frame.getByText(`Entry time: ${time}`)).toBeVisible();

  const tickets = await payAndSeeTickets(page, partner);
  await expect(tickets.getByText(time).first()).toBeVisible();
});

test('a product without dates has no calendar and sells for today', async ({ page, partner }) => {
  test.setTimeout(60_000);
  const frame = await openProduct(page, partner, /Adventure Park/, /Annual pass/);
  await expect(frame.getByText('No date needed: valid from the day you buy it.')).toBeVisible();
  await expect(frame.getByRole('grid')).toHaveCount(0);
  await expect(frame.getByText(/^Valid until \d{1,2} \w+ \d{4}$/)).toBeVisible();

  await frame.getByRole('button', { name: 'Continue' }).click();
  await expect(frame.getByRole('heading', { name: 'Your order' })).toBeVisible();
  const tickets = await payAndSeeTickets(page, partner);
  await expect(tickets.getByText(/Valid until/).first()).toBeVisible();
});

// A zone whose calendar day differs from UTC's at the hour the run starts (UTC+14 from 11:00 UTC,
// UTC-11 before), so a screen that dated an order by UTC would show the wrong day.
const FAR_ZONE = new Date().getUTCHours() >= 11 ? 'Pacific/Kiritimati' : 'Pacific/Pago_Pago';

test.describe(`a customer in ${FAR_ZONE}`, () => {
  test.use({ timezoneId: FAR_ZONE });

  test('sees the order and its points dated by the customer\'s own calendar', async ({ page, partner }) => {
    test.setTimeout(60_000);
    const frame = await openProduct(page, partner, /Adventure Park/, /Annual pass/);
    await frame.getByRole('button', { name: 'Continue' }).click();
    await expect(frame.getByRole('heading', { name: 'Your order' })).toBeVisible();
    const tickets = await payAndSeeTickets(page, partner);
    const today = new Intl.DateTimeFormat('en-GB', { timeZone: FAR_ZONE, day: 'numeric', month: 'long', year: 'numeric' }).format(new Date());

    await waitForSettledFrame(page);
    await tickets.getByRole('link', { name: 'My orders' }).click();
    await expect(tickets.getByText(`Ordered on ${today}`)).toBeVisible();
    await waitForSettledFrame(page);
    await tickets.getByRole('link', { name: 'My points' }).click();
    await expect(tickets.getByRole('cell', { name: new RegExp(`^Points for order BX-\\S+ ${today}$`) })).toBeVisible();
  });
});

test('a physical product is refused until the delivery address is given, with the errors at the fields', async ({ page, partner }) => {
  const frame = await openProduct(page, partner, /Canal House Museum/, /Museum guide/);
  await frame.getByRole('button', { name: 'Continue' }).click();
  await expect(frame.getByRole('heading', { name: 'Your order' })).toBeVisible();
  await expect(frame.getByRole('group', { name: 'Delivery address' })).toBeVisible();

  await fillCustomerDetails(frame);
  await frame.getByRole('button', { name: 'Go to payment' }).click();
  await expect(frame.getByText('Please correct the fields marked below.')).toBeVisible();
  const street = frame.getByLabel('Street');
  await expect(street).toHaveAttribute('aria-invalid', 'true');
  await expect(street).toHaveAccessibleDescription('⚠ Please fill this in.');
  await expect(street).toBeFocused();
  await expect(frame.getByLabel('Postcode')).toHaveAttribute('aria-invalid', 'true');

  await street.fill('Herengracht');
  await frame.getByLabel('House number').fill('502');
  await frame.getByLabel('Postcode').fill('1017 CB');
  await frame.getByLabel('Town or city').fill('Amsterdam');
  await frame.getByLabel('Country').selectOption('NL');
  await frame.getByRole('button', { name: 'Go to payment' }).click();
  await page.waitForURL(/\/pay\//);
});

test('a voucher is priced by the server and the new total shown', async ({ page, partner }) => {
  const frame = await openProduct(page, partner, /Canal House Museum/, /Adult admission/);
  await chooseFirstAvailableDay(frame);
  await frame.getByRole('button', { name: 'Continue' }).click();
  const total = frame.getByTestId('total');
  await expect(total).toHaveText(/€\d+\.\d\d/);
  const before = await total.innerText();

  await frame.getByLabel('Voucher code').fill('nonsense');
  await frame.getByRole('button', { name: 'Apply' }).click();
  await expect(frame.getByText('The code NONSENSE cannot be used for this order.')).toBeVisible();
  await expect(total).toHaveText(before);

  await frame.getByLabel('Voucher code').fill('welkom10');
  await frame.getByRole('button', { name: 'Apply' }).click();
  await expect(frame.getByText('Voucher WELKOM10 applied. The total has been updated.')).toBeVisible();
  await expect(frame.getByText('Voucher WELKOM10', { exact: true })).toBeVisible();
  await expect(total).not.toHaveText(before);
  const euros = (text: string) => Number(text.replace(/[^\d.]/g, ''));
  expect(euros(await total.innerText())).toBeLessThan(euros(before));
});

/** Presses Tab until `target` has the focus (at most `limit` times). */
async function tabTo(page: import('@playwright/test').Page, target: import('@playwright/test').Locator, limit = 60) {
  for (let i = 0; i < limit; i++) {
    if (await target.evaluate((el) => el === el.ownerDocument.activeElement && el.ownerDocument.hasFocus()).catch(() => false)) {
      return;
    }
    await page.keyboard.press('Tab');
  }
  throw new Error(`Tab never reached ${target}`);
}

test('a whole purchase works with the keyboard alone', async ({ page, partner }) => {
  test.setTimeout(90_000);
  const frame = await openShop(page, partner, { user: `e2e-keys-${Date.now()}` });
  await tabTo(page, frame.getByRole('link', { name: /Canal House Museum/ }));
  await page.keyboard.press('Enter');
  const adult = frame.getByRole('link', { name: /Adult admission/ });
  await expect(adult).toBeVisible();
  await tabTo(page, adult);
  await page.keyboard.press('Enter');
  await expect(frame.getByRole('heading', { level: 1, name: 'Adult admission' })).toBeFocused();

  // Into the calendar: its one tab stop is the first bookable day; arrows move, Enter picks.
  const grid = frame.getByRole('grid');
  await expect(grid.getByRole('button', { name: AVAILABLE_DAY }).first()).toBeVisible();
  await tabTo(page, grid.locator('button[tabindex="0"]'));
  await page.keyboard.press('ArrowRight');
  await page.keyboard.press('ArrowLeft');
  await page.keyboard.press('Enter');
  await expect(frame.getByText(/^Chosen date: /)).toBeVisible();

  await tabTo(page, frame.getByRole('button', { name: 'One more: Adult admission' }));
  await page.keyboard.press('Enter');
  await expect(frame.getByLabel('Number of tickets: Adult admission')).toHaveValue('2');
  await tabTo(page, frame.getByRole('button', { name: 'Continue' }));
  await page.keyboard.press('Enter');
  await expect(frame.getByRole('heading', { level: 1, name: 'Your order' })).toBeFocused();

  await tabTo(page, frame.getByLabel('Email address'));
  await page.keyboard.type(SHOPPER.email);
  await page.keyboard.press('Tab');
  await page.keyboard.type(SHOPPER.firstName);
  await page.keyboard.press('Tab');
  await page.keyboard.type(SHOPPER.lastName);
  await tabTo(page, frame.getByRole('button', { name: 'Go to payment' }));
  await page.keyboard.press('Enter');

  await page.waitForURL(PAYMENT_PAGE);
  await tabTo(page, page.getByRole('button', { name: 'Pay', exact: true }));
  await page.keyboard.press('Enter');
  await page.waitForURL((url) => url.origin === partner.origin);
  await expect(ticketsFrame(page).getByRole('heading', { name: 'Thank you! Your order is paid' })).toBeVisible({ timeout: 20_000 });
});

test('a declined payment says so in the frame and leads back to choosing tickets', async ({ page, partner }) => {
  test.setTimeout(60_000);
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(error.message));
  const frame = await openProduct(page, partner, /Adventure Park/, /Annual pass/);
  await frame.getByRole('button', { name: 'Continue' }).click();
  await fillCustomerDetails(frame);
  await frame.getByRole('button', { name: 'Go to payment' }).click();
  await settleSandboxPayment(page, partner, 'Decline');

  const back = ticketsFrame(page);
  await expect(back.getByRole('heading', { name: 'Your payment did not go through' })).toBeVisible({ timeout: 20_000 });
  await expect(back.getByText('Nothing has been charged.', { exact: false })).toBeVisible();
  await waitForSettledFrame(page);
  await back.getByRole('link', { name: 'Try again' }).click();
  await expect(back.getByRole('link', { name: /Annual pass/ }), errors.join('\n')).toBeVisible();
  expect((await hostEvents(page)).map((e) => e.type)).not.toContain('boxoffice:order-paid');
});

test('the return screen for another customer\'s checkout says it is not theirs', async ({ page, partner }) => {
  const frame = await openProduct(page, partner, /Canal House Museum/, /Adult admission/);
  await chooseFirstAvailableDay(frame);
  await frame.getByRole('button', { name: 'Continue' }).click();
  await expect(frame.getByRole('heading', { name: 'Your order' })).toBeVisible();
  const checkoutId = (await frameOf(page)).url().match(/checkout\/([0-9a-f-]{36})/)![1];

  // Another customer comes back to the partner's page with that checkout in its address.
  const back = { user: `e2e-other-${Date.now()}`, boxoffice_checkout: checkoutId, payment_id: crypto.randomUUID() };
  await page.goto(partner.url('/shop', back));
  const other = ticketsFrame(page);
  await expect(other.getByRole('heading', { name: 'This order is not yours' })).toBeVisible();
  await expect(other.getByText('It was placed by another customer')).toBeVisible();
  await expect(other.getByText('Something went wrong')).toBeHidden();
});

test('after a purchase the host gets a receipt it can verify, and the tickets go to a calendar, a printer and the mail again', async ({ page, partner, request }) => {
  test.setTimeout(60_000);
  // A demo shop visit's reference, so the demo mailbox shows this customer's mails (and only
  // theirs) below.
  const visitor = `demo-visit-${crypto.randomUUID()}`;
  let frame = await openProduct(page, partner, /Canal House Museum/, /Adult admission/, visitor);
  await chooseFirstAvailableDay(frame);
  await frame.getByRole('button', { name: 'Continue' }).click();
  await expect(frame.getByRole('heading', { name: 'Your order' })).toBeVisible();
  frame = await payAndSeeTickets(page, partner);

  // The receipt verifies with nothing but the server's JWKS (Ed25519, node's own crypto).
  const paid = await waitForHostEvent(page, 'boxoffice:order-paid');
  expect(paid.detail.total.currency).toBe('EUR');
  expect(paid.detail.lines[0].quantity).toBe(1);
  const [header, payload, signature] = String(paid.detail.receipt).split('.');
  const { kid } = JSON.parse(Buffer.from(header, 'base64url').toString());
  const jwks = await (await request.get('/.well-known/jwks.json')).json();
  const key = createPublicKey({ key: jwks.keys.find((k: { kid: string }) => k.kid === kid), format: 'jwk' });
  expect(verify(null, Buffer.from(`${header}.${payload}`), key, Buffer.from(signature, 'base64url'))).toBe(true);
  const claims = JSON.parse(Buffer.from(payload, 'base64url').toString());
  expect(claims.aud).toBe('boxoffice-receipt');
  expect(claims.order_id).toBe(paid.detail.order_id);
  expect(claims.total).toEqual(paid.detail.total);
  expect(claims.exp - claims.iat).toBe(300);

  // "Add to calendar" downloads the order's .ics through the API.
  const download = page.waitForEvent('download');
  await frame.getByRole('button', { name: 'Add to calendar' }).click();
  const file = await download;
  expect(file.suggestedFilename()).toBe('tickets.ics');
  const ics = readFileSync((await file.path())!, 'utf8');
  expect(ics).toContain('BEGIN:VEVENT');
  expect(ics).toContain(`UID:${paid.detail.order_id}-0@`);

  // Printed: no navigation, no buttons, the tickets with large codes (look at the picture).
  await page.emulateMedia({ media: 'print' });
  await page.screenshot({ path: test.info().outputPath('tickets-print.png'), fullPage: true });
  await expect(frame.getByRole('button', { name: 'Add to calendar' })).toBeHidden();
  await page.emulateMedia({ media: 'screen' });

  await frame.getByRole('button', { name: 'Send my tickets again' }).click();
  await expect(frame.getByText('Your tickets are on their way to your e-mail address.')).toBeVisible();

  // No mail server here: the ticket mail waits in the outbox, and in demo mode /demo/mail shows
  // the visit's own mails as the customer would see them, QR images included.
  const alt = await frame.getByRole('img', { name: /QR code of ticket/ }).first().getAttribute('alt');
  const code = alt!.replace('QR code of ticket ', '');
  await page.goto(`${BASE_URL}/demo/mail?visitor=${visitor}`);
  await expect(page.getByRole('heading', { name: /Canal House Museum/ }).first()).toBeVisible();
  const mails = page.locator('article iframe');
  const ours = [];
  for (let i = 0; i < (await mails.count()); i++) {
    const mail = page.frameLocator('article iframe').nth(i);
    if ((await mail.getByText(paid.detail.order_display_id).count()) > 0) ours.push(mail);
  }
  expect(ours.length).toBeGreaterThanOrEqual(1);
  const qr = ours[0].getByRole('img', { name: code });
  await expect(qr).toBeVisible();
  expect(await qr.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth > 0)).toBe(true);
  await page.screenshot({ path: test.info().outputPath('demo-mail.png'), fullPage: true });
});
