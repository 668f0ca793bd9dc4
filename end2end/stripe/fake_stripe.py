"""A fake Stripe for tests: localstripe's API server plus a stand-in for Stripe.js.

Run with the localstripe venv's Python (.ci/install-tools stripe):

    $BOXOFFICE_LOCALSTRIPE_PYTHON end2end/stripe/fake_stripe.py --port 0

Once listening it prints exactly one line to stdout, `listening on http://127.0.0.1:PORT`,
and nothing else goes to stdout (the access and webhook log goes to stderr). SIGTERM or
SIGINT stops it cleanly. Its store lives in this process's memory only: localstripe's
/tmp/localstripe.pickle is neither read nor written, so two instances never share data.

Routes added to localstripe's (which keep working as they do there, with an sk_ key):
  GET  /js.stripe.com/v3/standin.js        stripe-standin.js, the stand-in for Stripe.js
  POST /js.stripe.com/v3/confirm/{pi_id}   the publishable-key confirmation Stripe.js makes
                                           (client_secret, card[number], card[exp_month],
                                           card[exp_year], card[cvc]); a declined or failed
                                           attempt may be followed by another one on the
                                           same PaymentIntent, as on Stripe

Test cards, as localstripe 1.15.10 (resources.py, PaymentMethod) treats a PaymentIntent's card
(any future expiry, any 3-digit CVC; localstripe wants exactly 16 digits):
  succeeds                       4242424242424242, and any other 16 digits not listed below
  declined (card_declined, 402)  4000000000000341
  3-D Secure, then succeeds      4000002500003155, 4000002760003184, 4000000000003220,
                                 4000000000003063
  3-D Secure, then declined      4000008260003178, 4000008400001629
  Stripe's usual decline cards (4000000000000002, ...9995, ...9987, ...9979, ...0069, ...0127,
  ...0119, 4242424242424241) are declined by localstripe only when attached to a Customer:
  a PaymentIntent confirmed with one of them SUCCEEDS here.
"""

import argparse
import asyncio
import hmac
import logging
import pathlib
import re
import signal
import socket
import sys

from aiohttp import web

from localstripe import server as ls
from localstripe.errors import UserError
from localstripe.resources import PaymentIntent, PaymentMethod, Store

# Memory only: localstripe writes its whole store to /tmp/localstripe.pickle after every
# write (and reads it at start), which two instances at once would share.
Store.dump_to_disk = lambda self: None
Store.try_load_from_disk = lambda self: None

STANDIN_JS = pathlib.Path(__file__).resolve().with_name('stripe-standin.js')

# The statuses a customer may (re)confirm from, as on Stripe.
CONFIRMABLE = ('requires_payment_method', 'requires_confirmation', 'requires_action')


def card_error(status, code, message, pi=None, **extra):
    error = {'type': 'card_error', 'code': code, 'message': message, **extra}
    if pi is not None:
        error['payment_intent'] = pi._export()
    return ls.json_response({'error': error}, status=status)


def check_card(card):
    """Stripe's code and message for card fields localstripe would refuse, else None."""
    if not isinstance(card, dict):
        return 'incorrect_number', 'Your card number is incorrect.'
    number = re.sub(r'\s', '', str(card.get('number') or ''))
    if not re.fullmatch(r'\d{16}', number):
        return 'incorrect_number', 'Your card number is incorrect.'
    if not re.fullmatch(r'\d{1,2}', str(card.get('exp_month') or '')) \
            or not 1 <= int(card['exp_month']) <= 12:
        return 'invalid_expiry_month', "Your card's expiration month is invalid."
    year = str(card.get('exp_year') or '')
    if not re.fullmatch(r'\d{2}|\d{4}', year) \
            or not 2019 <= (int(year) + (2000 if len(year) == 2 else 0)) < 2100:
        return 'invalid_expiry_year', "Your card's expiration year is invalid."
    if not re.fullmatch(r'\d{3}', str(card.get('cvc') or '')):
        return 'invalid_cvc', "Your card's security code is invalid."
    return None


async def standin_js(request):
    return web.Response(text=STANDIN_JS.read_text(), content_type='application/javascript',
                        headers={'Cache-Control': 'no-store'})


async def confirm(request):
    data = await ls.get_post_data(request) or {}
    pi = PaymentIntent._api_retrieve(request.match_info['pi_id'])  # 404 if unknown
    secret = data.get('client_secret')
    if not isinstance(secret, str) or not hmac.compare_digest(secret, pi.client_secret):
        raise UserError(401, 'Unauthorized')
    if pi.status not in CONFIRMABLE:
        raise UserError(400, "This PaymentIntent's status is %s: it cannot be confirmed."
                        % pi.status, {'code': 'payment_intent_unexpected_state'})
    bad = check_card(data.get('card'))
    if bad:
        return card_error(402, *bad, pi=pi)

    card = {k: str(data['card'][k]) for k in ('number', 'exp_month', 'exp_year', 'cvc')}
    card['number'] = re.sub(r'\s', '', card['number'])
    pm = PaymentMethod(type='card', card=card)

    # A failed attempt (declined charge, failed or abandoned 3-D Secure) is cleared, so that
    # localstripe confirms the same PaymentIntent again, as Stripe lets a customer retry.
    if pi.latest_charge is not None and pi.latest_charge.status == 'failed':
        pi.latest_charge = None
    pi.next_action = None
    pi.payment_method = pm.id

    try:
        # localstripe's own confirmation: a charge, its webhooks, or 3-D Secure's next_action.
        pi._confirm(on_failure_now=pi._report_failure)
    except UserError as e:
        if e.code != 402:
            raise
        err = e.body['error']
        return card_error(402, err.get('code') or 'card_declined',
                          err.get('message') or 'Your card was declined.', pi=pi,
                          decline_code='generic_decline', charge=err.get('charge'))
    return ls.json_response(pi._export())


async def preflight(request):
    # The CORS headers themselves are added to every response by localstripe's
    # on_response_prepare hook (it echoes the request's Origin).
    return web.Response(status=204)


ls.app.router.add_get('/js.stripe.com/v3/standin.js', standin_js)
ls.app.router.add_post('/js.stripe.com/v3/confirm/{pi_id}', confirm)
ls.app.router.add_route('OPTIONS', '/js.stripe.com/v3/confirm/{pi_id}', preflight)


async def serve(port, exit_on_stdin_eof):
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(('127.0.0.1', port))
    runner = web.AppRunner(ls.app, access_log=logging.getLogger('aiohttp.access'))
    await runner.setup()
    await web.SockSite(runner, sock).start()

    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    if exit_on_stdin_eof:
        # A test harness that dies without killing us closes our stdin.
        def on_stdin():
            if not sys.stdin.buffer.raw.read(4096):
                loop.remove_reader(sys.stdin.fileno())
                stop.set()
        loop.add_reader(sys.stdin.fileno(), on_stdin)

    print('listening on http://127.0.0.1:%d' % sock.getsockname()[1], flush=True)
    await stop.wait()
    await runner.cleanup()


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--port', type=int, default=8420, help='0 for a free port')
    parser.add_argument('--exit-on-stdin-eof', action='store_true',
                        help='stop when standard input is closed (the parent is gone)')
    parser.add_argument('--quiet', action='store_true', help='no access or webhook log')
    args = parser.parse_args()

    if not args.quiet:
        logger = logging.getLogger('aiohttp.access')
        logger.setLevel(logging.INFO)
        logger.addHandler(logging.StreamHandler(sys.stderr))
    asyncio.run(serve(args.port, args.exit_on_stdin_eof))


if __name__ == '__main__':
    main()
