import { axeViolations } from './support/a11y';
import { buyTickets, createGate, entriesOf, merchantDate, museum } from './support/gate';
import {
  PHONE,
  TABLET,
  expect,
  expectAnswer,
  nextScan,
  pair,
  recordAnswerTime,
  shoot,
  statusLine,
  takeAway,
  test,
  waitForCamera,
} from './support/scanner';

/**
 * The gate's scanner at /gate, as the person at the entrance uses it: a phone paired by the
 * operator's link, tickets held up to its camera (a fake one showing a QR code, or the printed
 * code typed in), a full-screen green or red answer, and entries kept while the connection is
 * down. Each test pairs a new gate of the demo museum and buys its own tickets, so what one
 * test lets in no other sees.
 */

test('a ticket for today is let in once: green with its product, then red "Already used" when shown again', async ({ scanner: page, camera }) => {
  test.setTimeout(60_000);
  const merchant = await museum();
  const today = merchantDate(merchant);
  const [ticket] = await buyTickets(today);
  const gate = await createGate(merchant, 'Main entrance');

  await pair(page, gate.pairing_url, gate.name);
  await expect(statusLine(page)).toContainText('Online');
  await waitForCamera(page);
  await camera.show(ticket.qr);
  const admitted = await expectAnswer(page, { admit: true, title: ticket.product_title, offline: false });
  await recordAnswerTime(admitted, 'valid ticket');
  await shoot(page, 'admit-en-1024');
  await page.setViewportSize(PHONE);
  await shoot(page, 'admit-en-360');

  // The ticket never left the camera while the screenshots were taken: the answer stays put
  // rather than turning red under the visitor's eyes.
  await expect(admitted.getByRole('heading', { name: 'Let in', exact: true })).toBeVisible();
  await page.keyboard.press('Enter');
  const refused = await expectAnswer(page, { admit: false, reason: 'Already used', offline: false });
  await recordAnswerTime(refused, 'used ticket');
  await shoot(page, 'refuse-en-360');
  await page.setViewportSize(TABLET);
  await shoot(page, 'refuse-en-1024');

  // In German, for a screenshot in a second language. The ticket is taken away first, or the
  // answer would come back before the language can be chosen.
  await takeAway(page, camera);
  await nextScan(page);
  await page.getByLabel('Language').selectOption({ label: 'Deutsch' });
  await camera.show(ticket.qr);
  await expect(page.getByRole('alert').getByRole('heading', { name: 'Nicht einlassen', exact: true })).toBeVisible();
  await shoot(page, 'refuse-de-1024');

  // Let in once, refused twice: a refusal keeps nothing, so the operator sees one entry.
  const entries = (await entriesOf(gate, today)).filter((e) => e.ticket_id === ticket.ticket_id);
  expect(entries.map(({ status, offline }) => ({ status, offline }))).toEqual([{ status: 'REDEEMED', offline: false }]);
});

test("next week's ticket is refused as not valid now", async ({ scanner: page, camera }) => {
  test.setTimeout(60_000);
  const merchant = await museum();
  const [ticket] = await buyTickets(merchantDate(merchant, 7));
  const gate = await createGate(merchant, 'Garden gate');

  await pair(page, gate.pairing_url, gate.name);
  await expect(statusLine(page)).toContainText('Online');
  await waitForCamera(page);
  await camera.show(ticket.qr);
  const answer = await expectAnswer(page, { admit: false, reason: 'Not valid now', offline: false });
  await recordAnswerTime(answer, 'ticket for next week');

  // Nobody went in, so the visitor can come back next week.
  const entries = await entriesOf(gate, merchantDate(merchant));
  expect(entries.filter((e) => e.ticket_id === ticket.ticket_id)).toEqual([]);
});

test('offline, a valid ticket is let in once from the day list and the entry is uploaded when the connection is back', async ({ scanner: page, camera }) => {
  test.setTimeout(60_000);
  const merchant = await museum();
  const today = merchantDate(merchant);
  const [ticket] = await buyTickets(today);
  const gate = await createGate(merchant, 'Side door');

  // Offline the page judges with what it fetched while online: the keys that sign tickets
  // and the day's signed list. The status line names the list only once both are in; a
  // connection lost before that leaves nothing to check against.
  await pair(page, gate.pairing_url, gate.name);
  await expect(statusLine(page)).toContainText('Online');
  await expect(statusLine(page)).toContainText("Today's list from");
  await waitForCamera(page);

  await page.context().setOffline(true);
  await expect(statusLine(page)).toContainText('Offline');
  await camera.show(ticket.qr);
  const admitted = await expectAnswer(page, { admit: true, offline: true });
  await recordAnswerTime(admitted, 'valid ticket, offline');
  await shoot(page, 'admit-offline-en-1024');
  await takeAway(page, camera);
  await nextScan(page);
  await expect(statusLine(page)).toContainText('1 scan waiting to upload');

  // Still offline, the same ticket again: the page remembers whom it let in.
  await camera.show(ticket.qr);
  await expectAnswer(page, { admit: false, reason: 'Already used', offline: true });
  await takeAway(page, camera);
  await nextScan(page);

  await page.context().setOffline(false);
  await expect(statusLine(page)).toContainText('All scans uploaded');
  const entries = (await entriesOf(gate, today)).filter((e) => e.ticket_id === ticket.ticket_id);
  expect(entries.map(({ status, offline }) => ({ status, offline }))).toEqual([{ status: 'REDEEMED', offline: true }]);
});

test('a ticket whose code will not scan is let in by typing its printed code, and the scanner passes axe', async ({ scanner: page }) => {
  test.setTimeout(60_000);
  const merchant = await museum();
  const [ticket] = await buyTickets(merchantDate(merchant));
  const gate = await createGate(merchant, 'Group entrance');

  await pair(page, gate.pairing_url, gate.name);
  await expect(statusLine(page)).toContainText('Online');
  await waitForCamera(page);
  expect(await axeViolations(page)).toEqual([]);
  // The screen between visitors, as the person at the gate sees it on a tablet and a phone,
  // in English and in French.
  await shoot(page, 'scanner-en-1024');
  await page.setViewportSize(PHONE);
  await shoot(page, 'scanner-en-360');
  await page.getByLabel('Language').selectOption({ label: 'Français' });
  await expect(page.getByLabel('Code du billet')).toBeVisible();
  await shoot(page, 'scanner-fr-360');
  await page.getByLabel('Langue').selectOption({ label: 'English' });

  await page.getByLabel('Ticket code').fill(ticket.code);
  await page.getByLabel('Ticket code').press('Enter');
  await expectAnswer(page, { admit: true, title: ticket.product_title, offline: false });
  await shoot(page, 'typed-admit-en-1024');
  // Over its green, the answer's text must stay readable (contrast), and it is announced.
  expect(await axeViolations(page)).toEqual([]);
});
