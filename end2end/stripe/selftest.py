"""Self-test of the fake Stripe (fake_stripe.py) over plain HTTP, and of the Stripe.js stand-in
in Debian's Chromium when it is installed (standin-check.mjs).

    $BOXOFFICE_LOCALSTRIPE_PYTHON end2end/stripe/selftest.py

Starts the fake with the same Python as this script (or $BOXOFFICE_LOCALSTRIPE_PYTHON), runs
a small HTTP server of its own (the webhook receiver, the payment page and its return page),
and ends with `N passed, N failed, N skipped`; the exit code is 1 if any check failed.
"""

import hashlib
import hmac
import http.server
import json
import os
import pathlib
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.parse
import urllib.request

HERE = pathlib.Path(__file__).resolve().parent
PYTHON = os.environ.get('BOXOFFICE_LOCALSTRIPE_PYTHON') or sys.executable
SK = 'sk_test_boxoffice'
PK = 'pk_test_boxoffice'
WEBHOOK_SECRET = 'whsec_selftest'
CARD = {'card[exp_month]': '12', 'card[exp_year]': '34', 'card[cvc]': '123'}
SUCCESS, DECLINE, THREE_DS = '4242424242424242', '4000000000000341', '4000002500003155'
CHROMIUM = os.environ.get('BOXOFFICE_CHROMIUM', '/usr/bin/chromium')
PICKLE = pathlib.Path('/tmp/localstripe.pickle')

results = {'passed': 0, 'failed': 0, 'skipped': 0}


def check(name):
    def run(fn):
        try:
            fn()
        except Exception as e:  # noqa: BLE001 - every failure is reported, then the next runs
            results['failed'] += 1
            print('FAIL %s: %r' % (name, e), flush=True)
        else:
            results['passed'] += 1
            print('ok   %s' % name, flush=True)
    return run


class Fake:
    """fake_stripe.py in a subprocess, on a free port."""

    def __init__(self):
        self.log = tempfile.TemporaryFile()
        self.proc = subprocess.Popen(
            [PYTHON, str(HERE / 'fake_stripe.py'), '--port', '0', '--exit-on-stdin-eof'],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.log, text=True)
        line = [None]
        reader = threading.Thread(target=lambda: line.__setitem__(0, self.proc.stdout.readline()))
        reader.start()
        reader.join(30)
        prefix = 'listening on http://127.0.0.1:'
        if not line[0] or not line[0].startswith(prefix):
            self.proc.kill()
            raise RuntimeError('fake_stripe.py did not start: %r\n%s' % (line[0], self.stderr()))
        self.base = line[0].strip()[len('listening on '):]

    def stderr(self):
        self.log.seek(0)
        return self.log.read().decode(errors='replace')

    def stop(self, sig=signal.SIGTERM):
        self.proc.send_signal(sig)
        return self.proc.wait(10)

    def call(self, method, path, data=None, key=SK):
        body = urllib.parse.urlencode(data or {}, doseq=True).encode() if method == 'POST' else None
        request = urllib.request.Request(self.base + path, data=body, method=method)
        if key:
            request.add_header('Authorization', 'Bearer ' + key)
        try:
            with urllib.request.urlopen(request, timeout=10) as response:
                return response.status, json.loads(response.read() or b'null')
        except urllib.error.HTTPError as e:
            return e.code, json.loads(e.read() or b'null')

    def payment_intent(self):
        status, pi = self.call('POST', '/v1/payment_intents', {
            'amount': 1234, 'currency': 'eur', 'payment_method_types[]': ['card'],
            'metadata[order_id]': 'x'})
        assert status == 200, (status, pi)
        return pi

    def confirm(self, pi, number, secret=None):
        fields = dict(CARD, client_secret=secret or pi['client_secret'])
        fields['card[number]'] = number
        return self.call('POST', '/js.stripe.com/v3/confirm/' + pi['id'], fields, key=None)


class Receiver(http.server.ThreadingHTTPServer):
    """Webhook receiver (POST /hook) and the stand-in's test page (GET /pay, /done)."""

    def __init__(self):
        super().__init__(('127.0.0.1', 0), Handler)
        self.deliveries = []
        self.arrived = threading.Condition()
        self.fake_base = None
        threading.Thread(target=self.serve_forever, daemon=True).start()

    @property
    def base(self):
        return 'http://127.0.0.1:%d' % self.server_address[1]

    def wait_for(self, predicate, timeout=10):
        with self.arrived:
            self.arrived.wait_for(lambda: any(predicate(d) for d in self.deliveries), timeout)
            return [d for d in self.deliveries if predicate(d)]


PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Pay</title>
<script src="%(fake)s/js.stripe.com/v3/standin.js"></script></head>
<body><form id="pay"><div id="payment-element"></div><button type="submit">Pay</button>
<p id="message" role="alert"></p></form>
<script>
const stripe = Stripe(%(pk)s);
const elements = stripe.elements({ clientSecret: %(cs)s, locale: 'en' });
const element = elements.create('payment');
element.on('ready', () => { document.body.dataset.ready = 'yes'; });
element.mount('#payment-element');
document.getElementById('pay').addEventListener('submit', async (event) => {
  event.preventDefault();
  document.getElementById('message').textContent = '';
  const { error } = await stripe.confirmPayment({
    elements, confirmParams: { return_url: %(return_url)s } });
  if (error) document.getElementById('message').textContent = error.message;
});
</script></body></html>
"""


class Handler(http.server.BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def reply(self, status, content_type, text):
        body = text.encode()
        self.send_response(status)
        self.send_header('Content-Type', content_type)
        self.send_header('Content-Length', str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_POST(self):
        body = self.rfile.read(int(self.headers.get('Content-Length', 0)))
        with self.server.arrived:
            self.server.deliveries.append({
                'signature': self.headers.get('Stripe-Signature', ''), 'body': body,
                'event': json.loads(body)})
            self.server.arrived.notify_all()
        self.reply(200, 'text/plain', 'ok')

    def do_GET(self):
        url = urllib.parse.urlsplit(self.path)
        if url.path == '/pay':
            cs = urllib.parse.parse_qs(url.query)['cs'][0]
            self.reply(200, 'text/html; charset=utf-8', PAGE % {
                'fake': self.server.fake_base, 'pk': json.dumps(PK), 'cs': json.dumps(cs),
                'return_url': json.dumps(self.server.base + '/done?order=x')})
        elif url.path == '/done':
            self.reply(200, 'text/html; charset=utf-8', '<!doctype html><title>Done</title>done')
        else:
            self.reply(404, 'text/plain', 'not found')


def signature_ok(delivery):
    parts = dict(p.split('=', 1) for p in delivery['signature'].split(','))
    expected = hmac.new(WEBHOOK_SECRET.encode(), parts['t'].encode() + b'.' + delivery['body'],
                        hashlib.sha256).hexdigest()
    return hmac.compare_digest(expected, parts['v1'])


def main():
    pickle_before = PICKLE.stat().st_mtime_ns if PICKLE.exists() else None
    receiver = Receiver()
    fake = Fake()
    receiver.fake_base = fake.base
    print('fake Stripe at %s, receiver at %s' % (fake.base, receiver.base), flush=True)
    paid = {}

    @check('webhook registered at /_config/webhooks/hook1')
    def _():
        status, _ = fake.call('POST', '/_config/webhooks/hook1', {
            'url': receiver.base + '/hook', 'secret': WEBHOOK_SECRET}, key=None)
        assert status == 200, status

    @check('confirm with the success card: succeeded')
    def _():
        pi = fake.payment_intent()
        assert pi['status'] == 'requires_payment_method' and pi['amount'] == 1234, pi
        assert pi['metadata'] == {'order_id': 'x'}, pi['metadata']
        status, body = fake.confirm(pi, SUCCESS)
        assert status == 200 and body['status'] == 'succeeded', (status, body)
        paid['pi'] = body

    @check('decline: 402 card_declined, then a retry on the same PaymentIntent succeeds')
    def _():
        pi = fake.payment_intent()
        status, body = fake.confirm(pi, DECLINE)
        assert status == 402, (status, body)
        error = body['error']
        assert error['type'] == 'card_error' and error['code'] == 'card_declined', error
        assert error['message'] == 'Your card was declined.', error
        assert error['payment_intent']['status'] == 'requires_payment_method', error
        paid['declined'] = pi['id']
        status, body = fake.confirm(pi, SUCCESS)
        assert status == 200 and body['status'] == 'succeeded', (status, body)

    @check('3-D Secure: requires_action, _authenticate?success=true: succeeded')
    def _():
        pi = fake.payment_intent()
        status, body = fake.confirm(pi, THREE_DS)
        assert status == 200 and body['status'] == 'requires_action', (status, body)
        status, body = fake.call(
            'POST', '/v1/payment_intents/%s/_authenticate?success=true' % pi['id'],
            {'key': PK, 'client_secret': pi['client_secret']}, key=None)
        assert status == 200 and body['status'] == 'succeeded', (status, body)

    @check('3-D Secure failed, then a retry on the same PaymentIntent succeeds')
    def _():
        pi = fake.payment_intent()
        status, body = fake.confirm(pi, THREE_DS)
        assert body['status'] == 'requires_action', body
        status, body = fake.call(
            'POST', '/v1/payment_intents/%s/_authenticate?success=false' % pi['id'],
            {'key': PK, 'client_secret': pi['client_secret']}, key=None)
        assert status == 200 and body['status'] == 'requires_payment_method', (status, body)
        assert body['last_payment_error']['code'] == 'payment_intent_authentication_failure'
        status, body = fake.confirm(pi, SUCCESS)
        assert status == 200 and body['status'] == 'succeeded', (status, body)

    @check('a wrong client_secret: 401, and the PaymentIntent is unchanged')
    def _():
        pi = fake.payment_intent()
        status, body = fake.confirm(pi, SUCCESS, secret=pi['id'] + '_secret_wrong')
        assert status == 401, (status, body)
        status, body = fake.call('GET', '/v1/payment_intents/' + pi['id'])
        assert body['status'] == 'requires_payment_method', body

    @check('a succeeded PaymentIntent cannot be confirmed again')
    def _():
        status, body = fake.confirm(paid['pi'], SUCCESS)
        assert status == 400, (status, body)

    @check('cancel of an unpaid PaymentIntent: canceled')
    def _():
        pi = fake.payment_intent()
        status, body = fake.call('POST', '/v1/payment_intents/%s/cancel' % pi['id'])
        assert status == 200 and body['status'] == 'canceled', (status, body)

    @check('refund of a succeeded PaymentIntent')
    def _():
        status, refund = fake.call('POST', '/v1/refunds', {'payment_intent': paid['pi']['id']})
        assert status == 200 and refund['status'] == 'succeeded', (status, refund)
        assert refund['amount'] == 1234 and refund['payment_intent'] == paid['pi']['id'], refund
        status, pi = fake.call('GET', '/v1/payment_intents/' + paid['pi']['id'])
        assert pi['latest_charge']['refunded'] is True, pi['latest_charge']

    @check('webhooks: payment_intent.succeeded and .payment_failed, signed with the secret')
    def _():
        def of(type_, pi_id):
            return lambda d: d['event']['type'] == type_ and d['event']['data']['object']['id'] == pi_id
        succeeded = receiver.wait_for(of('payment_intent.succeeded', paid['pi']['id']))
        assert succeeded, [d['event']['type'] for d in receiver.deliveries]
        assert succeeded[0]['event']['data']['object']['metadata'] == {'order_id': 'x'}
        failed = receiver.wait_for(of('payment_intent.payment_failed', paid['declined']))
        assert failed, [d['event']['type'] for d in receiver.deliveries]
        assert all(signature_ok(d) for d in receiver.deliveries)

    @check('two instances at once share no data, and no pickle file is written')
    def _():
        other = Fake()
        try:
            status, _ = other.call('GET', '/v1/payment_intents/' + paid['pi']['id'])
            assert status == 404, status
        finally:
            assert other.stop(signal.SIGINT) == 0, 'SIGINT: exit code not 0'
        after = PICKLE.stat().st_mtime_ns if PICKLE.exists() else None
        assert after == pickle_before, 'localstripe.pickle written'

    node_check = HERE / 'standin-check.mjs'
    playwright = HERE.parent / 'node_modules' / 'playwright-core'
    if not os.path.exists(CHROMIUM) or not shutil.which('node') or not playwright.is_dir():
        results['skipped'] += 1
        print('skip the stand-in in Chromium: %s, node or %s missing' % (CHROMIUM, playwright))
    else:
        @check('the stand-in in Chromium: validation, decline, failed and completed 3-D Secure')
        def _():
            pi = fake.payment_intent()
            page = receiver.base + '/pay?cs=' + urllib.parse.quote(pi['client_secret'])
            run = subprocess.run(['node', str(node_check), page], capture_output=True,
                                 text=True, timeout=120)
            assert run.returncode == 0, run.stdout + run.stderr
            final = urllib.parse.urlsplit(run.stdout.strip().splitlines()[-1])
            query = urllib.parse.parse_qs(final.query)
            assert final.path == '/done' and query['order'] == ['x'], final
            assert query['redirect_status'] == ['succeeded'], query
            assert query['payment_intent'] == [pi['id']], query
            assert query['payment_intent_client_secret'] == [pi['client_secret']], query
            status, body = fake.call('GET', '/v1/payment_intents/' + pi['id'])
            assert body['status'] == 'succeeded', body

    @check('SIGTERM stops the fake with exit code 0')
    def _():
        assert fake.stop() == 0, fake.stderr()

    receiver.shutdown()
    if results['failed']:
        print('--- fake_stripe.py stderr ---\n' + fake.stderr())
    print('%(passed)d passed, %(failed)d failed, %(skipped)d skipped' % results)
    return 1 if results['failed'] else 0


if __name__ == '__main__':
    sys.exit(main())
