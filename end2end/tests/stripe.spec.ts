// The Stripe payment page (server/src/payments/page.rs), paid as a customer pays it: bought in
// the demo shop's frame, paid on the server's own page with the card form Stripe.js mounts, and
// back in the frame with the order paid and the ticket mail sent.
//
// It needs the second server `.ci/test` starts for it, whose payment provider is Stripe, paying
// through the fake Stripe (end2end/stripe/: localstripe, and a stand-in for Stripe.js whose
// card form is in the page, labelled "Card number", "Expiry (MM / YY)" and "CVC"). Its address
// is BOXOFFICE_STRIPE_BASE_URL; without it these tests are skipped. The fake partner of the
// other specs speaks to the first server, so the customer here shops in that server's own demo
// shop (`/demo/shop`, demo mode), which is the demo partner's page as well.
//
// Screenshots of the page (test-results/<test>/stripe-*.png): mounted, at 1024 and 360 px, in
// English and Dutch, and a declined card at 360 px.

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test, type FrameLocator, type Page } from '@playwright/test';
import { axeViolations } from './support/a11y';
import { ticketsFrame, waitForSettledFrame } from './support/shop';

const STRIPE_BASE_URL = process.env.BOXOFFICE_STRIPE_BASE_URL;

test.skip(!STRIPE_BASE_URL, "needs .ci/test's Stripe server");
test.use({ baseURL: STRIPE_BASE_URL });

function texts(locale: string): any {
  return JSON.parse(readFileSync(join(__dirname, '..', '..', 'app', 'locales', `${locale}.json`), 'utf8'));
}

/** What a customer sees in one language: the frame's texts and the payment page's. */
interface Language {
  locale: string;
  t: any;
  park: string;
  pass: string;
  /** The Annual pass's price, €49.00, as the locale writes it. */
  amount: string;
  /** The payment page (server/src/payments/page_texts.rs). */
  page: { title: string; order: string; amount: string; pay: string };
}

const ENGLISH: Language = {
  locale: 'en-GB',
  t: texts('en-GB'),
  park: 'Adventure Park',
  pass: 'Annual pass',
  amount: '€49.00',
  page: { title: 'Payment', order: 'Order', amount: 'Amount to pay', pay: 'Pay' },
};

const DUTCH: Language = {
  locale: 'nl-NL',
  t: texts('nl-NL'),
  park: 'Speelpark Avontuur',
  pass: 'Jaarkaart',
  amount: '€\u00a049,00',
  page: { title: 'Betaling', order: 'Bestelling', amount: 'Te betalen', pay: 'Betaal' },
};

const CARDS = {
  paid: '4242 4242 4242 4242',
  declined: '4000 0000 0000 0341',
  threeDSecure: '4000 0027 6000 3184',
};

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * In the demo shop: the Adventure Park's Annual pass (no date to choose), the customer's
 * details, and on to payment. Ends on the payment page with the card form mounted; returns the
 * order's reference as the page shows it.
 */
async function buyAnnualPass(page: Page, lang: Language): Promise<string> {
  const { t } = lang;
  await page.goto('/demo/shop');
  await expect(page.getByRole('heading', { level: 1, name: 'Day out tickets' })).toBeVisible();
  const frame = ticketsFrame(page);
  await expect(frame.getByRole('link', { name: lang.park })).toBeVisible({ timeout: 20_000 });
  await waitForSettledFrame(page);
  await frame.getByRole('link', { name: lang.park }).click();
  await expect(frame.getByRole('link', { name: new RegExp(lang.pass) })).toBeVisible();
  await waitForSettledFrame(page);
  await frame.getByRole('link', { name: new RegExp(lang.pass) }).click();
  await expect(frame.getByRole('heading', { level: 1, name: lang.pass })).toBeVisible();
  await frame.getByRole('button', { name: t.product.proceed }).click();

  await expect(frame.getByRole('heading', { name: t.checkout.title })).toBeVisible();
  await frame.getByLabel(t.checkout.email).fill('e2e.stripe@example.com');
  await frame.getByLabel(t.checkout.first_name).fill('Sam');
  await frame.getByLabel(t.checkout.last_name).fill('Kaart');
  await frame.getByRole('button', { name: t.checkout.pay }).click();

  // The payment page is the Stripe server's own, in the top window, in the checkout's language.
  await page.waitForURL(new RegExp(`^${escapeRegExp(STRIPE_BASE_URL!)}/pay/[0-9a-f-]{36}\\?`));
  await expect(page.locator('html')).toHaveAttribute('lang', lang.locale);
  await expect(page.getByRole('heading', { level: 1, name: lang.page.title })).toBeVisible();
  await expect(page.getByText(`${lang.page.amount}: ${lang.amount}`, { exact: true })).toBeVisible();
  const order = page.getByText(new RegExp(`^${lang.page.order} \\S+$`));
  await expect(order).toBeVisible();
  const reference = (await order.innerText()).slice(lang.page.order.length + 1);
  await expect(page).toHaveTitle(`${lang.page.title} – ${reference}`);
  // The card form is mounted once Stripe.js says it is ready: only then can the button pay.
  await expect(page.getByLabel('Card number')).toBeVisible();
  await expect(payButton(page, lang)).toBeEnabled();
  return reference;
}

/** The one button, "Pay €49.00" (the amount repeated where the customer's eyes are). */
function payButton(page: Page, lang: Language) {
  return page.getByRole('button', { name: `${lang.page.pay} ${lang.amount}`, exact: true });
}

async function payWith(page: Page, lang: Language, card: string): Promise<void> {
  await page.getByLabel('Card number').fill(card);
  await page.getByLabel('Expiry (MM / YY)').fill('12 / 34');
  await page.getByLabel('CVC').fill('123');
  await payButton(page, lang).click();
}

/** Back in the demo shop's frame: the order paid, its ticket shown. */
async function expectPaidInFrame(page: Page, lang: Language, reference: string): Promise<FrameLocator> {
  // toHaveURL, not waitForURL: a payment that did not go through fails with the page it is on.
  // embed.js takes the return's parameters out of the shop's address once it has read them.
  await expect(page).toHaveURL(new RegExp(`^${escapeRegExp(STRIPE_BASE_URL!)}/demo/shop(?:\\?|$)`), { timeout: 20_000 });
  const frame = ticketsFrame(page);
  await expect(frame.getByRole('heading', { name: lang.t.after_payment.paid_title })).toBeVisible({ timeout: 20_000 });
  await expect(frame.getByText(reference).first()).toBeVisible();
  return frame;
}

async function screenshot(page: Page, name: string, width: number): Promise<void> {
  await page.setViewportSize({ width, height: width < 600 ? 740 : 768 });
  await page.screenshot({ path: test.info().outputPath(`stripe-${name}-${width}.png`), fullPage: true });
}

test('a customer pays the order on the Stripe payment page, gets back to the frame with it paid, and receives the ticket mail', async ({ page }) => {
  test.setTimeout(90_000);
  const reference = await buyAnnualPass(page, ENGLISH);
  // The page around the card form is ours (the form itself is Stripe's iframe, here the stand-in's).
  expect(await axeViolations(page)).toEqual([]);
  await screenshot(page, 'en', 1024);
  await screenshot(page, 'en', 360);
  // At 360 px the amount and the whole button are there without scrolling sideways.
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(360);
  const button = (await payButton(page, ENGLISH).boundingBox())!;
  expect(button.x).toBeGreaterThanOrEqual(0);
  expect(button.x + button.width).toBeLessThanOrEqual(360);

  await payWith(page, ENGLISH, CARDS.paid);
  const frame = await expectPaidInFrame(page, ENGLISH, reference);
  await expect(frame.getByRole('img', { name: /QR code of ticket/ }).first()).toBeVisible();

  // No mail server here: the demo shop links to the visit's own mailbox (server/src/demo/mail.rs),
  // which shows the ticket mail as its customer reads it.
  await page.getByRole('link', { name: 'your ticket mails' }).click();
  await expect(page.getByRole('heading', { level: 2 }).first()).toBeVisible();
  const mail = page.frameLocator('article iframe').first();
  await expect(mail.getByText(reference).first()).toBeVisible();
  await expect(mail.getByRole('img', { name: /\S/ }).first()).toBeVisible();
});

test('a declined card is said so on the page, and the customer pays with another card on the same page', async ({ page }) => {
  test.setTimeout(90_000);
  const reference = await buyAnnualPass(page, ENGLISH);
  const payment = page.url();
  await page.setViewportSize({ width: 360, height: 740 });

  await payWith(page, ENGLISH, CARDS.declined);
  const alert = page.getByRole('alert');
  await expect(alert).toContainText('declined');
  await expect(alert).toBeInViewport();
  // Still this payment's page, ready for another attempt.
  expect(page.url()).toBe(payment);
  await expect(payButton(page, ENGLISH)).toBeEnabled();
  expect(await axeViolations(page)).toEqual([]);
  await screenshot(page, 'declined', 360);

  await payWith(page, ENGLISH, CARDS.paid);
  await expectPaidInFrame(page, ENGLISH, reference);
});

test('a card that asks for 3-D Secure is paid once the customer completes the authentication', async ({ page }) => {
  test.setTimeout(90_000);
  const reference = await buyAnnualPass(page, ENGLISH);
  await payWith(page, ENGLISH, CARDS.threeDSecure);
  const dialog = page.getByRole('dialog', { name: '3-D Secure' });
  await expect(dialog).toBeVisible();
  await dialog.getByRole('button', { name: 'Complete authentication' }).click();
  await expectPaidInFrame(page, ENGLISH, reference);
});

test.describe('a Dutch checkout', () => {
  // The browser's language: the frame, and so the checkout, follow its Accept-Language.
  test.use({ locale: 'nl-NL' });

  test('is paid on a Dutch payment page', async ({ page }) => {
    test.setTimeout(90_000);
    const reference = await buyAnnualPass(page, DUTCH);
    await screenshot(page, 'nl', 1024);
    await screenshot(page, 'nl', 360);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(360);

    await payWith(page, DUTCH, CARDS.paid);
    await expectPaidInFrame(page, DUTCH, reference);
  });
});
