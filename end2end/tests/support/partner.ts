// A fake partner for the browser tests: its backend (client credentials, sessions, an identity
// provider with a JWKS) and its website (pages embedding the hosted frame), served by a Node
// `http` server on another origin than Boxoffice's, as a real partner's site would be.
//
// Pages (all `lang="en"`, title and <h1> "Partner shop", the frame in `#tickets`):
//   GET /shop?user=&merchant_id=&product_id=&lang=   a fresh session code per render, embed.js
//        &email=&first_name=&last_name=&locked=a,b     the session's prefill and locked fields
//        &utm_source=…&ref=                            read by embed.js from the page's URL
//   GET /shop?bare=1&user=                           a bare <iframe> and the guide's listener
//   GET /shop?code=<code>[&frame_url=]               renders the given code instead of a new one
//   GET /identity-shop?user=<accountuid>             identity mode: no code, a token handoff
//   GET /identity-token?user=                        a fresh RS256 identity JWT (text/plain)
//   GET /jwks?apiKey=                                the identity provider's public keys
//
// An expired code cannot be made quickly (codes live BOXOFFICE_SESSION_CODE_TTL, 300 s by
// default), so there is no `expired=1`: tests that need a dead code make one with
// `createSession`, let a first page redeem it, and render it again with `/shop?code=…`
// (a redeemed code is refused like an expired one is, as `session-code-invalid`).
//
// Every page records what the frame tells it: `window.boxofficeEvents` holds this page's
// `{type, detail}` entries, and sessionStorage `boxoffice.e2e.events` the whole tab's, so the
// `boxoffice:redirect` seen before the payment page is still readable after the return.
// `window.boxofficeFrameLoads` counts the iframe's load events.

import { createSign, generateKeyPairSync, type KeyObject } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export const BASE_URL = (process.env.BOXOFFICE_BASE_URL ?? 'http://127.0.0.1:3000').replace(/\/+$/, '');
export const BOXOFFICE_ORIGIN = new URL(BASE_URL).origin;
export const DEMO_CAMPAIGN = 'd3e0ca11-0000-4000-8000-000000000001';
export const DEMO_CLIENT_ID = 'demo-partner';
export const DEMO_CLIENT_SECRET = process.env.BOXOFFICE_DEMO_CLIENT_SECRET ?? 'demo-secret';
export const DEFAULT_USER = 'e2e-shopper';

/** The messages the frame sends to its parent. */
export const FRAME_EVENTS = [
  'boxoffice:ready',
  'boxoffice:resize',
  'boxoffice:redirect',
  'boxoffice:order-paid',
  'boxoffice:session-expired',
  'boxoffice:hold-expired',
  'boxoffice:analytics',
  'boxoffice:order-cancelled',
  'boxoffice:order-rebooked',
] as const;
export type FrameEventType = (typeof FRAME_EVENTS)[number];

/** Where a page keeps the tab's event log (sessionStorage of the partner origin). */
export const TAB_LOG_KEY = 'boxoffice.e2e.events';

export interface Partner {
  /** `http://host:port`, the origin the frame must accept (or refuse). */
  origin: string;
  /** An absolute URL on the partner site. */
  url(path: string, params?: Record<string, string>): string;
  close(): Promise<void>;
  /** The `iss` of the partner's identity tokens: `${origin}/`. */
  issuer: string;
}

export interface WebframeSession {
  session_code: string;
  frame_url: string;
}

async function failure(what: string, response: Response): Promise<Error> {
  return new Error(`${what}: HTTP ${response.status} ${await response.text()}`);
}

let cachedToken: { token: string; until: number } | undefined;

/**
 * The demo partner's backend bearer (client credentials). Kept for most of its lifetime, since
 * the token endpoint is rate limited per client address and every test shares 127.0.0.1.
 */
export async function backendToken(): Promise<string> {
  if (cachedToken && Date.now() < cachedToken.until) {
    return cachedToken.token;
  }
  const response = await fetch(`${BASE_URL}/oauth/token`, {
    method: 'POST',
    body: new URLSearchParams({
      grant_type: 'client_credentials',
      client_id: DEMO_CLIENT_ID,
      client_secret: DEMO_CLIENT_SECRET,
    }),
  });
  if (response.status !== 200) {
    throw await failure('POST /oauth/token', response);
  }
  const body = (await response.json()) as { access_token: string; expires_in: number };
  const lifetime = Math.max(0, (body.expires_in - 60) * 1000);
  cachedToken = { token: body.access_token, until: Date.now() + lifetime };
  return body.access_token;
}

/** The partner's user as `POST /v1/session` takes it: its reference, prefill and locked fields. */
export interface SessionUser {
  reference: string;
  email?: string;
  first_name?: string;
  last_name?: string;
  locked?: string[];
}

/** A webframe session for `user` (the partner's user reference): its one-time code and frame URL. */
export async function createSession(
  user: string | SessionUser = DEFAULT_USER,
  campaign: string = DEMO_CAMPAIGN,
  integration: 'webframe' | 'headless' = 'webframe',
): Promise<WebframeSession> {
  const sessionUser = typeof user === 'string' ? { reference: user } : user;
  const response = await fetch(`${BASE_URL}/v1/session`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${await backendToken()}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ integration, user: sessionUser, campaign_id: campaign }),
  });
  if (response.status !== 201) {
    throw await failure('POST /v1/session', response);
  }
  const { data } = (await response.json()) as { data: WebframeSession };
  return { session_code: data.session_code, frame_url: data.frame_url };
}

/**
 * A public bearer of the partner's user `reference` (a headless session exchanged by the
 * partner's backend): the same customer as the frame's, so it reads that customer's orders.
 */
export async function customerBearer(reference: string): Promise<string> {
  const { session_code } = await createSession(reference, DEMO_CAMPAIGN, 'headless');
  const response = await fetch(`${BASE_URL}/v1/session/token`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ session_code, client_id: DEMO_CLIENT_ID, client_secret: DEMO_CLIENT_SECRET }),
  });
  if (response.status !== 200) {
    throw await failure('POST /v1/session/token', response);
  }
  return ((await response.json()) as { data: { access_token: string } }).data.access_token;
}

/** `GET path` of the API with `bearer`; the envelope's `data`. */
export async function apiData(path: string, bearer: string): Promise<any> {
  const response = await fetch(`${BASE_URL}${path}`, { headers: { Authorization: `Bearer ${bearer}` } });
  if (response.status !== 200) {
    throw await failure(`GET ${path}`, response);
  }
  return ((await response.json()) as { data: unknown }).data;
}

/**
 * Puts the partner's identity provider on Boxoffice's allow-list through the operator API
 * (`BOXOFFICE_ADMIN_TOKEN` must be the server's operator token). Already listed counts as done.
 */
export async function trustPartnerIssuer(partner: Partner): Promise<void> {
  const admin = process.env.BOXOFFICE_ADMIN_TOKEN;
  if (!admin) {
    throw new Error('BOXOFFICE_ADMIN_TOKEN is not set: start the server with an operator token and pass it to the tests');
  }
  const response = await fetch(`${BASE_URL}/admin/v1/identity-issuers`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${admin}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({
      issuer: partner.issuer,
      jwks_url_template: `${partner.origin}/jwks?apiKey={apiKey}`,
      audience: null,
      // An issuer trusts only the apiKeys it lists, in the campaigns tied to it.
      api_keys: [KID],
      campaign_ids: [DEMO_CAMPAIGN],
    }),
  });
  if (response.status !== 201 && response.status !== 409) {
    throw await failure('POST /admin/v1/identity-issuers', response);
  }
}

// ---- the partner's identity provider --------------------------------------------------------

const KID = 'e2e-key';

function base64url(data: string | Buffer): string {
  return Buffer.from(data).toString('base64url');
}

function identityToken(privateKey: KeyObject, issuer: string, user: string): string {
  const now = Math.floor(Date.now() / 1000);
  const header = { alg: 'RS256', kid: KID, typ: 'JWT' };
  const claims = { iss: issuer, apiKey: KID, accountuid: user, loyalty_card: `LC-${user}`, iat: now, exp: now + 300 };
  const input = `${base64url(JSON.stringify(header))}.${base64url(JSON.stringify(claims))}`;
  const signature = createSign('RSA-SHA256').update(input).sign(privateKey);
  return `${input}.${base64url(signature)}`;
}

// ---- the partner's pages --------------------------------------------------------------------

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** JSON safe inside an inline <script>. */
function scriptJson(value: unknown): string {
  return JSON.stringify(value).replace(/</g, '\\u003c').replace(/\u2028/g, '\\u2028').replace(/\u2029/g, '\\u2029');
}

/** The recorder every page starts with: `record(type, detail)` fills both logs. */
const RECORDER = `
window.boxofficeEvents = [];
window.boxofficeFrameLoads = 0;
function record(type, detail) {
  var entry = { type: type, detail: detail };
  window.boxofficeEvents.push(entry);
  try {
    var log = JSON.parse(sessionStorage.getItem(${scriptJson(TAB_LOG_KEY)}) || '[]');
    log.push(entry);
    sessionStorage.setItem(${scriptJson(TAB_LOG_KEY)}, JSON.stringify(log));
  } catch (e) {}
}
function countLoads(iframe) {
  iframe.addEventListener('load', function () { window.boxofficeFrameLoads += 1; });
}`;

function page(body: string, script: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<title>Partner shop</title>
<style>body { margin: 0; font-family: sans-serif; } main { max-width: 60rem; margin: 0 auto; padding: 0 0.5rem; }</style>
</head>
<body>
<main>
<h1>Partner shop</h1>
${body}
</main>
<script>${RECORDER}
${script}
</script>
</body>
</html>
`;
}

/** A page that mounts the frame with embed.js and records the container's events. */
function embedPage(options: Record<string, unknown>, identityTokenUrl?: string): string {
  const tokenOption = identityTokenUrl
    ? `options.identityToken = function () {
  return fetch(${scriptJson(identityTokenUrl)}).then(function (r) {
    if (!r.ok) throw new Error('identity token: HTTP ' + r.status);
    return r.text();
  });
};`
    : '';
  return page(
    `<div id="tickets"></div>
<script src="${escapeHtml(`${BASE_URL}/embed.js`)}"></script>`,
    `var container = document.getElementById('tickets');
${scriptJson(FRAME_EVENTS)}.forEach(function (type) {
  // No preventDefault: on boxoffice:redirect the top window really goes to the payment page.
  container.addEventListener(type, function (event) { record(type, event.detail); });
});
var options = ${scriptJson(options)};
${tokenOption}
window.boxofficeFrame = Boxoffice.mount(container, options);
countLoads(window.boxofficeFrame.iframe);`,
  );
}

/** A page with a bare <iframe> and the listener docs/webframe.md shows (resize, redirect). */
function barePage(src: string, back: string): string {
  const frameOrigin = new URL(src).origin;
  return page(
    `<iframe id="tickets" title="Tickets" src="${escapeHtml(src)}" referrerpolicy="origin" allow="payment"
  style="width: 100%; height: 600px; border: 0; display: block"></iframe>`,
    `var iframe = document.getElementById('tickets');
countLoads(iframe);
// Back from payment: keep a reload from showing the return screen again.
if (/[?&](payment_id|boxoffice_checkout)=/.test(location.search)) history.replaceState(history.state, '', ${scriptJson(back)});
window.addEventListener('message', function (event) {
  var data = event.data;
  if (event.origin !== ${scriptJson(frameOrigin)} || event.source !== iframe.contentWindow) return;
  if (!data || typeof data.type !== 'string' || data.type.indexOf('boxoffice:') !== 0) return;
  record(data.type, data);
  if (data.type === 'boxoffice:resize') iframe.style.height = Math.ceil(data.height) + 'px';
  if (data.type === 'boxoffice:redirect' && /^https?:/.test(data.url)) window.location.assign(data.url);
});`,
  );
}

function send(res: ServerResponse, status: number, type: string, body: string): void {
  res.writeHead(status, { 'Content-Type': type, 'Cache-Control': 'no-store' });
  res.end(body);
}

function param(query: URLSearchParams, name: string): string | undefined {
  return query.get(name) || undefined;
}

export async function startPartner(opts: { host?: string } = {}): Promise<Partner> {
  const host = opts.host ?? 'localhost';
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const jwk = { ...publicKey.export({ format: 'jwk' }), kid: KID, alg: 'RS256', use: 'sig' };
  let origin = '';
  let issuer = '';

  async function shop(query: URLSearchParams, self: URL): Promise<string> {
    const given = param(query, 'code');
    const user: SessionUser = {
      reference: param(query, 'user') ?? DEFAULT_USER,
      email: param(query, 'email'),
      first_name: param(query, 'first_name'),
      last_name: param(query, 'last_name'),
      locked: param(query, 'locked')?.split(','),
    };
    const session = given
      ? { session_code: given, frame_url: param(query, 'frame_url') ?? `${BASE_URL}/frame` }
      : await createSession(user);
    if (query.get('bare') !== '1') {
      return embedPage({
        frameUrl: session.frame_url,
        sessionCode: session.session_code,
        merchantId: param(query, 'merchant_id'),
        productId: param(query, 'product_id'),
        date: param(query, 'date'),
        timeslot: param(query, 'timeslot'),
        quantities: param(query, 'quantities'),
        locale: param(query, 'lang'),
      });
    }
    // A bare partner builds the frame's URL itself, the return screen included.
    const checkout = param(query, 'boxoffice_checkout');
    const payment = param(query, 'payment_id');
    const back = new URL(self);
    back.searchParams.delete('boxoffice_checkout');
    back.searchParams.delete('payment_id');
    const src = new URL(checkout && payment ? `${session.frame_url.replace(/\/$/, '')}/return` : session.frame_url);
    if (checkout && payment) {
      src.searchParams.set('checkout_id', checkout);
      src.searchParams.set('payment_id', payment);
    }
    src.searchParams.set('session_code', session.session_code);
    src.searchParams.set('return_url', back.href);
    return barePage(src.href, back.href);
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const self = new URL(req.url ?? '/', origin);
    const query = self.searchParams;
    if (req.method !== 'GET') {
      return send(res, 405, 'text/plain', 'GET only');
    }
    switch (self.pathname) {
      case '/shop':
        return send(res, 200, 'text/html; charset=utf-8', await shop(query, self));
      case '/identity-shop':
        return send(
          res,
          200,
          'text/html; charset=utf-8',
          embedPage(
            {
              frameUrl: `${BASE_URL}/frame`,
              clientId: DEMO_CLIENT_ID,
              campaignId: DEMO_CAMPAIGN,
              locale: param(query, 'lang'),
            },
            `/identity-token?${new URLSearchParams({ user: param(query, 'user') ?? DEFAULT_USER })}`,
          ),
        );
      case '/identity-token':
        return send(res, 200, 'text/plain', identityToken(privateKey, issuer, param(query, 'user') ?? DEFAULT_USER));
      case '/favicon.ico':
        // The browser asks every page for one; a 404 would be a console error in every test.
        res.writeHead(204).end();
        return;
      case '/jwks':
        return send(res, 200, 'application/json', JSON.stringify({ keys: [jwk] }));
      default:
        return send(res, 404, 'text/plain', 'not found');
    }
  }

  const listener = (req: IncomingMessage, res: ServerResponse) => {
    handle(req, res).catch((error: unknown) => {
      if (!res.headersSent) {
        send(res, 500, 'text/plain', `partner error: ${error instanceof Error ? error.message : String(error)}`);
      } else {
        res.destroy();
      }
    });
  };

  const listen = (server: Server, port: number, address: string) =>
    new Promise<number>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, address, () => {
        server.off('error', reject);
        resolve((server.address() as AddressInfo).port);
      });
    });

  // "localhost" is served on 127.0.0.1 and, when the machine has IPv6, on ::1 with the same
  // port, so whichever address a browser or the server's JWKS fetch picks answers.
  const servers: Server[] = [createServer(listener)];
  const port = await listen(servers[0], 0, host === 'localhost' ? '127.0.0.1' : host);
  if (host === 'localhost') {
    const v6 = createServer(listener);
    try {
      await listen(v6, port, '::1');
      servers.push(v6);
    } catch {
      // No IPv6 loopback (or its port is taken): 127.0.0.1 is enough.
    }
  }
  origin = `http://${host}:${port}`;
  issuer = `${origin}/`;

  return {
    origin,
    issuer,
    url(path: string, params?: Record<string, string>): string {
      const url = new URL(path, origin);
      for (const [key, value] of Object.entries(params ?? {})) {
        url.searchParams.set(key, value);
      }
      return url.href;
    },
    async close(): Promise<void> {
      await Promise.all(
        servers.map(
          (server) =>
            new Promise<void>((resolve) => {
              server.close(() => resolve());
              server.closeAllConnections();
            }),
        ),
      );
    },
  };
}
