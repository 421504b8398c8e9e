/**
 * A verb is weak evidence of a write: a function of the project declared to return no promise
 * (not async, a written return type that is plainly no promise) is no remote operation the retry
 * waits for by its name alone. What its body sends still decides.
 */
import { describe, expect, it } from 'vitest';
import { lint } from '../helpers/model.js';

const writes = (code: string) => lint(code).filter((f) => f.rule === 'no-unsafe-write-retry').map((f) => f.text);

describe('helpers declared to return no promise', () => {
  it('a synchronous method that builds a value is no write, whatever its verb', () => {
    expect(writes(`
      import pRetry from 'p-retry';
      import { patchConfig } from './config';
      interface Options { tags?: string[] }
      export class Runner {
        patchConfigForRetry(attempt: number, config?: Partial<Options>): Partial<Options> {
          return patchConfig(config, { tags: [String(attempt)] });
        }
        createLabel(n: number): string { return 'attempt ' + n; }
        createLabels(n: number): Record<string, string[]> { return { all: [this.createLabel(n)] }; }
        run(items: number[], config?: Partial<Options>) {
          return pRetry(async (attempt) => {
            const configs = items.map(() => this.patchConfigForRetry(attempt, config));
            return Promise.all(configs.map((c) => this.createLabel(attempt) + JSON.stringify(c) + JSON.stringify(this.createLabels(attempt))));
          }, { retries: 2, randomize: true });
        }
      }
    `)).toEqual([]);
  });

  it('still trusts the verb of a function that may return a promise (an array of them included), and the body of a synchronous one', () => {
    expect(writes(`
      import pRetry from 'p-retry';
      declare const api: { createOrder(o: unknown): Promise<unknown> };
      type Order = { id: string };
      export class Shop {
        createOrder(order: Order): Promise<unknown> { return api.createOrder(order); }
        async updateStock(id: string) { return api.createOrder(id); }
        submitForm(body: string): void { fetch('/forms', { method: 'POST', body }); }
        createShipments(ids: string[]): Promise<unknown>[] { return ids.map((id) => api.createOrder(id)); }
        buy(order: Order) {
          return pRetry(() => this.createOrder(order), { retries: 2, randomize: true });
        }
        restock(id: string) {
          return pRetry(() => this.updateStock(id), { retries: 2, randomize: true });
        }
        ship(ids: string[]) {
          return pRetry(() => this.createShipments(ids), { retries: 2, randomize: true });
        }
        submit(body: string) {
          return pRetry(async () => this.submitForm(body), { retries: 2, randomize: true });
        }
      }
    `)).toEqual(['this.createOrder(order)', 'this.updateStock(id)', 'this.createShipments(ids)', 'this.submitForm(body)']);
  });
});
