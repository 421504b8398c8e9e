import { describe, expect, it } from 'vitest';
import { analyse, lint } from '../helpers/model.js';

/** The only hand-written site of a snippet. */
function one(code: string, opts: { js?: boolean } = {}) {
  const sites = analyse(code, opts).filter((s) => s.library === 'hand-written');
  expect(sites).toHaveLength(1);
  return sites[0]!;
}

const rulesOf = (findings: { rule: string }[]) => findings.map((f) => f.rule).sort();

describe('hand-written retries: success is any 2xx the code waits for', () => {
  it('reads a recursion that retries every status but 202 as a retry of failures', () => {
    const site = one(`
      export async function assign(id: string, retryCount = 0): Promise<boolean> {
        const res = await fetch('https://api.example.com/shards', { method: 'PATCH', body: id });
        if (res.status !== 202) {
          if (retryCount < 3) {
            await new Promise((r) => setTimeout(r, 500 * 2 ** retryCount));
            return assign(id, retryCount + 1);
          }
          return false;
        }
        return true;
      }
    `);
    expect(site).toMatchObject({ attempts: 4, growth: 'exponential', retriesEverything: true, operation: "fetch('https://api.example.com/shards', { method: 'PATCH', body: id })" });
  });

  it('reads a loop that waits for a 204 the same way', () => {
    const site = one(`
      async function remove(url: string) {
        for (let i = 0; i < 3; i++) {
          const res = await fetch(url, { method: 'DELETE' });
          if (res.status === 204) return;
          await sleep(200 * 2 ** i);
        }
      }
    `);
    expect(site).toMatchObject({ attempts: 3, growth: 'exponential' });
  });

  it('still ignores a loop that goes on whatever the status (polling)', () => {
    const sites = analyse(`
      async function watch(url: string) {
        for (let i = 0; i < 3; i++) {
          const res = await fetch(url);
          if (res.status === 500) return;
          await sleep(1000);
        }
      }
    `).filter((s) => s.library === 'hand-written');
    expect(sites).toEqual([]);
  });
});

describe('hand-written retries: a recursive call is the retry, not an operation', () => {
  it('reports the write once, at the request, not again at the self-call', () => {
    const findings = lint(`
      export async function update(id: string, retryCount = 0): Promise<boolean> {
        try {
          const res = await fetch('https://api.example.com/x', { method: 'PATCH', body: id });
          return res.ok;
        } catch (error) {
          if (retryCount < 2) {
            await new Promise((r) => setTimeout(r, 500 * 2 ** retryCount * Math.random()));
            return update(id, retryCount + 1);
          }
          return false;
        }
      }
    `);
    const writes = findings.filter((f) => f.rule === 'no-unsafe-write-retry');
    expect(writes).toHaveLength(1);
    expect(writes[0]!.text).toContain('fetch(');
  });

  it('does not take a method calling itself for a write by its verb', () => {
    const findings = lint(`
      class Api {
        async createUser(body: unknown, attempt = 0): Promise<unknown> {
          try {
            return await this.http.get('/users/defaults');
          } catch (e) {
            if (attempt >= 2) throw e;
            await sleep(300 * 2 ** attempt * Math.random());
            return this.createUser(body, attempt + 1);
          }
        }
      }
    `);
    expect(findings.filter((f) => f.rule === 'no-unsafe-write-retry')).toEqual([]);
  });
});

describe('hand-written recursion: waits before the operation, and options passed on', () => {
  it('reads a sleep at the start of the function as the wait before the next attempt', () => {
    const site = one(`
      export default async function call(endpoint, data) {
        let attempts = 0;
        return attempt();
        async function attempt() {
          try {
            if (attempts) await new Promise((resolve) => setTimeout(resolve, 500));
            attempts++;
            const response = await fetch('/api/' + endpoint, { method: 'POST', body: data });
            return await response.json();
          } catch (error) {
            if (attempts < 3) return attempt();
            throw error;
          }
        }
      }
    `, { js: true });
    expect(site).toMatchObject({ attempts: 3, growth: 'constant', initialMs: 500 });
  });

  it('follows a destructured options parameter the self-call passes on, and a delay chained before the call', () => {
    const site = one(`
      module.exports = async function complete(messages, { model = 'm', delayMs = 0 } = {}) {
        return new Promise((resolve) => setTimeout(resolve, delayMs)).then(() => client.chat.completions.create({ model, messages }).catch((err) => {
          if ([502, 429].includes(err.status)) return complete(messages, { model, delayMs: (delayMs || 2000) * 2 });
          throw err;
        }));
      };
    `, { js: true });
    expect(site).toMatchObject({ attempts: Infinity, growth: 'exponential', initialMs: 4000, multiplier: 2, jitter: false });
  });

  it('leaves an options object it cannot read unknown', () => {
    const site = one(`
      async function complete(messages, { delayMs = 0, ...rest } = {}) {
        await new Promise((resolve) => setTimeout(resolve, delayMs));
        try { return await client.chat.completions.create({ messages }); }
        catch (err) { if (err.status === 502) return complete(messages, { ...rest, delayMs: delayMs * 2 }); throw err; }
      }
    `, { js: true });
    expect(site.growth).toBe('unknown');
  });
});

describe('hand-written rules on the shapes above', () => {
  it('reports a PATCH retried on every non-202 status with every rule it breaks', () => {
    const findings = lint(`
      export async function assign(id: string, retryCount = 0): Promise<boolean> {
        const res = await fetch('https://api.example.com/shards', { method: 'PATCH', body: id });
        if (res.status !== 202) {
          if (retryCount < 5) {
            await new Promise((r) => setTimeout(r, 1000 * 2 ** retryCount));
            return assign(id, retryCount + 1);
          }
          return false;
        }
        return true;
      }
    `);
    expect(rulesOf(findings)).toEqual(['max-retry-attempts', 'max-retry-duration', 'no-retry-on-client-error', 'no-unsafe-write-retry', 'require-jitter']);
  });
});

describe('hand-written filters: how the code ends a 4xx', () => {
  it('reads an if/else chain in the try that returns on 2xx and on 4xx and throws the rest into the catch', () => {
    const site = one(`
      import axios from 'axios';
      async function perform(options, retries = 3) {
        for (let n = 1; n <= retries + 1; n++) {
          try {
            const response = await axios({ ...options, validateStatus: (s) => s > 0 });
            if (response.status >= 200 && response.status < 300) {
              return response.data;
            } else if (response.status < 500) {
              return Promise.reject(new Error('client error ' + response.status));
            } else {
              throw new Error('server error ' + response.status);
            }
          } catch (error) {
            await sleep(100);
          }
        }
      }
    `);
    expect(site).toMatchObject({ filter: 'statuses', clientErrors: [] });
    const findings = lint(`
      import axios from 'axios';
      async function perform(options, retries = 3) {
        for (let n = 1; n <= retries + 1; n++) {
          try {
            const response = await axios(options);
            if (response.status >= 200 && response.status < 300) return response.data;
            else if (response.status < 500) return Promise.reject(new Error('client error'));
            else throw new Error('server error');
          } catch (error) {
            await sleep(100 * 2 ** n * Math.random());
          }
        }
      }
    `);
    expect(findings.filter((f) => f.rule === 'no-retry-on-client-error')).toEqual([]);
  });

  it('still reports a chain whose 4xx branch throws into the catch', () => {
    const site = one(`
      async function perform(url) {
        for (let n = 0; n < 3; n++) {
          try {
            const response = await fetch(url);
            if (response.ok) return response;
            else if (response.status < 500) throw new Error('client error');
            else throw new Error('server error');
          } catch (error) {
            await sleep(100);
          }
        }
      }
    `);
    expect(site).toMatchObject({ filter: 'none', retriesEverything: true });
  });

  it('reads a switch on the error in the catch: cases that rethrow are not retried', () => {
    const site = one(`
      async function send(params, maxRetries = 3) {
        let attempts = 0;
        while (attempts <= maxRetries) {
          try {
            return await connection.request(params);
          } catch (error) {
            switch (error.status) {
              case 400:
              case 404:
                throw error;
              case 503:
                if (attempts < maxRetries) { attempts++; continue; }
                throw error;
              default:
                throw error;
            }
          }
        }
      }
    `);
    expect(site).toMatchObject({ filter: 'statuses', clientErrors: [] });
  });

  it('reports a switch whose default goes on to another attempt for the 4xx it does not name', () => {
    const site = one(`
      async function send(params) {
        for (let attempts = 0; attempts < 3; attempts++) {
          try {
            return await connection.request(params);
          } catch (error) {
            switch (error.status) {
              case 400:
                throw error;
              default:
                await sleep(100 * 2 ** attempts);
            }
          }
        }
      }
    `);
    expect(site.filter).toBe('statuses');
    expect(site.clientErrors.length).toBeGreaterThan(0);
  });

  it('leaves a switch on an error name it cannot relate to a status unknown', () => {
    const findings = lint(`
      import axios from 'axios';
      async function send(params) {
        let attempts = 0;
        while (attempts < 3) {
          try {
            return await axios.get(params.url);
          } catch (error) {
            switch (error.name) {
              case 'ResponseError': throw error;
              case 'ConnectionError': attempts++; await sleep(100 * 2 ** attempts * Math.random()); continue;
              default: throw error;
            }
          }
        }
      }
    `);
    expect(findings.filter((f) => f.rule === 'no-retry-on-client-error')).toEqual([]);
  });
});

describe('hand-written retries around discord.js receivers known by their declared type', () => {
  it('reports a message sent again after any error, through a type-only import', () => {
    const findings = lint(`
      import type { TextChannel } from 'discord.js';
      export async function post(channel: TextChannel, content: string) {
        let nTry = 0;
        while (nTry < 3) {
          try {
            return await channel.send({ content });
          } catch (err) {
            console.error(err);
          }
          nTry++;
        }
        return null;
      }
    `);
    expect(findings).toContainEqual(expect.objectContaining({ rule: 'no-unsafe-write-retry', text: 'channel.send({ content })' }));
    expect(findings).toContainEqual(expect.objectContaining({ rule: 'no-retry-on-client-error', messageId: 'unfilteredHttp' }));
  });

  it('reads a Client manager\'s fetch as a GET that rejects on 4xx, and a Client member of no manager as nothing', () => {
    const findings = lint(`
      import { type Client } from 'discord.js';
      export async function reset(client: Client, id: string) {
        let nTry = 0;
        while (nTry < 5) {
          try {
            const channel = await client.channels.fetch(id);
            await client.login(id);
            return channel;
          } catch (err) {
            nTry++;
          }
        }
      }
    `);
    expect(findings.filter((f) => f.rule === 'no-retry-on-client-error').map((f) => f.messageId)).toEqual(['unfilteredHttp']);
    expect(findings.filter((f) => f.rule === 'no-unsafe-write-retry')).toEqual([]);
  });

  it('reads a nullable annotation and an interaction reply, and leaves an untyped receiver alone', () => {
    const findings = lint(`
      import { ChatInputCommandInteraction } from 'discord.js';
      export async function answer(interaction: ChatInputCommandInteraction, socket: { send(x: string): Promise<void> }) {
        for (let i = 0; i < 3; i++) {
          try {
            const reply: ChatInputCommandInteraction | null = interaction;
            await reply!.editReply({ content: 'ok' });
            await socket.send('done');
            return;
          } catch (e) { /* again */ }
        }
      }
    `);
    const writes = findings.filter((f) => f.rule === 'no-unsafe-write-retry').map((f) => f.text);
    expect(writes).toEqual(["reply!.editReply({ content: 'ok' })"]);
  });
});

describe('hand-written recursion through Bluebird chains', () => {
  it('reads the counter passed on as the resolved value of Promise.resolve(n + 1).delay(ms).then(f)', () => {
    const code = `
      const Promise = require('bluebird');
      module.exports = (opAsync) => (...args) => {
        const tryOp = (counter = 0) => opAsync(...args).catch((err) => {
          if (counter > 5) throw err;
          return Promise.resolve(counter + 1).delay(250).then(tryOp);
        });
        return tryOp();
      };
    `;
    const site = one(code, { js: true });
    expect(site).toMatchObject({ label: 'recursive tryOp()', attempts: 7, growth: 'constant', initialMs: 250, jitter: false, filter: 'none' });
    expect(rulesOf(lint(code, { js: true }))).toEqual(expect.arrayContaining(['max-retry-attempts', 'require-exponential-backoff', 'require-jitter']));
  });

  it("reads Bluebird's filtered catch(predicate, handler) as a retry with a filter it does not read", () => {
    const code = `
      const Promise = require('bluebird');
      const isServerError = (e) => e.httpStatusCode === 500;
      module.exports = (opAsync) => (...args) => {
        const tryOp = (counter = 0) => opAsync(...args).catch(isServerError, (err) => {
          if (counter > 5) throw err;
          return Promise.resolve(counter + 1).delay(250).then(tryOp);
        });
        return tryOp();
      };
    `;
    const site = one(code, { js: true });
    expect(site).toMatchObject({ attempts: 7, filter: 'custom' });
    expect(rulesOf(lint(code, { js: true }))).not.toContain('no-retry-on-client-error');
  });

  it('a chain that resolves to something else than the counter passes nothing on (unbounded stays unbounded)', () => {
    const code = `
      const Promise = require('bluebird');
      module.exports = (opAsync) => {
        const tryOp = (counter = 0) => opAsync().catch(() => Promise.resolve('again').then(tryOp));
        return tryOp();
      };
    `;
    expect(analyse(code, { js: true }).filter((s) => s.library === 'hand-written').every((s) => s.attempts !== 7)).toBe(true);
  });
});

describe('hand-written waits through a method of the same class', () => {
  it('reads `await this.timer(s)` whose body is a setTimeout promise, with a field the loop never changes (constant)', () => {
    const code = `
      class ApiCall {
        private readonly retryIntervalSeconds: number;
        private readonly numRetries: number;
        constructor(config: { retryIntervalSeconds: number; numRetries: number }) {
          this.retryIntervalSeconds = config.retryIntervalSeconds;
          this.numRetries = config.numRetries;
        }
        async perform(url: string) {
          for (let n = 1; n <= this.numRetries + 1; n++) {
            try {
              return await fetch(url);
            } catch (error) {
              if (n > this.numRetries) throw error;
              await this.timer(this.retryIntervalSeconds);
            }
          }
        }
        async timer(seconds: number): Promise<void> {
          return new Promise((resolve) => setTimeout(resolve, seconds * 1000));
        }
      }
    `;
    expect(one(code)).toMatchObject({ growth: 'constant', jitter: false });
    expect(rulesOf(lint(code))).toEqual(expect.arrayContaining(['require-exponential-backoff', 'require-jitter']));
  });

  it('reads a growing argument through the method as exponential (fine with jitter)', () => {
    const code = `
      class Client {
        async send(url: string) {
          for (let attempt = 0; attempt < 4; attempt++) {
            try {
              return await fetch(url);
            } catch (error) {
              if (attempt === 3) throw error;
              await this.pause(2 ** attempt * 200 * (0.5 + Math.random()));
            }
          }
        }
        pause(ms: number) {
          return new Promise((resolve) => setTimeout(resolve, ms));
        }
      }
    `;
    expect(one(code)).toMatchObject({ growth: 'exponential', jitter: true, attempts: 4 });
    const rules = rulesOf(lint(code));
    expect(rules).not.toContain('require-exponential-backoff');
    expect(rules).not.toContain('require-jitter');
  });

  it('a method that is no sleep leaves the wait unknown (no backoff finding)', () => {
    const code = `
      class Client {
        async send(url: string) {
          for (let attempt = 0; attempt < 4; attempt++) {
            try {
              return await fetch(url);
            } catch (error) {
              if (attempt === 3) throw error;
              await this.refreshToken(attempt);
            }
          }
        }
        async refreshToken(n: number) { this.token = await getToken(n); }
      }
    `;
    const rules = rulesOf(lint(code));
    expect(rules).not.toContain('require-exponential-backoff');
    expect(rules).not.toContain('require-jitter');
  });
});

describe('hand-written retries: the per-attempt timeout the retried code sets', () => {
  /** A retry loop whose attempt sets `timer` before a fetch with `signal`. */
  const loop = (prelude: string, timer: string, signal = 'controller.signal') => `
    ${prelude}
    export async function load(url: string) {
      for (let i = 0; i < 3; i++) {
        const controller = new AbortController();
        ${timer}
        try {
          return await fetch(url, { signal: ${signal} });
        } catch (e) {
          await new Promise((r) => setTimeout(r, 200 * 2 ** i * Math.random()));
        }
      }
      throw new Error('unreachable');
    }
  `;

  it('counts a global timer that aborts the controller (also through globalThis) and AbortSignal.timeout', () => {
    expect(one(loop('', 'setTimeout(() => controller.abort(), 15000);'))).toMatchObject({ attemptTimeoutMs: 15000 });
    expect(one(loop('', 'globalThis.setTimeout(() => controller.abort(), 15000);'))).toMatchObject({ attemptTimeoutMs: 15000 });
    expect(one(loop('', '', 'AbortSignal.timeout(15000)'))).toMatchObject({ attemptTimeoutMs: 15000 });
  });

  it('does not count a setTimeout or AbortSignal the file declares itself (look-alikes)', () => {
    const localTimer = 'function setTimeout(fn: () => void, ms: number) { return ms; }';
    expect(one(loop(localTimer, 'setTimeout(() => controller.abort(), 15000);'))).toMatchObject({ attemptTimeoutMs: undefined });
    const localSignal = 'const AbortSignal = { timeout: (ms: number) => undefined };';
    expect(one(loop(localSignal, '', 'AbortSignal.timeout(15000)'))).toMatchObject({ attemptTimeoutMs: undefined });
  });
});
