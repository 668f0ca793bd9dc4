// Drives the Stripe.js stand-in (stripe-standin.js) in Debian's Chromium, for selftest.py:
//   node end2end/stripe/standin-check.mjs PAGE_URL
// PAGE_URL is selftest.py's payment page for a fresh PaymentIntent. An empty form gives the
// validation error, the decline card Stripe's decline message, a 3-D Secure card failed gives
// the authentication error, and the same card completed goes to return_url. Prints the URL it
// ends at; exits 1 on any failure.
import { chromium } from 'playwright-core';

const [pageUrl] = process.argv.slice(2);
const browser = await chromium.launch({
  executablePath: process.env.BOXOFFICE_CHROMIUM ?? '/usr/bin/chromium',
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run',
    '--disable-background-networking', '--disable-component-update', '--disable-sync'],
});
try {
  const page = await browser.newPage();
  page.setDefaultTimeout(15_000);
  page.on('console', (message) => console.error('[page]', message.text()));
  page.on('pageerror', (error) => console.error('[page error]', error.message));

  await page.goto(pageUrl);
  await page.locator('body[data-ready="yes"]').waitFor({ state: 'attached' });
  const pay = page.getByRole('button', { name: 'Pay', exact: true });
  const showsMessage = (text) => page.waitForFunction(
    (t) => document.getElementById('message').textContent === t, text);

  await pay.click();
  await showsMessage('Your card number is incomplete.');

  await page.getByLabel('Card number').fill('4000 0000 0000 0341');
  await page.getByLabel('Expiry (MM / YY)').fill('12 / 34');
  await page.getByLabel('CVC').fill('123');
  await pay.click();
  await showsMessage('Your card was declined.');

  const dialog = page.getByRole('dialog', { name: '3-D Secure' });
  await page.getByLabel('Card number').fill('4000 0025 0000 3155');
  await pay.click();
  await dialog.getByRole('button', { name: 'Fail authentication' }).click();
  await showsMessage('We are unable to authenticate your payment method. '
    + 'Please choose a different payment method and try again.');

  await pay.click();
  await dialog.getByRole('button', { name: 'Complete authentication' }).click();
  await page.waitForURL(/redirect_status=succeeded/);
  console.log(page.url());
} catch (error) {
  console.error(error);
  process.exitCode = 1;
} finally {
  await browser.close();
}
