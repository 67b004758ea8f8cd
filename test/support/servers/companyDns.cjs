// Preloaded into code-server (NODE_OPTIONS=--require) by tests that need the company's host names to
// resolve on this machine, as a company's DNS would: every name under the reserved `.test` domain is
// 127.0.0.1. Without it, such names exist only for the test proxy, which resolves them itself.
'use strict';
const dns = require('node:dns');

const lookup = dns.lookup;
dns.lookup = function lookupWithCompanyHosts(hostname, options, callback) {
  if (typeof hostname !== 'string' || !hostname.toLowerCase().endsWith('.test')) {
    return lookup.apply(this, arguments);
  }
  const done = typeof options === 'function' ? options : callback;
  const all = typeof options === 'object' && options !== null && options.all;
  if (all) process.nextTick(done, null, [{ address: '127.0.0.1', family: 4 }]);
  else process.nextTick(done, null, '127.0.0.1', 4);
  return {};
};
