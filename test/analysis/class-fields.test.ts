import { describe, expect, it } from 'vitest';
import { analyse, lint } from '../helpers/model.js';

/**
 * Class fields as values (issue 14, "options that travel"): `this.x` reads the field when every
 * write of it is the initialiser, a parameter property or one top-level constructor assignment; a
 * constructor option with a default is read as the class's own default.
 */
const rulesOf = (code: string) => lint(code).map((f) => f.rule).sort();
const pRetrySites = (code: string) => analyse(code).filter((s) => s.library === 'p-retry');

describe('class fields in option reading', () => {
  const caller = (ctor: string, more = '') => `
    import pRetry from 'p-retry';
    export class Caller {
      private maxRetries: number;
      constructor(params: { maxRetries?: number }) {
        ${ctor}
      }
      call() {
        return pRetry(() => fetch('/jobs'), { retries: this.maxRetries, randomize: true });
      }
      ${more}
    }
  `;

  it('reads a field set in the constructor from an option with a default (?? and ||) as the default', () => {
    expect(pRetrySites(caller('this.maxRetries = params.maxRetries ?? 6;'))[0]).toMatchObject({ attempts: 7 });
    expect(pRetrySites(caller('this.maxRetries = params.maxRetries || 9;'))[0]).toMatchObject({ attempts: 10 });
    expect(rulesOf(caller('this.maxRetries = params.maxRetries ?? 6;'))).toContain('max-retry-attempts');
  });

  it('reads a destructured constructor default and a parameter property', () => {
    const destructured = `
      import pRetry from 'p-retry';
      class Client {
        private readonly retryConfig: { retries: number };
        constructor({ retryConfig = { retries: 12, factor: 2 } }: { retryConfig?: { retries: number } } = {}) {
          this.retryConfig = retryConfig;
        }
        send() { return pRetry(() => fetch('/a'), this.retryConfig); }
      }
    `;
    expect(pRetrySites(destructured)[0]).toMatchObject({ attempts: 13, multiplier: 2 });
    const property = `
      import pRetry from 'p-retry';
      class Client {
        constructor(private readonly retries = 8) {}
        send() { return pRetry(() => fetch('/a'), { retries: this.retries }); }
      }
    `;
    expect(pRetrySites(property)[0]).toMatchObject({ attempts: 9 });
  });

  it('reads a field initialiser holding the whole options object, inside an arrow of a method too', () => {
    const code = `
      import pRetry from 'p-retry';
      class Client {
        private retryOptions = { retries: 3, minTimeout: 2000, factor: 1 };
        send() { return [1].map(() => pRetry(() => fetch('/a'), this.retryOptions)); }
      }
    `;
    expect(pRetrySites(code)[0]).toMatchObject({ attempts: 4, growth: 'constant', initialMs: 2000 });
    expect(rulesOf(code)).toEqual(expect.arrayContaining(['require-exponential-backoff', 'require-jitter']));
  });

  it('stays unknown for a field reassigned in another method (look-alike)', () => {
    const code = caller('this.maxRetries = params.maxRetries ?? 6;', 'configure(n: number) { this.maxRetries = n; }');
    expect(pRetrySites(code)[0]).toMatchObject({ attempts: 'unknown' });
    expect(rulesOf(code)).not.toContain('max-retry-attempts');
  });

  it('stays unknown for a field set from a constructor argument without a default (look-alike)', () => {
    const code = caller('this.maxRetries = params.maxRetries;');
    expect(pRetrySites(code)[0]).toMatchObject({ attempts: 'unknown' });
    expect(rulesOf(code)).not.toContain('max-retry-attempts');
  });

  it('stays unknown for a field written in a branch of the constructor, from outside, or by Object.assign (look-alikes)', () => {
    const branch = caller('this.maxRetries = 6;\nif (params.maxRetries) this.maxRetries = params.maxRetries;');
    expect(pRetrySites(branch)[0]).toMatchObject({ attempts: 'unknown' });
    const outside = `${caller('this.maxRetries = 6;')}\nconst c = new Caller({});\nc['maxRetries'] = 1;`;
    expect(pRetrySites(outside)[0]).toMatchObject({ attempts: 'unknown' });
    const incremented = caller('this.maxRetries = 6;', 'bump() { this.maxRetries++; }');
    expect(pRetrySites(incremented)[0]).toMatchObject({ attempts: 'unknown' });
    const assigned = caller('this.maxRetries = 6;\nObject.assign(this, params);');
    expect(pRetrySites(assigned)[0]).toMatchObject({ attempts: 'unknown' });
  });

  it('does not read `this` of a nested function or a static method as the instance (look-alikes)', () => {
    const nested = `
      import pRetry from 'p-retry';
      class Client {
        private retries = 9;
        send() {
          return pRetry(function (this: { retries: number }) { return fetch('/a'); }, { retries: (function (this: any) { return this.retries; })() });
        }
        static run() { return pRetry(() => fetch('/b'), { retries: this.retries }); }
      }
    `;
    for (const s of pRetrySites(nested)) expect(s.attempts).toBe('unknown');
  });
});

describe('static class members as values', () => {
  const client = (more = '') => `
    import pRetry from 'p-retry';
    export class Client {
      static readonly MAX_RETRIES = 6;
      send() { return pRetry(() => fetch('/a'), { retries: Client.MAX_RETRIES, randomize: true }); }
    }
    ${more}
  `;

  it('reads Class.NAME from its static initialiser', () => {
    expect(pRetrySites(client())[0]).toMatchObject({ attempts: 7 });
  });

  it('stays unknown when the member is written anywhere, or the class name is reassigned (look-alikes)', () => {
    expect(pRetrySites(client('Client.MAX_RETRIES = 2;'))[0]).toMatchObject({ attempts: 'unknown' });
    const shadowed = `
      import pRetry from 'p-retry';
      let Api = class { static readonly MAX = 6; };
      Api = other;
      export const send = () => pRetry(() => fetch('/a'), { retries: Api.MAX, randomize: true });
    `;
    expect(pRetrySites(shadowed)[0]).toMatchObject({ attempts: 'unknown' });
  });
});
