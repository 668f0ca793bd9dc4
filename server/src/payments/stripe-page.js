// The Stripe payment page's script (server/src/payments/page.rs): mounts Stripe's Payment
// Element into #payment-element and confirms the PaymentIntent with it. Stripe.js follows
// 3-D Secure and bank redirects, then sends the customer back to the page (data-return-url),
// which applies the outcome. A failure Stripe.js reports at once (a declined card) is shown
// above the form, and the customer tries again on the same PaymentIntent.
(function () {
  "use strict";
  var form = document.getElementById("payment-form");
  if (!form || typeof window.Stripe !== "function") {
    return;
  }
  var data = form.dataset;
  var button = document.getElementById("pay");
  var message = document.getElementById("payment-message");
  var label = button.textContent;
  var stripe = window.Stripe(data.publishableKey, { locale: data.locale });
  var elements = stripe.elements({ clientSecret: data.clientSecret, locale: data.locale });
  var payment = elements.create("payment");
  payment.on("ready", function () {
    button.disabled = false;
  });
  payment.mount("#payment-element");

  form.addEventListener("submit", function (event) {
    event.preventDefault();
    button.disabled = true;
    button.textContent = data.paying;
    message.textContent = "";
    stripe
      .confirmPayment({ elements: elements, confirmParams: { return_url: data.returnUrl } })
      .then(function (result) {
        // Reached only when Stripe.js did not redirect: the attempt failed.
        if (result && result.error) {
          // An alert is announced; focus moves to it too, so a keyboard user starts over
          // from the message rather than from a button that just failed.
          // A refused card says what to do next; Stripe's own field checks speak for themselves.
          var prefix = result.error.type === "card_error" ? data.failed + " " : "";
          message.textContent = prefix + (result.error.message || "");
          message.setAttribute("tabindex", "-1");
          message.focus();
        }
        button.disabled = false;
        button.textContent = label;
      });
  });
})();
