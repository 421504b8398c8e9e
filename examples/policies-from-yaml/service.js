// A Node service that takes its retry limits from the Spring application.yml next to it: the file the
// Java service binds and the plugin's resilience4j preset lints. Changing a limit is editing that
// file, not deploying code.
//
//   npm run build
//   node examples/policies-from-yaml/service.js           # one charge, then an update that is refused
//   node examples/policies-from-yaml/service.js --watch   # keeps running; edit application.yml to reload
//
// `yaml` parses the file (npm install yaml); any YAML parser that returns plain objects will do.
import { readFileSync, watch } from 'node:fs';
import { createServer } from 'node:http';
import { parse } from 'yaml';
import { createPolicyRegistry, idempotencyKey, PolicyConfigError, throwIfNotOk } from 'eslint-plugin-safe-retry/runtime';

const CONFIG = new URL('./application.yml', import.meta.url);

// Only the section the registry reads: spring.* and the rest of the file belong to the Java service.
function loadConfig(text = readFileSync(CONFIG, 'utf8')) {
  return { resilience4j: parse(text).resilience4j };
}

const registry = createPolicyRegistry(loadConfig(), {
  // What a file cannot hold: functions, by policy name.
  retry: {
    payments: { onRetry: ({ attempt, delayMs, error }) => console.log(`payments: attempt ${attempt} failed (${error.message}), next in ${delayMs} ms`) },
  },
  // Keys such as retry-exceptions name Java classes: valid for Spring, no effect here. Say so.
  onWarning: ({ path, message }) => console.warn(`config: ${path} ${message.split(':')[0]}`),
});

// A payments API that fails the first request with 503 and deduplicates by Idempotency-Key.
let requests = 0;
const charges = new Map();
const api = createServer((req, res) => {
  if (++requests === 1) return void res.writeHead(503).end();
  const key = req.headers['idempotency-key'];
  if (!charges.has(key)) charges.set(key, `ch_${charges.size + 1}`);
  res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ id: charges.get(key) }));
}).listen(0, '127.0.0.1');
await new Promise((resolve) => api.once('listening', resolve));
const paymentsUrl = `http://127.0.0.1:${api.address().port}/charges`;

const PAYMENTS_NS = '6f1c2a4e-8b3d-4c5e-9a7f-0d1e2f3a4b5c'; // any UUID, minted once for this service

async function charge(orderId, amount) {
  // The same key on every attempt: derived from the order, outside the retried function (R-RES-RE-1).
  const key = idempotencyKey.fromParts(PAYMENTS_NS, orderId, 'charge');
  return registry.retry('payments').write({ idempotencyKey: key }, async (ctx) => {
    const res = await fetch(paymentsUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'Idempotency-Key': ctx.idempotencyKey },
      body: JSON.stringify({ orderId, amount }),
      signal: ctx.signal, // aborts after timelimiter's 800 ms, or at the 5 s deadline
    });
    return throwIfNotOk(res).json();
  });
}

const { maxAttempts, initialDelayMs, multiplier, attemptTimeoutMs } = registry.retry('payments').config;
console.log(`payments: ${maxAttempts} attempts, first wait ${initialDelayMs} ms x${multiplier}, ${attemptTimeoutMs} ms per attempt, breaker ${registry.breaker('payments').state}`);
console.log('charged:', await charge('order-1001', 4200));

function reload(text) {
  try {
    registry.update(loadConfig(text));
    console.log(`reloaded: payments makes ${registry.retry('payments').config.maxAttempts} attempts`);
  } catch (error) {
    if (!(error instanceof PolicyConfigError)) throw error;
    console.error(error.message);
  }
}

// Someone raises max-attempts to 10: the whole file is refused and the running limits stay.
reload(readFileSync(CONFIG, 'utf8').replace(/max-attempts: 3\b/, 'max-attempts: 10'));
console.log(`payments still makes ${registry.retry('payments').config.maxAttempts} attempts`);

if (process.argv.includes('--watch')) {
  let timer;
  // Editors write a file in several steps; read it once they are done.
  watch(CONFIG, () => {
    clearTimeout(timer);
    timer = setTimeout(() => reload(), 100);
  });
  console.log(`watching ${CONFIG.pathname}; Ctrl-C to stop`);
} else {
  api.close();
}
