import { describe, expect, it } from 'vitest';
import { analyse, lint } from '../helpers/model.js';

/** The only hand-written site of a snippet. */
function one(code: string, opts: { js?: boolean } = {}) {
  const sites = analyse(code, opts).filter((s) => s.library === 'hand-written');
  expect(sites).toHaveLength(1);
  return sites[0]!;
}

const none = (code: string, opts: { js?: boolean } = {}) =>
  expect(analyse(code, opts).filter((s) => s.library === 'hand-written')).toEqual([]);

describe('hand-written retry loops', () => {
  it('reads a for loop with a catch, a last-attempt rethrow and an exponential setTimeout promise', () => {
    const site = one(`
      async function fetchWithRetry(url: string, maxRetries = 3) {
        for (let attempt = 0; attempt < maxRetries; attempt++) {
          try {
            const res = await fetch(url);
            if (!res.ok) throw new Error(\`HTTP \${res.status}\`);
            return await res.json();
          } catch (err) {
            if (attempt === maxRetries - 1) throw err;
            await new Promise((r) => setTimeout(r, 1000 * 2 ** attempt));
          }
        }
      }
    `);
    expect(site).toMatchObject({
      library: 'hand-written', label: 'for loop', attempts: 3, attemptsAt: 'maxRetries',
      growth: 'exponential', initialMs: 1000, multiplier: 2, maxMs: Infinity, jitter: false,
      // `if (!res.ok) throw` inside the try, and a catch that retries whatever it catches.
      filter: 'none', retriesEverything: true, operation: 'fetch(url)', worstCaseMs: 3000,
    });
  });

  it('counts `i <= N` from 0 as N + 1 attempts and reads a sleep-free loop as immediate retries', () => {
    const site = one(`
      async function load() {
        for (let i = 0; i <= 3; i++) {
          try { return await db.load(); } catch (e) { if (i === 3) throw e; }
        }
      }
    `);
    expect(site).toMatchObject({ attempts: 4, attemptsAt: '3', growth: 'none', worstCaseMs: 0, operation: 'db.load()' });
  });

  it('reads while (true) with a counter in the catch, a capped exponential wait with additive jitter, and a predicate filter', () => {
    const site = one(`
      const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
      export async function query(client, sql) {
        let attempt = 0;
        while (true) {
          try {
            return await client.query(sql);
          } catch (err) {
            attempt++;
            if (attempt > 5 || !isTransient(err)) throw err;
            await sleep(Math.min(100 * 2 ** attempt, 5000) + Math.random() * 100);
          }
        }
      }
    `);
    expect(site).toMatchObject({
      label: 'while loop', attempts: 6, attemptsAt: '5', growth: 'exponential', multiplier: 2,
      initialMs: 200, maxMs: 5000, jitter: true, filter: 'custom', operation: 'client.query(sql)',
      // waits after attempts 1..5, each at its upper bound: 300 + 500 + 900 + 1700 + 3300
      worstCaseMs: 6700,
    });
  });

  it('reads full jitter through util.promisify(setTimeout) and a Math.min cap', () => {
    const site = one(`
      const { promisify } = require('util');
      const wait = promisify(setTimeout);
      async function call() {
        for (let attempt = 0; attempt < 4; attempt++) {
          try { return await op(); } catch (e) {
            await wait(Math.random() * Math.min(10000, 100 * 2 ** attempt));
          }
        }
      }
    `, { js: true });
    expect(site).toMatchObject({ attempts: 4, growth: 'exponential', multiplier: 2, initialMs: 100, maxMs: 10000, jitter: true, worstCaseMs: 700 });
  });

  it('reads `delay *= 2` style state and a success flag in the loop test', () => {
    const site = one(`
      async function send() {
        let success = false, tries = 0, wait = 100;
        while (!success && tries < 6) {
          try { await transport.send(); success = true; }
          catch (e) { tries++; await sleep(wait); wait = Math.min(wait * 2, 2000); }
        }
      }
    `);
    expect(site).toMatchObject({ attempts: 6, attemptsAt: '6', growth: 'exponential', multiplier: 2, initialMs: 100, maxMs: 2000, jitter: false, worstCaseMs: 100 + 200 + 400 + 800 + 1600 });
  });

  it('reads do...while with a prefix counter in the test and a linear wait', () => {
    const site = one(`
      const MAX_RETRIES = 5;
      async function load() {
        let attempt = 0;
        let result;
        do {
          try { result = await api.load(); break; }
          catch (e) { await delay(250 * (attempt + 1)); }
        } while (++attempt < MAX_RETRIES);
        return result;
      }
    `);
    expect(site).toMatchObject({ label: 'do...while loop', attempts: 5, attemptsAt: 'MAX_RETRIES', growth: 'linear', initialMs: 250, jitter: false, operation: 'api.load()' });
  });

  it('reads `while (retries--)` with timers/promises as a decreasing counter bounded at its start', () => {
    const site = one(`
      import { setTimeout as sleep } from 'node:timers/promises';
      export async function connect() {
        let retries = 10;
        while (retries--) {
          try { await db.connect(); break; }
          catch (e) { await sleep(2000); }
        }
      }
    `);
    expect(site).toMatchObject({ attempts: 10, attemptsAt: '10', growth: 'constant', initialMs: 2000, jitter: false, worstCaseMs: 18000 });
  });

  it('reads a parameter default as the start of a decreasing counter and `delay *= 2` parameters', () => {
    const site = one(`
      async function withRetry(fn, retries = 5, delay = 1000) {
        while (true) {
          try { return await fn(); }
          catch (err) {
            if (retries <= 0) throw err;
            retries--;
            await new Promise((resolve) => setTimeout(resolve, delay));
            delay *= 2;
          }
        }
      }
    `);
    expect(site).toMatchObject({ attempts: 6, attemptsAt: '5', growth: 'exponential', initialMs: 1000, multiplier: 2, jitter: false, operation: 'fn()' });
  });

  it('reads linear waits (`base * attempt`, `delay += step`)', () => {
    const [a, b] = analyse(`
      async function one() {
        for (let attempt = 1; attempt <= 3; attempt++) {
          try { return await op(); } catch (e) { await sleep(1000 * attempt); }
        }
      }
      async function two() {
        let d = 1000;
        for (let attempt = 0; attempt < 3; attempt++) {
          try { return await op(); } catch (e) { await sleep(d); d += 500; }
        }
      }
    `);
    expect(a).toMatchObject({ attempts: 3, growth: 'linear', initialMs: 1000, worstCaseMs: 3000 });
    expect(b).toMatchObject({ attempts: 3, growth: 'linear', initialMs: 1000, worstCaseMs: 2500 });
  });

  it('reads a delay table indexed by the attempt and a local helper that sleeps', () => {
    const [a, b] = analyse(`
      const DELAYS = [100, 200, 400, 800];
      async function table() {
        for (let attempt = 0; attempt <= DELAYS.length; attempt++) {
          try { return await op(); } catch (e) {
            if (attempt === DELAYS.length) throw e;
            await sleep(DELAYS[attempt]);
          }
        }
      }
      function backoff(n) { return new Promise((r) => setTimeout(r, Math.min(2 ** n * 100, 3000))); }
      async function helper() {
        for (let i = 0; i < 5; i++) {
          try { return await op(); } catch { await backoff(i); }
        }
      }
    `);
    expect(a).toMatchObject({ attempts: 5, growth: 'exponential', multiplier: 2, initialMs: 100, worstCaseMs: 1500 });
    expect(b).toMatchObject({ attempts: 5, growth: 'exponential', maxMs: 3000, worstCaseMs: 100 + 200 + 400 + 800 });
  });

  it('keeps the growth of a schedule whose scale is unknown, and leaves its numbers unknown', () => {
    const site = one(`
      export async function retrying(fn, base) {
        for (let i = 0; i < 3; i++) {
          try { return await fn(); } catch { await sleep(base * 2 ** i); }
        }
      }
    `);
    expect(site).toMatchObject({ attempts: 3, growth: 'exponential', multiplier: 2, initialMs: 'unknown', jitter: false, worstCaseMs: 'unknown' });
  });

  it('reads an unbounded for (;;) and an unknown bound', () => {
    const [a, b] = analyse(`
      async function forever() {
        for (;;) {
          try { await connect(); return; } catch { await sleep(5000); }
        }
      }
      async function configured(opts) {
        for (let i = 1; ; i++) {
          try { return await op(); } catch (e) {
            if (!isRetryable(e) || i >= opts.maxAttempts) throw e;
            await sleep(1000);
          }
        }
      }
    `);
    expect(a).toMatchObject({ attempts: Infinity, growth: 'constant', worstCaseMs: Infinity });
    expect(b).toMatchObject({ attempts: 'unknown', filter: 'custom', worstCaseMs: 'unknown' });
  });

  it('does not guess the bound of a deadline loop', () => {
    const site = one(`
      async function untilDeadline() {
        const deadline = Date.now() + 10_000;
        while (Date.now() < deadline) {
          try { return await op(); } catch (e) { await sleep(500); }
        }
      }
    `);
    expect(site).toMatchObject({ attempts: 'unknown', growth: 'constant' });
  });

  it('reads a result declared with a type assertion as the response, not as a filter', () => {
    const site = one(`
      export async function notify(client, text: string) {
        let tries = 0;
        let done = false;
        while (tries < 3 && !done) {
          try {
            const channel = (await client.channels.fetch('42')) as TextChannel | null;
            if (!channel) return false;
            await fetch('/log', { method: 'POST', body: text });
            done = true;
          } catch (error) {
            console.error(error);
          }
          tries++;
        }
        return done;
      }
    `);
    expect(site).toMatchObject({ attempts: 3, filter: 'none' });
  });

  it('tells a filter that retries only refused requests (429) from one that also retries failures without a status', () => {
    const code = (test: string) => `
      export async function ask(openai, messages) {
        for (let attempt = 1; attempt <= 3; attempt++) {
          try {
            return await openai.chat.completions.create({ model: 'm', messages });
          } catch (err) {
            if (${test}) await sleep(5000 * attempt);
            else throw err;
          }
        }
      }
    `;
    expect(one(code('err.status === 429 && attempt <= 2'))).toMatchObject({ filter: 'statuses', clientErrors: [], refusedOnly: true });
    // A network error has no status: `status !== 400` is true for it, so it is retried too.
    expect(one(code('err.status !== 400')).refusedOnly).toBeUndefined();
    expect(one(code('err.status === 429 || err.status === 503')).refusedOnly).toBeUndefined();
    // What else a network error carries is not known: not read as refused only.
    expect(one(code('err.status === 429 || err.code === "ECONNRESET"')).refusedOnly).toBeUndefined();
  });

  it('reads a catch that rethrows 4xx as a status filter', () => {
    const site = one(`
      import axios from 'axios';
      export async function getUser(id) {
        let lastError;
        for (let i = 0; i < 3; i++) {
          try {
            return (await axios.get(\`/users/\${id}\`)).data;
          } catch (e) {
            lastError = e;
            if (e.response && e.response.status < 500 && e.response.status !== 429) throw e;
            await sleep(300 * 2 ** i + Math.random() * 300);
          }
        }
        throw lastError;
      }
    `);
    expect(site).toMatchObject({ attempts: 3, filter: 'statuses', clientErrors: [], growth: 'exponential', jitter: true, operation: 'axios.get(`/users/${id}`)' });
  });

  it('reads response loops: every non-ok response, an explicit status list, and 4xx in it', () => {
    const [all, list, bad] = analyse(`
      async function a(url) {
        for (let i = 0; i < 5; i++) {
          const res = await fetch(url);
          if (res.ok) return res;
          await sleep(1000);
        }
        throw new Error('failed');
      }
      async function b(url) {
        let delay = 200;
        while (true) {
          const res = await fetch(url);
          if (res.status !== 429 && res.status < 500) return res;
          await sleep(delay);
          delay *= 2;
        }
      }
      async function c(url) {
        for (let attempt = 1; attempt <= 4; attempt++) {
          const res = await fetch(url);
          if ([408, 429, 500, 502, 503, 504, 400, 404].includes(res.status)) { await sleep(500 * 2 ** attempt); continue; }
          return res;
        }
      }
    `);
    expect(all).toMatchObject({ attempts: 5, growth: 'constant', filter: 'none', retriesEverything: true, operation: 'fetch(url)' });
    expect(list).toMatchObject({ attempts: Infinity, growth: 'exponential', filter: 'statuses', clientErrors: [], retriesEverything: false });
    expect(bad).toMatchObject({ attempts: 4, filter: 'statuses', clientErrors: ['400', '404'], growth: 'exponential', initialMs: 1000 });
  });

  it('summarises a filter that retries every 4xx but one', () => {
    const site = one(`
      async function g(url) {
        for (let attempt = 1; attempt <= 3; attempt++) {
          const res = await fetch(url);
          if (!res.ok && res.status !== 404) { await sleep(500 * 2 ** attempt); continue; }
          return res;
        }
      }
    `);
    expect(site).toMatchObject({ filter: 'statuses', clientErrors: ['4xx other than 404'] });
  });

  it('treats an unseen helper named like a sleep as a wait, and an unseen awaited call after a failure as an unknown wait', () => {
    const [named, opaque] = analyse(`
      import { pause } from './util';
      async function a() {
        for (let i = 0; i < 3; i++) {
          try { return await op(); } catch (e) { await pause(1000); }
        }
      }
      async function b() {
        for (let i = 0; i < 3; i++) {
          try { return await op(); } catch (e) { await onFailure(e, i); }
        }
      }
    `);
    expect(named).toMatchObject({ growth: 'constant', initialMs: 1000 });
    expect(opaque).toMatchObject({ attempts: 3, growth: 'unknown', jitter: 'unknown' });
  });

  it('recognises compiled calls `(0, exports.sleep)(ms)` and Bluebird Promise.delay', () => {
    const [a, b] = analyse(`
      const Promise = require('bluebird');
      exports.withRetries = async (fn) => {
        for (let attempts = 0; attempts < 3; attempts++) {
          try { return await fn(); } catch (e) { await (0, exports.sleep)(400 + Math.random() * 200); }
        }
      };
      function r(n) {
        return op().catch((e) => n > 0 ? Promise.delay(200).then(() => r(n - 1)) : Promise.reject(e));
      }
      r(3);
    `, { js: true });
    expect(a).toMatchObject({ attempts: 3, growth: 'constant', jitter: true, initialMs: 400, worstCaseMs: 1200 });
    expect(b).toMatchObject({ label: 'recursive r()', attempts: 4, attemptsAt: '3', growth: 'constant', initialMs: 200 });
  });
});

describe('hand-written retry recursion', () => {
  it('reads `.catch` recursion with `retries - 1` and `delay * 2` passed on', () => {
    const site = one(`
      function withRetry(fn, retries = 3, delay = 500) {
        return fn().catch((err) => retries > 0 ? wait(delay).then(() => withRetry(fn, retries - 1, delay * 2)) : Promise.reject(err));
      }
    `, { js: true });
    expect(site).toMatchObject({
      label: 'recursive withRetry()', attempts: 4, attemptsAt: '3', growth: 'exponential', initialMs: 500,
      multiplier: 2, jitter: false, filter: 'none', operation: 'fn()', worstCaseMs: 500 + 1000 + 2000,
    });
  });

  it('reads async recursion from a catch block with `n + 1`', () => {
    const site = one(`
      async function fetchData(n = 0) {
        try { return await api.get('/data'); }
        catch (e) {
          if (n >= 3) throw e;
          await sleep(100 * 2 ** n);
          return fetchData(n + 1);
        }
      }
    `);
    expect(site).toMatchObject({ attempts: 4, attemptsAt: '3', growth: 'exponential', initialMs: 100, operation: "api.get('/data')" });
  });

  it('reads an inner closure started from outside with setTimeout callbacks', () => {
    const site = one(`
      function retry(fn, retries = 3) {
        return new Promise((resolve, reject) => {
          const attempt = (n) => {
            fn().then(resolve).catch((err) => {
              if (n >= retries) return reject(err);
              setTimeout(() => attempt(n + 1), 2 ** n * 100);
            });
          };
          attempt(1);
        });
      }
    `, { js: true });
    expect(site).toMatchObject({ label: 'recursive attempt()', attempts: 3, attemptsAt: 'retries', growth: 'exponential', initialMs: 200, operation: 'fn()' });
  });

  it('reads callback style with an error-first callback and leaves an unknown start unknown', () => {
    const site = one(`
      function fetchWithRetry(url, retries, cb) {
        request(url, (err, res) => {
          if (err && retries > 0) return setTimeout(() => fetchWithRetry(url, retries - 1, cb), 1000);
          cb(err, res);
        });
      }
    `, { js: true });
    expect(site).toMatchObject({ attempts: 'unknown', growth: 'constant', initialMs: 1000, filter: 'none', retriesEverything: false });
    expect(site.operation).toMatch(/^request\(url,/);
  });

  it('reads recursion on a failed response and on a 5xx inside .then', () => {
    const [a, b] = analyse(`
      async function get(url, retries = 2) {
        const res = await fetch(url);
        if (!res.ok && retries > 0) {
          await new Promise((r) => setTimeout(r, 1000));
          return get(url, retries - 1);
        }
        return res;
      }
      function getJson(url, tries = 3) {
        return fetch(url).then((res) => {
          if (res.status >= 500 && tries > 1) return sleep(300).then(() => getJson(url, tries - 1));
          return res.json();
        });
      }
    `);
    expect(a).toMatchObject({ attempts: 3, growth: 'constant', filter: 'none', retriesEverything: true, operation: 'fetch(url)' });
    expect(b).toMatchObject({ attempts: 3, growth: 'constant', filter: 'statuses', clientErrors: [], operation: 'fetch(url)' });
  });

  it('reads method recursion through this', () => {
    const site = one(`
      class Db {
        async connect(attempt = 1) {
          try { await this.client.connect(); }
          catch (e) {
            if (attempt >= 5) throw e;
            await this.sleep(1000 * attempt);
            return this.connect(attempt + 1);
          }
        }
      }
    `);
    expect(site).toMatchObject({ label: 'recursive connect()', attempts: 5, attemptsAt: '5', growth: 'linear', operation: 'this.client.connect()' });
  });

  it('reads recursion without a counter as unbounded', () => {
    const site = one(`
      function connect() {
        return db.connect().catch(() => delay(1000).then(connect));
      }
    `, { js: true });
    expect(site).toMatchObject({ attempts: Infinity, growth: 'constant', initialMs: 1000 });
  });
});

describe('hand-written look-alikes that are not retries', () => {
  it('ignores loops over items, for...of and for...in, and failover across servers', () => {
    none(`
      async function saveAll(items, urls, servers) {
        for (const item of items) { try { await save(item); } catch {} }
        for (const key in items) { try { return await save(items[key]); } catch (e) { await sleep(10); } }
        for (let i = 0; i < items.length; i++) { try { await save(items[i]); } catch (e) { console.log(e); } }
        for (let i = 0; i < urls.length; i++) { try { return await fetch(urls[i]); } catch (e) { await sleep(100); } }
        for (let i = 0; i < servers.length; i++) {
          const server = servers[i];
          try { return await connect(server); } catch (e) { await sleep(100); }
        }
      }
    `);
  });

  it('ignores loops that repeat on success (workers, polling) and directory walks', () => {
    none(`
      async function worker() {
        while (true) {
          try { const job = await queue.pop(); await handle(job); }
          catch (e) { log(e); await sleep(1000); }
        }
      }
      async function poll(id) {
        while (true) {
          const job = await getJob(id);
          if (job.status === 'done') return job;
          await sleep(1000);
        }
      }
      async function stable(poll) {
        let last;
        while (true) {
          try {
            const r = await poll();
            if (!r.ok) break;
            if (r.value === last) return r.value;
            last = r.value;
          } catch (e) {}
          await sleep(50);
        }
      }
      function findPackage(dir) {
        while (dir) {
          const file = path.join(dir, 'package.json');
          try { return JSON.parse(fs.readFileSync(file, 'utf8')); } catch {}
          const next = path.dirname(dir);
          if (next === dir) break;
          dir = next;
        }
      }
      async function repeat() {
        for (let i = 0; i < 3; i++) { try { await ping(); } catch {} }
      }
    `);
  });

  it('ignores pagination, tree walks, recursive descent and periodic jobs', () => {
    none(`
      async function fetchAll(url, acc = []) {
        const res = await fetch(url);
        const data = await res.json();
        acc.push(...data.items);
        if (data.next) return fetchAll(data.next, acc);
        return acc;
      }
      function walk(node) { try { visit(node); } catch (e) { log(e); } node.children.forEach((c) => walk(c)); }
      function find(start, rel) {
        try { fs.statSync(path.join(start, rel)); return start; }
        catch (err) { if (path.dirname(start) !== start) return find(path.dirname(start), rel); }
      }
      function tick() {
        run().then(() => setTimeout(tick, 1000), (e) => { log(e); setTimeout(tick, 1000); });
      }
      function poll() { check().then((s) => { if (!s.done) setTimeout(poll, 1000); }); }
      function fib(n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }
      function parseWith(content, parsers, index = 0) {
        return postcss().process(content, { parser: parsers[index] }).catch((err) => {
          index++;
          if (index === parsers.length) throw err;
          return parseWith(content, parsers, index);
        });
      }
      function tryNode(nodes, index, done) {
        if (index === nodes.length) return done(new Error('all failed'));
        const node = nodes[index];
        getInfo(node, (err) => { if (err) tryNode(nodes, index + 1, done); else done(); });
      }
    `, { js: true });
  });

  it('does not throw on odd but valid code', () => {
    const code = `
      async function odd(x) {
        label: for (let i = 0; i < 3; i++) { try { continue label; } catch { break label; } }
        while (x) { try { y(); break; } catch ({ message }) { switch (message) { case 'a': break; default: continue; } } }
        do { try { return; } catch { } } while (f());
        for (let i = 0n; i < 3n; i++) { try { await op(); break; } catch { await sleep(2n ** i); } }
        for (let d = 1; d < 1e9; d *= 2) { try { await op(); break; } catch { await sleep(d); } }
        for (let i = 0; i < 3; i = i) { try { return await op(); } catch { await sleep(i / 0); } }
        while (await op().catch(() => true)) { await sleep(-1); }
      }
      function r(...a) { try { return g(); } catch { return r(...a); } }
      const o = { m() { try { return this.m(); } catch { return this.m(); } } };
      async function self(a = self) { try { await a(); } catch (e) { return self(a); } }
      const loop = async (n = 0) => { try { await op(); } catch { return n < 1e6 ? loop(n + 1e-9) : null; } };
    `;
    process.env['SAFE_RETRY_STRICT_ANALYSIS'] = '1';
    try {
      expect(() => analyse(code, { js: true })).not.toThrow();
      expect(() => analyse(code)).not.toThrow();
    } finally {
      delete process.env['SAFE_RETRY_STRICT_ANALYSIS'];
    }
  });
});

describe('hand-written retries under the rules', () => {
  it('reports an unbounded loop, a constant sleep, and a 4xx retry', () => {
    const findings = lint(`
      async function get(url) {
        while (true) {
          const res = await fetch(url);
          if (res.ok) return res;
          await sleep(1000);
        }
      }
    `);
    expect(findings).toContainEqual(expect.objectContaining({ rule: 'max-retry-attempts', text: 'true' }));
    expect(findings).toContainEqual(expect.objectContaining({ rule: 'require-exponential-backoff', messageId: 'constantDelay', text: '1000' }));
    expect(findings).toContainEqual(expect.objectContaining({ rule: 'no-retry-on-client-error', messageId: 'retriesEverything', text: 'res.ok' }));
  });

  it('reports too many attempts on the bound and exponential backoff without jitter on the sleep argument', () => {
    const findings = lint(`
      const MAX_RETRIES = 10;
      async function load() {
        for (let attempt = 0; attempt < MAX_RETRIES; attempt++) {
          try { return await db.load(); }
          catch (e) { await sleep(100 * 2 ** attempt); }
        }
      }
    `);
    expect(findings).toContainEqual(expect.objectContaining({ rule: 'max-retry-attempts', messageId: 'tooManyAttempts', text: 'MAX_RETRIES' }));
    expect(findings).toContainEqual(expect.objectContaining({ rule: 'require-jitter', text: '100 * 2 ** attempt' }));
    expect(findings).toContainEqual(expect.objectContaining({ rule: 'max-retry-duration', text: 'attempt < MAX_RETRIES' }));
  });

  it('reports immediate retries and status lists with 4xx', () => {
    const findings = lint(`
      async function a() {
        for (let i = 0; i < 3; i++) { try { return await db.load(); } catch (e) {} }
      }
      async function b(url) {
        for (let attempt = 1; attempt <= 3; attempt++) {
          const res = await fetch(url);
          if (res.status === 404 || res.status >= 500) { await sleep(300 * 2 ** attempt * Math.random()); continue; }
          return res;
        }
      }
    `);
    expect(findings).toContainEqual(expect.objectContaining({ rule: 'require-exponential-backoff', messageId: 'noDelay', text: 'i < 3' }));
    expect(findings).toContainEqual(expect.objectContaining({ rule: 'no-retry-on-client-error', messageId: 'retriesClientError', text: 'res.status === 404 || res.status >= 500' }));
  });

  it('reports an axios call retried on every error', () => {
    const findings = lint(`
      import axios from 'axios';
      export async function getUser(id) {
        for (let i = 0; i < 3; i++) {
          try { return (await axios.get('/users/' + id)).data; }
          catch (e) { await sleep(300 * 2 ** i * (0.5 + Math.random())); }
        }
      }
    `);
    expect(findings.map((f) => f.rule)).toContain('no-retry-on-client-error');
  });

  it('finds nothing to report in a bounded, jittered, filtered loop', () => {
    const findings = lint(`
      const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
      export async function getJson(url: string) {
        for (let attempt = 1; attempt <= 3; attempt++) {
          const res = await fetch(url);
          if (res.ok) return res.json();
          if (res.status < 500 && res.status !== 429) throw new Error(\`HTTP \${res.status}\`);
          if (attempt === 3) break;
          await sleep(Math.random() * 500 * 2 ** (attempt - 1));
        }
        throw new Error('gave up');
      }
    `);
    expect(findings.filter((f) => ['max-retry-attempts', 'require-exponential-backoff', 'require-jitter', 'no-retry-on-client-error', 'max-retry-duration'].includes(f.rule))).toEqual([]);
  });

  it('finds nothing to report in a good recursive retry', () => {
    const findings = lint(`
      function withRetry(fn, retries = 2, delay = 500) {
        return fn().catch((err) => {
          if (retries <= 0 || !isRetryable(err)) throw err;
          const wait = delay * (0.5 + Math.random());
          return new Promise((r) => setTimeout(r, wait)).then(() => withRetry(fn, retries - 1, delay * 2));
        });
      }
    `, { js: true });
    expect(findings.filter((f) => ['max-retry-attempts', 'require-exponential-backoff', 'require-jitter', 'no-retry-on-client-error', 'max-retry-duration'].includes(f.rule))).toEqual([]);
  });
});

describe('hand-written: progress is not success', () => {
  it('does not take a stream-reading loop bounded by an accumulator for a retry', () => {
    expect(analyse(`
      async function read(reader, max) {
        let inMemory = 0;
        let rejected = false;
        while (inMemory < max && !rejected) {
          try {
            const { value, done } = await reader.read();
            if (done) return;
            inMemory += value.byteLength;
          } catch (error) {
            cancel(error);
          }
        }
      }
    `, { js: true })).toEqual([]);
  });
});
