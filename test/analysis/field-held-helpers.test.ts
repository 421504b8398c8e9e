/**
 * Retry helpers reached the way services reach each other: a method helper called on an instance
 * a field of another class holds (built in the class, handed to its constructor by dependency
 * injection, Angular's `inject()`), and helpers that build the retried request from their
 * arguments (`fetchWithRetry(url, options)`), whose calls send the method they pass.
 */
import * as tsParser from '@typescript-eslint/parser';
import { Linter } from 'eslint';
import { beforeEach, describe, expect, it } from 'vitest';
import plugin from '../../src/index.js';
import { clearModuleCache } from '../../src/analysis/wrappers/index.js';
import { lint } from '../helpers/model.js';
import { lintAt } from '../helpers/lint-at.js';
import { temporaryProjects } from '../helpers/project.js';

const RETRY_SERVICE = `
export class RetryService {
  async execute<T>(fn: () => Promise<T>, maxAttempts = 3): Promise<T> {
    let lastError: unknown;
    for (let attempt = 1; attempt <= maxAttempts; attempt++) {
      try {
        return await fn();
      } catch (error) {
        lastError = error;
        await new Promise((resolve) => setTimeout(resolve, 100 * 2 ** attempt * Math.random()));
      }
    }
    throw lastError;
  }
}
`;

const lineOf = (code: string, text: string) => code.split('\n').findIndex((l) => l.includes(text)) + 1;

describe('a method helper called on an instance a field holds (another file)', () => {
  const project = temporaryProjects('safe-retry-field-held-');
  beforeEach(() => clearModuleCache());

  const service = (fields: string, ctor = '') => `import axios from 'axios';
import { RetryService } from './retry.service.js';
export class PaymentsService {
${fields}
${ctor}
  charge(amount: number) {
    return this.retry.execute(() => axios.post('https://pay.example.com/charges', { amount }));
  }
}
`;

  it.each([
    ['a constructor parameter typed with the class (dependency injection)', service('', '  constructor(private readonly retry: RetryService) {}')],
    ['a typed parameter the constructor stores', service('  private retry: RetryService;', '  constructor(retry: RetryService) { this.retry = retry; }')],
    ['a field built in the class', service('  private readonly retry = new RetryService();')],
    ["Angular's inject()", service('  private readonly retry = inject(RetryService);').replace("import axios from 'axios';", "import axios from 'axios';\nimport { inject } from '@angular/core';")],
    ['a private field (`#retry`), spaced out', service('  readonly #retry = new RetryService();').replace('this.retry.execute', 'this.#retry .execute')],
  ])('%s: the POST it repeats and the 4xx it retries are the call\'s findings', (_, code) => {
    const at = project({ 'src/retry.service.ts': RETRY_SERVICE, 'src/payments.service.ts': code });
    const line = lineOf(code, '.execute(');
    expect(lintAt(code, at('src/payments.service.ts'))).toEqual(expect.arrayContaining([`${line} no-unsafe-write-retry`, `${line} no-retry-on-client-error`]));
  });

  it('look-alikes stay silent: a field typed with an interface, a field written again, a class that is no retry helper', () => {
    const typedByInterface = `import axios from 'axios';
interface Runner { execute<T>(fn: () => Promise<T>): Promise<T> }
export class PaymentsService {
  constructor(private readonly retry: Runner) {}
  charge(amount: number) {
    return this.retry.execute(() => axios.post('https://pay.example.com/charges', { amount }));
  }
}
`;
    const rewritten = service('  private retry = new RetryService();').replace('  charge(', '  swap(other: any) { this.retry = other; }\n  charge(');
    const logger = `import axios from 'axios';
import { Timer } from './timer.js';
export class PaymentsService {
  constructor(private readonly timer: Timer) {}
  charge(amount: number) {
    return this.timer.time(() => axios.post('https://pay.example.com/charges', { amount }));
  }
}
`;
    const timer = 'export class Timer {\n  async time<T>(fn: () => Promise<T>): Promise<T> {\n    const t = Date.now();\n    try { return await fn(); } finally { console.log(Date.now() - t); }\n  }\n}\n';
    for (const code of [typedByInterface, rewritten, logger]) {
      const at = project({ 'src/retry.service.ts': RETRY_SERVICE, 'src/timer.ts': timer, 'src/payments.service.ts': code });
      expect(lintAt(code, at('src/payments.service.ts'))).toEqual([]);
    }
  });
});

describe('a method helper called on an instance a field holds (same file)', () => {
  beforeEach(() => clearModuleCache());

  const RETRIER = `import axios from 'axios';
class Retrier {
  constructor(private readonly attempts = 3) {}
  async run<T>(fn: () => Promise<T>): Promise<T> {
    for (let i = 0; ; i++) {
      try {
        return await fn();
      } catch (e) {
        if (i + 1 >= this.attempts) throw e;
        await new Promise((r) => setTimeout(r, 100 * 2 ** i * Math.random()));
      }
    }
  }
}
`;

  it("a parameter property's value is the construction's argument: `new Retrier(8)` makes 8 calls at the call", () => {
    const code = `${RETRIER}export class Mailer {
  private retrier: Retrier;
  constructor() {
    this.retrier = new Retrier(8);
  }
  send(to: string) {
    return this.retrier.run(() => axios.post('https://mail.example.com/send', { to }));
  }
}
`;
    const line = lineOf(code, 'this.retrier.run');
    const found = lint(code).map((f) => `${f.line} ${f.rule}`);
    expect(found).toEqual(expect.arrayContaining([`${line} max-retry-attempts`, `${line} no-unsafe-write-retry`]));
    // Built with the default, the same call makes 3.
    const byDefault = code.replace('new Retrier(8)', 'new Retrier()');
    expect(lint(byDefault).map((f) => `${f.line} ${f.rule}`)).not.toContain(`${line} max-retry-attempts`);
  });
});

describe('a helper that builds the retried request from its arguments', () => {
  beforeEach(() => clearModuleCache());

  const FETCH_WITH_RETRY = `const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
export async function fetchWithRetry(url: string, options: RequestInit = {}, retries = 3): Promise<Response> {
  for (let i = 0; i < retries; i++) {
    try {
      return await fetch(url, options);
    } catch (e) {
      if (i === retries - 1) throw e;
      await sleep(2 ** i * 200 * Math.random());
    }
  }
  throw new Error('unreachable');
}
`;
  const writes = (code: string) => lint(code).filter((f) => f.rule === 'no-unsafe-write-retry').map((f) => f.line);

  it('a call that passes POST repeats a POST; the helper itself, which sends what it is given, is not reported', () => {
    const code = `${FETCH_WITH_RETRY}export const createOrder = (body: unknown) =>
  fetchWithRetry('https://api.example.com/orders', { method: 'POST', body: JSON.stringify(body) }, 3);
export const getOrder = (id: string) => fetchWithRetry(\`https://api.example.com/orders/\${id}\`, {}, 3);
`;
    expect(writes(code)).toEqual([lineOf(code, 'export const createOrder') + 1]);
    // Named by the request the helper sends for this call.
    const [message] = new Linter({ configType: 'flat' }).verify(code, [{
      files: ['**/*.ts'],
      plugins: { 'safe-retry': plugin as never },
      languageOptions: { parser: tsParser as never },
      rules: { 'safe-retry/no-unsafe-write-retry': 'error' },
    }], 'file.ts');
    expect(message?.message).toMatch(/^fetchWithRetry\(\) repeats fetch\(\) \(POST\), a write/);
  });

  it('look-alikes stay silent: a POST with a key made before the retry, a GET, no options', () => {
    const code = `${FETCH_WITH_RETRY}export const createOrder = (body: unknown, key = crypto.randomUUID()) =>
  fetchWithRetry('https://api.example.com/orders', { method: 'POST', headers: { 'Idempotency-Key': key }, body: JSON.stringify(body) }, 3);
export const getOrder = (id: string) => fetchWithRetry(\`https://api.example.com/orders/\${id}\`, { method: 'GET' }, 3);
export const list = () => fetchWithRetry('https://api.example.com/orders');
`;
    expect(writes(code)).toEqual([]);
  });

  it('a write the helper\'s own code makes is reported once, in the helper, not again at each call', () => {
    const code = `const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
declare const client: { sendBatch(events: unknown[]): Promise<void> };
export class Events {
  async flush(events: unknown[]) {
    await this.sendChunk(events);
  }
  private async sendChunk(events: unknown[]) {
    for (let i = 0; i < 3; i++) {
      try {
        return await client.sendBatch(events);
      } catch {
        await sleep(2 ** i * 200 * Math.random());
      }
    }
  }
}
`;
    expect(writes(code)).toEqual([lineOf(code, 'client.sendBatch(events)')]);
  });
});
