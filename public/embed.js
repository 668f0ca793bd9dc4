/*! Boxoffice embed.js, version 1 (see Boxoffice.version). Guide: docs/webframe.md.
 *
 *   <div id="tickets"></div>
 *   <script src="https://BOXOFFICE/embed.js"></script>
 *   <script>
 *     Boxoffice.mount('#tickets', { frameUrl: '…/frame', sessionCode: '…' });
 *   </script>
 *
 * Options: frameUrl (required), sessionCode, clientId, campaignId, merchantId, productId,
 * date ('YYYY-MM-DD'), timeslot ('HH:MM'), quantities ({productId: n} or 'id:n,…'), returnUrl, locale, identityToken (string, or a function returning one or a Promise of one),
 * title, attribution ({utm_source, …, ref}; by default the page URL's own). Returns { iframe, setLocale, sendIdentityToken, destroy }. Every frame message is
 * re-dispatched on the container as a bubbling CustomEvent named after its type, detail = the
 * message; preventDefault() on "boxoffice:redirect" stops the top-window navigation.
 * The URL and behaviour of version 1 stay compatible; a breaking change gets a new version.
 */
(function () {
  'use strict';
  var P = 'boxoffice:';
  // Parameters the payment return adds to the partner page; never part of a returnUrl.
  var RET = ['payment_id', 'boxoffice_checkout'];
  // The page URL's attribution parameters, handed to the frame, which keeps them with the
  // checkout (docs/webframe.md, "Attribution").
  var ATTR = ['utm_source', 'utm_medium', 'utm_campaign', 'utm_term', 'utm_content', 'ref'];

  function httpUrl(u) {
    try {
      var url = new URL(u, location.href);
      return /^https?:$/.test(url.protocol) ? url : null;
    } catch (e) {
      return null;
    }
  }

  function mount(target, o) {
    o = o || {};
    var el = typeof target === 'string' ? document.querySelector(target) : target;
    if (!el) throw new Error('Boxoffice.mount: container not found');
    var base = o.frameUrl && httpUrl(o.frameUrl);
    if (!base) throw new Error('Boxoffice.mount: frameUrl must be an http(s) URL');
    var origin = base.origin;

    // The page URL without our return parameters: the default returnUrl.
    var page = new URL(location.href);
    var q = page.searchParams;
    var checkout = q.get('boxoffice_checkout');
    var payment = q.get('payment_id');
    RET.forEach(function (k) { q.delete(k); });
    var src = new URL(base.href);
    src.hash = '';
    var s = src.searchParams;
    if (checkout && payment) {
      // Back from payment: show the return screen, and drop the parameters from the address
      // bar so a reload does not show it again.
      src.pathname = src.pathname.replace(/\/$/, '') + '/return';
      s.set('checkout_id', checkout);
      s.set('payment_id', payment);
      try { history.replaceState(history.state, '', page.href); } catch (e) { /* sandboxed */ }
    }
    function add(k, v) { if (v) s.set(k, String(v)); }
    add('session_code', o.sessionCode);
    add('client_id', o.clientId);
    add('campaign_id', o.campaignId);
    if (!(checkout && payment)) {
      add('merchant_id', o.merchantId);
      add('product_id', o.productId);
      // A choice on the product (docs/webframe.md, "Deep links to a choice").
      add('date', o.date);
      add('timeslot', o.timeslot);
      var n = o.quantities;
      add('quantities', n && typeof n === 'object' ?
        Object.keys(n).map(function (id) { return id + ':' + n[id]; }).join(',') : n);
    }
    add('return_url', o.returnUrl || page.href);
    // The first screen is already in the host's language; setLocale switches it later.
    add('locale', o.locale);
    var attribution = o.attribution || {};
    ATTR.forEach(function (k) {
      var v = attribution[k] || q.get(k);
      if (v) add(k, String(v).slice(0, 200));
    });

    var f = document.createElement('iframe');
    f.title = o.title || 'Tickets';
    f.setAttribute('allow', 'payment');
    // Tells the frame our origin (document.referrer) and nothing more of this page's URL.
    f.referrerPolicy = 'origin';
    f.style.cssText = 'width:100%;border:0;display:block;height:600px';
    f.src = src.href;

    var ready = false;
    var token = o.identityToken;

    function post(m) {
      if (f.contentWindow) f.contentWindow.postMessage(m, origin);
    }
    function sendLocale() {
      if (ready && o.locale) post({ type: P + 'locale', locale: o.locale });
    }
    function sendToken() {
      if (!ready || !token) return;
      var t = token;
      token = typeof t === 'function' ? t : null; // a function is asked again on each ready
      Promise.resolve(typeof t === 'function' ? t() : t).then(function (v) {
        if (typeof v === 'string' && v) post({ type: P + 'identity-token', token: v });
      }).catch(function (e) {
        console.error('Boxoffice: identityToken failed', e);
      });
    }

    function onMessage(e) {
      var d = e.data;
      if (e.origin !== origin || e.source !== f.contentWindow || !d || typeof d !== 'object' ||
          typeof d.type !== 'string' || d.type.indexOf(P) !== 0) return;
      var type = d.type;
      if (type === P + 'redirect') {
        var to = httpUrl(d.url);
        if (!to) return;
        var go = el.dispatchEvent(new CustomEvent(type, { detail: d, bubbles: true, cancelable: true }));
        if (go) {
          try { window.top.location.assign(to.href); } catch (x) { location.assign(to.href); }
        }
        return;
      }
      if (type === P + 'resize') {
        var h = Math.ceil(Number(d.height));
        if (h > 0 && h < 1e6) f.style.height = h + 'px';
      } else if (type === P + 'ready') {
        ready = true;
        sendLocale();
        sendToken();
      }
      el.dispatchEvent(new CustomEvent(type, { detail: d, bubbles: true }));
    }

    window.addEventListener('message', onMessage);
    el.appendChild(f);

    return {
      iframe: f,
      // Both queue until the frame is ready; the locale is also re-sent on a later ready.
      setLocale: function (l) { o.locale = l; sendLocale(); },
      sendIdentityToken: function (t) { token = t; sendToken(); },
      destroy: function () {
        window.removeEventListener('message', onMessage);
        if (f.parentNode) f.parentNode.removeChild(f);
      },
    };
  }

  window.Boxoffice = { version: '1', mount: mount };
})();
