// Steps a shopper takes on the partner's page and inside the embedded frame, written the way a
// person sees the page: by role, label and the English texts of app/locales/en-GB.json.

import { expect, type Frame, type FrameLocator, type Page } from '@playwright/test';
import { BASE_URL, TAB_LOG_KEY, type FrameEventType, type Partner } from './partner';

export const FRAME_SELECTOR = 'iframe[title="Tickets"]';

export interface HostEvent {
  type: string;
  /** The message object (embed.js pages: the CustomEvent's detail). */
  detail: any;
}

declare global {
  interface Window {
    boxofficeEvents: HostEvent[];
    boxofficeFrameLoads: number;
  }
}

/** The embedded frame, as the tests reach into it. */
export function ticketsFrame(page: Page): FrameLocator {
  return page.frameLocator(FRAME_SELECTOR);
}

/** The frame's `Frame` object, for evaluating inside its document. */
export async function frameOf(page: Page): Promise<Frame> {
  const handle = await page.locator(FRAME_SELECTOR).elementHandle();
  const frame = await handle?.contentFrame();
  if (!frame) {
    throw new Error('the Tickets iframe has no document');
  }
  return frame;
}

/** The events this host page received from the frame, oldest first. */
export async function hostEvents(page: Page): Promise<HostEvent[]> {
  return page.evaluate(() => window.boxofficeEvents ?? []);
}

/** The events every partner page of this tab received, across navigations (payment included). */
export async function tabEvents(page: Page): Promise<HostEvent[]> {
  return page.evaluate((key) => JSON.parse(sessionStorage.getItem(key) ?? '[]') as HostEvent[], TAB_LOG_KEY);
}

/** Waits until this host page received an event of `type`, and returns the latest one. */
export async function waitForHostEvent(page: Page, type: FrameEventType, timeout = 10_000): Promise<HostEvent> {
  await page.waitForFunction((t) => (window.boxofficeEvents ?? []).some((e) => e.type === t), type, { timeout });
  const events = await hostEvents(page);
  return events.filter((e) => e.type === type).pop()!;
}

/**
 * Opens the partner's shop page (`/shop` with `params`, or another partner path) and waits until
 * the frame says it is ready: only then does it answer clicks.
 */
export async function openShop(
  page: Page,
  partner: Partner,
  params: Record<string, string> = {},
  path = '/shop',
): Promise<FrameLocator> {
  await page.goto(partner.url(path, params));
  await expect(page.getByRole('heading', { level: 1, name: 'Partner shop' })).toBeVisible();
  await waitForHostEvent(page, 'boxoffice:ready');
  await waitForSettledFrame(page);
  return ticketsFrame(page);
}

/**
 * Waits until the frame's first screen has its data and the host has stopped resizing the
 * iframe: Chromium can drop a click that lands on a cross-site iframe while it is being resized.
 */
export async function waitForSettledFrame(page: Page): Promise<void> {
  const frame = ticketsFrame(page);
  await expect(frame.locator('main [aria-busy="true"]')).toHaveCount(0);
  await expect(frame.locator('main .loading')).toHaveCount(0);
  let last = -1;
  await expect.poll(async () => {
    const height = await page.evaluate(
      (selector) => (document.querySelector(selector) as HTMLElement | null)?.getBoundingClientRect().height ?? 0,
      FRAME_SELECTOR,
    );
    const steady = height === last;
    last = height;
    return steady;
  }, { intervals: [250, 250, 250, 500] }).toBe(true);
}

// Accessible names of calendar days (product.day_*), dates in fmt.date_long, prices in fmt.money.
const WEEKDAY = '(?:Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday)';
const MONTH = '(?:January|February|March|April|May|June|July|August|September|October|November|December)';
const DATE = `${WEEKDAY} \\d{1,2} ${MONTH} \\d{4}`;
const MONEY = '\\S*?\\d[\\d,]*(?:\\.\\d+)?(?: ?[A-Z]{3})?';
/**
 * "{{ number }} – {{ amount }}: {{ date }}, {{ price }}" and the same with "instead of
 * {{ list_price }}": the name begins with the day's visible number and short price.
 */
export const AVAILABLE_DAY = new RegExp(`^\\d{1,2} – [\\d.,]+: ${DATE}, ${MONEY}(?: instead of ${MONEY})?$`);
export const SOLD_OUT_DAY = new RegExp(`^${DATE}, sold out$`);

/**
 * Picks the first day that can be booked in the product's calendar, moving on to later months
 * (at most `months` of them) when the shown one has none. Returns the day's accessible name.
 */
export async function chooseFirstAvailableDay(frame: FrameLocator, months = 3): Promise<string> {
  const grid = frame.getByRole('grid');
  for (let month = 0; month < months; month++) {
    await expect(grid).toBeVisible();
    const available = grid.getByRole('button', { name: AVAILABLE_DAY });
    const none = frame.getByText('No dates available this month.');
    await expect(available.first().or(none)).toBeVisible();
    if ((await available.count()) > 0) {
      const day = available.first();
      const name = (await day.getAttribute('aria-label')) ?? (await day.innerText());
      await day.click();
      await expect(frame.getByText(/^Chosen date: /)).toBeVisible();
      return name;
    }
    await frame.getByRole('button', { name: 'Next month' }).click();
  }
  throw new Error(`no available day in ${months} months`);
}

export interface Customer {
  email: string;
  firstName: string;
  lastName: string;
}

export const SHOPPER: Customer = { email: 'e2e.shopper@example.com', firstName: 'Eva', lastName: 'Tester' };

/** Fills "Your details" on the checkout screen. */
export async function fillCustomerDetails(frame: FrameLocator, customer: Customer = SHOPPER): Promise<void> {
  await frame.getByLabel('Email address').fill(customer.email);
  await frame.getByLabel('First name').fill(customer.firstName);
  await frame.getByLabel('Last name').fill(customer.lastName);
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** The sandbox payment page, in the top window: `${BASE_URL}/pay/<payment uuid>`. */
export const PAYMENT_PAGE = new RegExp(`^${escapeRegExp(BASE_URL)}/pay/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`);

/**
 * On the sandbox payment page (the top window left the partner for it): chooses Pay, Decline
 * or Cancel, and waits until the browser is back on the partner's site.
 */
export async function settleSandboxPayment(page: Page, partner: Partner, choice: 'Pay' | 'Decline' | 'Cancel' = 'Pay'): Promise<void> {
  await page.waitForURL(PAYMENT_PAGE);
  await page.getByRole('button', { name: choice, exact: true }).click();
  await page.waitForURL((url) => url.origin === partner.origin);
}
