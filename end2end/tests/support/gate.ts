// What the gate's tests need from the server, through its APIs as a partner and an operator
// would use them: paid museum tickets for a given day, gates made by the operator, and the
// operator's list of a day's entries (docs/gate.md).

import { expect } from '@playwright/test';
import { buy, demoMuseum, museumProduct } from './buy';
import { BASE_URL, apiData, customerBearer } from './partner';

/** The demo museum: a merchant whose day tickets are valid on their day, in its own zone. */
export interface Merchant {
  id: string;
  timezone: string;
}

/** A ticket as the customer's order read shows it. */
export interface Ticket {
  ticket_id: string;
  /** The printed code, what a person types at the gate. */
  code: string;
  /** What its QR code holds: a signed token a gate can verify offline. */
  qr: string;
  product_title: string;
  age_group: string | null;
  status: string;
}

/** A gate as the operator made it, with its one-time pairing URL. */
export interface Gate {
  gate_id: string;
  name: string;
  pairing_url: string;
}

/** An entry in the operator's list of a gate's day. */
export interface Entry {
  ticket_id: string;
  status: 'REDEEMED' | 'UNDONE' | 'CONFLICT';
  offline: boolean;
}

function adminToken(): string {
  const token = process.env.BOXOFFICE_ADMIN_TOKEN;
  if (!token) {
    throw new Error('BOXOFFICE_ADMIN_TOKEN is not set: start the server with an operator token and pass it to the tests');
  }
  return token;
}

/** `method path` of the operator API; the envelope's `data`. */
async function admin(method: 'GET' | 'POST', path: string, expected: number, body?: unknown): Promise<any> {
  const response = await fetch(`${BASE_URL}/admin/v1${path}`, {
    method,
    headers: { Authorization: `Bearer ${adminToken()}`, 'Content-Type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  expect(response.status, `${method} /admin/v1${path}: ${text}`).toBe(expected);
  return (JSON.parse(text) as { data: unknown }).data;
}

/** A gate of `merchant` for all its products, with the default margins. */
export async function createGate(merchant: Merchant, name: string): Promise<Gate> {
  return admin('POST', `/merchants/${merchant.id}/gates`, 201, { name });
}

/** The gate's entries, undos and conflicts of `date` (the merchant's calendar). */
export async function entriesOf(gate: Gate, date: string): Promise<Entry[]> {
  return admin('GET', `/gates/${gate.gate_id}/redemptions?date=${date}`, 200);
}

/**
 * The day `days` after today on the merchant's calendar, as YYYY-MM-DD: near midnight in
 * Amsterdam the test machine's own date (or UTC's) would be the wrong day at the gate.
 */
export function merchantDate(merchant: Merchant, days = 0): string {
  const parts = new Intl.DateTimeFormat('en-GB', {
    timeZone: merchant.timezone,
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
  }).formatToParts(new Date());
  const part = (type: string) => Number(parts.find((p) => p.type === type)!.value);
  const day = new Date(Date.UTC(part('year'), part('month') - 1, part('day') + days));
  return day.toISOString().slice(0, 10);
}

/** The demo museum (seeded by BOXOFFICE_DEMO=1), as a new customer of the demo partner sees it. */
export async function museum(): Promise<Merchant> {
  const { id, timezone } = await demoMuseum(await customerBearer(`e2e-gate-${crypto.randomUUID()}`));
  return { id, timezone };
}

/**
 * Buys `quantity` adult day tickets of the museum for `date`, in English, as a new customer,
 * pays them in the sandbox and returns the tickets as the customer's order read shows them.
 */
export async function buyTickets(date: string, quantity = 1): Promise<Ticket[]> {
  const bearer = await customerBearer(`e2e-gate-${crypto.randomUUID()}`);
  const adult = await museumProduct(bearer, 'MUS-ADULT');
  const bought = await buy(bearer, adult, quantity, 'en-GB', date);

  const order = await apiData(`/v2/me/fulfillment/orders/${bought.orderId}`, bearer);
  const tickets = order.tickets as Ticket[];
  expect(tickets).toHaveLength(quantity);
  for (const ticket of tickets) {
    expect(ticket.status).toBe('VALID');
    // Without a signed token the camera would read the printed code, which no offline check takes.
    expect(ticket.qr, `ticket ${ticket.code} has no signed QR token`).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+$/);
  }
  return tickets;
}
