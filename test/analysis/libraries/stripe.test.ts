import { describe, expect, it } from 'vitest';
import { analyse, lint } from '../../helpers/model.js';
import { rawSites, suggestions } from './suggest.js';

describe('stripe descriptor', () => {
  it('reads the code default of 2 retries (v18+; the README says 1): 3 calls, 0.5 s doubling, capped at 5 s (fine)', () => {
    const code = `
      import Stripe from 'stripe';
      const stripe = new Stripe(process.env.STRIPE_SECRET_KEY!, { apiVersion: '2024-06-20' });
    `;
    const sites = analyse(code);
    expect(sites).toHaveLength(1);
    expect(sites[0]).toMatchObject({
      library: 'stripe', label: 'new Stripe()', attempts: 3, growth: 'exponential', initialMs: 500, multiplier: 2, maxMs: 5000,
      jitter: true, filter: 'library-default', clientLevel: true, worstCaseMs: 1500, attemptsAt: undefined,
    });
    expect(lint(code)).toEqual([]);
  });

  it('accepts the CommonJS call form and maxNetworkRetries counts retries (fine)', () => {
    const code = `
      const stripe = require('stripe')(process.env.STRIPE_KEY, { maxNetworkRetries: 1, timeout: 1000 });
    `;
    const [site] = analyse(code, { js: true });
    expect(site).toMatchObject({ label: "require('stripe')()", attempts: 2, attemptsAt: 'maxNetworkRetries: 1', attemptTimeoutMs: 1000, worstCaseMs: 500 + 2000 });
    expect(lint(code, { js: true })).toEqual([]);
  });

  it('flags many client retries and suggests maxNetworkRetries in Stripe terms (bad)', () => {
    const code = `
      import StripeSDK from 'stripe';
      const options = { maxNetworkRetries: 10 } as const;
      export const stripe = StripeSDK(key, options);
    `;
    const [site] = analyse(code);
    expect(site).toMatchObject({ label: 'StripeSDK()', attempts: 11 });
    const findings = lint(code);
    expect(findings).toContainEqual(expect.objectContaining({ rule: 'max-retry-attempts', text: 'maxNetworkRetries: 10' }));
    expect(findings).toContainEqual(expect.objectContaining({ rule: 'max-retry-duration' }));
  });

  it('finds per-request maxNetworkRetries through a client field (bad)', () => {
    const code = `
      import Stripe from 'stripe';
      export class Billing {
        private stripe = new Stripe(key);
        charge(amount: number, orderId: string) {
          return this.stripe.paymentIntents.create(
            { amount, currency: 'eur' },
            { idempotencyKey: orderId, maxNetworkRetries: 7 },
          );
        }
      }
    `;
    const sites = analyse(code);
    expect(sites).toHaveLength(2);
    expect(sites[1]).toMatchObject({ label: 'this.stripe.paymentIntents.create()', attempts: 8, clientLevel: false, attemptsAt: 'maxNetworkRetries: 7' });
    expect(lint(code)).toContainEqual(expect.objectContaining({ rule: 'max-retry-attempts', text: 'maxNetworkRetries: 7' }));
  });

  it('marks a client without maxNetworkRetries as implicit; a per-request option is explicit', () => {
    const { sites } = rawSites(`
      import Stripe from 'stripe';
      const stripe = new Stripe(key);
      stripe.charges.create({ amount }, { maxNetworkRetries: 1 });
    `);
    expect(sites.map((s) => (s as { implicit?: boolean }).implicit ?? false)).toEqual([true, false]);
  });

  it('treats the legacy string API-version argument as no options', () => {
    const [site] = analyse(`const stripe = require('stripe')(key, '2020-08-27');`, { js: true });
    expect(site).toMatchObject({ attempts: 3 });
  });

  it('ignores requests without retry options and look-alikes', () => {
    expect(analyse(`
      import Stripe from 'stripe';
      const stripe = new Stripe(key, { maxNetworkRetries: 2 });
      stripe.customers.create({ email }, { idempotencyKey: id });
    `)).toHaveLength(1);
    expect(analyse(`function Stripe(k, o) {} Stripe(key, { maxNetworkRetries: 50 });`)).toEqual([]);
  });

  it('suggests maxNetworkRetries: 2 for 3 calls, on the client and per request', () => {
    // The second call takes the client's setting (a client whose every call overrides it would not be judged for it).
    const applied = suggestions(`import Stripe from 'stripe';\nconst stripe = new Stripe(key, { maxNetworkRetries: 9 });\nstripe.refunds.create({ charge }, { maxNetworkRetries: 6 });\nstripe.customers.retrieve(id);`);
    const outputs = applied.filter((s) => s.rule === 'max-retry-attempts').map((s) => s.output);
    expect(outputs).toHaveLength(2);
    expect(outputs[0]).toContain('new Stripe(key, { maxNetworkRetries: 2 })');
    expect(outputs[1]).toContain('{ charge }, { maxNetworkRetries: 2 })');
  });

  it('knows a client handed in by its declared type, imported the Deno way', () => {
    for (const source of ['stripe', 'npm:stripe@14.21.0', 'https://esm.sh/stripe@14.21.0?target=deno']) {
      const code = `
        import Stripe from '${source}';
        export async function pay(stripe: Stripe, amount: number) {
          for (let attempt = 0; attempt < 3; attempt++) {
            try {
              const pending = stripe.paymentIntents.create({ amount, currency: 'usd' });
              return await Promise.race([pending, timeout(15000)]);
            } catch (e) {
              await new Promise((r) => setTimeout(r, Math.random() * 500 * 2 ** attempt));
            }
          }
        }
      `;
      // The SDK's own key is new on every call, so each pass of the loop is a new payment.
      expect(lint(code).filter((f) => f.rule === 'no-unsafe-write-retry')).toEqual([expect.objectContaining({ messageId: 'unsafeAutoKey', text: expect.stringContaining('stripe.paymentIntents.create(') })]);
    }
    // Typed as something else, or not typed: not known to be Stripe.
    expect(lint(`import Stripe from 'stripe';\nexport async function pay(s: Other) { for (let i = 0; i < 3; i++) { try { const p = s.paymentIntents.create({}); return await p; } catch {} } }`)
      .filter((f) => f.rule === 'no-unsafe-write-retry')).toEqual([]);
  });
});
