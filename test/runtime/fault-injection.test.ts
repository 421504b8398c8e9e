import { afterEach, beforeEach, describe, it, expect } from 'vitest';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import { createRetryPolicy, idempotencyKey, throwIfNotOk } from '../../src/runtime/index.js';

/**
 * A payment provider that honours Idempotency-Key, and whose network fails at the worst moment:
 * the first charge is committed, then the connection drops before the response is written.
 * "A timeout means the client stopped waiting, not that the server did nothing."
 */
interface Provider {
  url: string;
  charges: { id: string; amount: number; key: string | undefined }[];
  close(): Promise<void>;
}

async function startProvider(): Promise<Provider> {
  const charges: Provider['charges'] = [];
  const byKey = new Map<string, string>();
  let dropped = false;
  const server: Server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (body += chunk));
    req.on('end', () => {
      const header = req.headers['idempotency-key'];
      const key = typeof header === 'string' ? header : undefined;
      const stored = key === undefined ? undefined : byKey.get(key);
      if (stored !== undefined) {
        res.writeHead(200, { 'content-type': 'application/json', 'idempotent-replayed': 'true' });
        res.end(stored);
        return;
      }
      const { amount } = JSON.parse(body) as { amount: number };
      const charge = { id: `ch_${charges.length + 1}`, amount, key };
      charges.push(charge);
      const payload = JSON.stringify(charge);
      if (key !== undefined) byKey.set(key, payload);
      if (!dropped) {
        dropped = true;
        req.socket.destroy();
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(payload);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/charges`,
    charges,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const PAYMENTS = '0b6e3f3c-5c0e-4f43-9d3a-6a2f4a7c2b11';
let provider: Provider;

beforeEach(async () => {
  provider = await startProvider();
});
afterEach(async () => {
  await provider.close();
});

describe('fault injection: the response to a committed payment is lost', () => {
  it('with the engine and an idempotency key, the customer is charged once', async () => {
    const policy = createRetryPolicy({ initialDelayMs: 5, maxDelayMs: 20 });
    const key = idempotencyKey.fromParts(PAYMENTS, 'order-1001', 'charge');
    const response = await policy.write({ idempotencyKey: key }, async ({ idempotencyKey: k, signal }) =>
      throwIfNotOk(
        await fetch(provider.url, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'Idempotency-Key': k },
          body: JSON.stringify({ amount: 4200 }),
          signal,
        }),
      ),
    );
    expect(response.headers.get('idempotent-replayed')).toBe('true');
    expect(await response.json()).toEqual({ id: 'ch_1', amount: 4200, key });
    expect(provider.charges).toHaveLength(1);
  });

  it('with a plain retry loop and no key, the customer is charged twice', async () => {
    let response: Response | undefined;
    for (let attempt = 1; attempt <= 3 && response === undefined; attempt++) {
      try {
        response = await fetch(provider.url, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ amount: 4200 }),
        });
      } catch {
        await new Promise((r) => setTimeout(r, 5));
      }
    }
    expect(response?.ok).toBe(true);
    expect(provider.charges).toHaveLength(2);
  });

  it('with the engine but a key minted inside the retried function, the customer is charged twice too', async () => {
    const policy = createRetryPolicy({ initialDelayMs: 5, maxDelayMs: 20 });
    await policy.write({ idempotencyKey: 'unused-outer-key' }, async ({ signal }) =>
      throwIfNotOk(
        await fetch(provider.url, {
          method: 'POST',
          // The bug the plugin flags: a new key per attempt is a new operation per attempt.
          headers: { 'content-type': 'application/json', 'Idempotency-Key': randomUUID() },
          body: JSON.stringify({ amount: 4200 }),
          signal,
        }),
      ),
    );
    expect(provider.charges).toHaveLength(2);
  });
});
