/*
 * A stand-in for the few Stripe.js v3 calls the payment page makes, for tests against
 * end2end/stripe/fake_stripe.py, which serves it at /js.stripe.com/v3/standin.js. Plain
 * browser JS, no build step. Unlike Stripe.js the card form is in the page itself (no iframe),
 * so a test finds its fields by their labels: "Card number", "Expiry (MM / YY)", "CVC".
 *
 *   const stripe = Stripe('pk_test_...');
 *   const elements = stripe.elements({ clientSecret });
 *   const element = elements.create('payment');
 *   element.on('ready', ...); element.on('change', ...);
 *   element.mount('#payment-element');
 *   const { error } = await stripe.confirmPayment({ elements, confirmParams: { return_url } });
 *
 * confirmPayment posts the card to the fake's /js.stripe.com/v3/confirm/{pi_id}; a 3-D Secure
 * card opens a <dialog> whose buttons complete or fail the authentication (localstripe's
 * /v1/payment_intents/{id}/_authenticate). Success goes to return_url with Stripe's query
 * (payment_intent, payment_intent_client_secret, redirect_status=succeeded), and the promise
 * never resolves, as with Stripe.js; with redirect: 'if_required' it resolves {paymentIntent}.
 */
(function () {
  'use strict';

  // The fake's origin: the one this script was loaded from.
  var ORIGIN = new URL(document.currentScript.src).origin;
  var counter = 0;

  function post(path, fields) {
    return fetch(ORIGIN + path, { method: 'POST', body: new URLSearchParams(fields) })
      .then(function (response) {
        return response.text().then(function (text) {
          var body = null;
          try { body = JSON.parse(text); } catch (e) { /* not JSON: body stays null */ }
          return { ok: response.ok && body !== null, status: response.status, body: body };
        });
      });
  }

  function field(form, label, attrs) {
    var id = 'standin-' + ++counter;
    var wrapper = document.createElement('div');
    var labelEl = document.createElement('label');
    var input = document.createElement('input');
    labelEl.htmlFor = id;
    labelEl.textContent = label;
    input.id = id;
    input.type = 'text';
    for (var name in attrs) input.setAttribute(name, attrs[name]);
    wrapper.append(labelEl, input);
    form.appendChild(wrapper);
    return input;
  }

  function digits(value) {
    return value.replace(/\D/g, '');
  }

  // The card as typed, or Stripe's validation error for what is incomplete.
  function readCard(inputs) {
    var number = digits(inputs.number.value);
    var expiry = inputs.expiry.value.split('/').map(function (part) { return digits(part); });
    var cvc = digits(inputs.cvc.value);
    if (number.length < 16) {
      return { error: { type: 'validation_error', code: 'incomplete_number', message: 'Your card number is incomplete.' } };
    }
    if (expiry.length !== 2 || !expiry[0] || expiry[1].length < 2) {
      return { error: { type: 'validation_error', code: 'incomplete_expiry', message: "Your card's expiration date is incomplete." } };
    }
    if (cvc.length < 3) {
      return { error: { type: 'validation_error', code: 'incomplete_cvc', message: "Your card's security code is incomplete." } };
    }
    return { card: { number: number, exp_month: expiry[0], exp_year: expiry[1], cvc: cvc } };
  }

  function PaymentElement() {
    var handlers = { ready: [], change: [] };
    var container = null;
    var element = {
      inputs: null,
      on: function (event, handler) {
        (handlers[event] = handlers[event] || []).push(handler);
        return element;
      },
      off: function (event, handler) {
        handlers[event] = (handlers[event] || []).filter(function (h) { return h !== handler; });
        return element;
      },
      mount: function (target) {
        var parent = typeof target === 'string' ? document.querySelector(target) : target;
        if (!parent) throw new Error('stripe-standin: mount target not found: ' + target);
        container = document.createElement('div');
        container.className = 'standin-payment-element';
        element.inputs = {
          number: field(container, 'Card number', { autocomplete: 'cc-number', inputmode: 'numeric', placeholder: '1234 1234 1234 1234' }),
          expiry: field(container, 'Expiry (MM / YY)', { autocomplete: 'cc-exp', inputmode: 'numeric', placeholder: 'MM / YY' }),
          cvc: field(container, 'CVC', { autocomplete: 'cc-csc', inputmode: 'numeric', placeholder: 'CVC' }),
        };
        container.addEventListener('input', function () {
          var values = [element.inputs.number, element.inputs.expiry, element.inputs.cvc]
            .map(function (input) { return input.value.trim(); });
          emit('change', {
            elementType: 'payment',
            empty: values.every(function (v) { return !v; }),
            complete: !readCard(element.inputs).error,
            collapsed: false,
            value: { type: 'card' },
          });
        });
        parent.appendChild(container);
        setTimeout(function () { emit('ready', { elementType: 'payment' }); }, 0);
      },
      unmount: function () {
        if (container) container.remove();
        container = null;
        element.inputs = null;
      },
      destroy: function () { element.unmount(); },
    };
    function emit(event, payload) {
      (handlers[event] || []).forEach(function (handler) { handler(payload); });
    }
    return element;
  }

  // Resolves true when the customer completes the 3-D Secure check, false when they fail it.
  function threeDSecure() {
    return new Promise(function (resolve) {
      var dialog = document.createElement('dialog');
      var title = document.createElement('h2');
      var text = document.createElement('p');
      title.id = 'standin-3ds-' + ++counter;
      title.textContent = '3-D Secure';
      text.textContent = 'Test payment: complete or fail the authentication.';
      dialog.setAttribute('aria-labelledby', title.id);
      dialog.append(title, text);
      function done(success) {
        dialog.close();
        dialog.remove();
        resolve(success);
      }
      [['Complete authentication', true], ['Fail authentication', false]].forEach(function (b) {
        var button = document.createElement('button');
        button.type = 'button';
        button.textContent = b[0];
        button.addEventListener('click', function () { done(b[1]); });
        dialog.appendChild(button);
      });
      dialog.addEventListener('cancel', function (event) { event.preventDefault(); done(false); });
      document.body.appendChild(dialog);
      dialog.showModal();
    });
  }

  var AUTHENTICATION_FAILURE = {
    type: 'card_error',
    code: 'payment_intent_authentication_failure',
    message: 'We are unable to authenticate your payment method. Please choose a different payment method and try again.',
  };

  function errorOf(result) {
    var error = (result.body && result.body.error) || { message: 'Request failed (' + result.status + ')' };
    if (result.status === 402) error.type = 'card_error';
    return { error: error };
  }

  window.Stripe = function Stripe(publishableKey, options) {
    var stripe = {
      elements: function (elementsOptions) {
        var clientSecret = (elementsOptions || {}).clientSecret;
        var elements = {
          _clientSecret: clientSecret,
          _element: null,
          create: function (type, createOptions) {
            if (type !== 'payment') throw new Error('stripe-standin: only the payment element is stood in for');
            elements._element = PaymentElement(createOptions);
            return elements._element;
          },
          getElement: function (type) {
            return type === 'payment' ? elements._element : null;
          },
          submit: function () {
            var element = elements._element;
            var error = element && element.inputs && readCard(element.inputs).error;
            return Promise.resolve(error ? { error: error } : {});
          },
          update: function () {},
        };
        return elements;
      },

      confirmPayment: function (params) {
        var elements = params.elements;
        var returnUrl = (params.confirmParams || {}).return_url;
        var clientSecret = params.clientSecret || elements._clientSecret;
        var id = clientSecret.split('_secret_')[0];
        var element = elements._element;
        if (!element || !element.inputs) {
          return Promise.reject(new Error('stripe-standin: the payment element is not mounted'));
        }
        var read = readCard(element.inputs);
        if (read.error) return Promise.resolve(read);

        function succeeded(paymentIntent) {
          if (params.redirect === 'if_required') return { paymentIntent: paymentIntent };
          window.location.assign(returnUrl + (returnUrl.indexOf('?') >= 0 ? '&' : '?') +
            'payment_intent=' + encodeURIComponent(id) +
            '&payment_intent_client_secret=' + encodeURIComponent(clientSecret) +
            '&redirect_status=succeeded');
          return new Promise(function () {});
        }

        function settle(result) {
          if (!result.ok) return errorOf(result);
          var paymentIntent = result.body;
          switch (paymentIntent.status) {
            case 'succeeded':
            case 'requires_capture':
            case 'processing':
              return succeeded(paymentIntent);
            case 'requires_action':
              return threeDSecure().then(function (success) {
                return post('/v1/payment_intents/' + id + '/_authenticate?success=' + success,
                  { key: publishableKey, client_secret: clientSecret });
              }).then(function (auth) {
                if (auth.ok && auth.body.status === 'requires_payment_method') {
                  return { error: Object.assign({ payment_intent: auth.body }, AUTHENTICATION_FAILURE) };
                }
                return settle(auth);
              });
            default:
              return { error: { type: 'invalid_request_error', message: 'Unexpected PaymentIntent status ' + paymentIntent.status, payment_intent: paymentIntent } };
          }
        }

        var fields = { client_secret: clientSecret };
        for (var name in read.card) fields['card[' + name + ']'] = read.card[name];
        return post('/js.stripe.com/v3/confirm/' + id, fields).then(settle, function (e) {
          return { error: { type: 'api_connection_error', message: String(e) } };
        });
      },
    };
    return stripe;
  };
})();
