import { describe, expect, it } from 'vitest';
import { analyse, lint } from '../../helpers/model.js';
import { suggestions } from './suggest.js';

describe('rxjs descriptor', () => {
  it('reads retry() with no count as unbounded immediate resubscription', () => {
    const [site] = analyse(`
      import { retry } from 'rxjs';
      export const items$ = this.http.get('/api/items').pipe(retry());
    `);
    expect(site).toMatchObject({ library: 'rxjs', attempts: Infinity, growth: 'none', jitter: false, filter: 'none', operation: "this.http.get('/api/items')" });
  });

  it('counts retry(n) as retries, and count <= 0 as no retry', () => {
    const sites = analyse(`
      import { retry } from 'rxjs/operators';
      const MAX_RETRIES = 3;
      source$.pipe(retry(MAX_RETRIES));
      source$.pipe(retry(0));
      source$.pipe(retry({ count: -1 }));
      source$.pipe(retry({ delay: 1000 }));
    `);
    expect(sites.map((s) => [s.attempts, s.attemptsAt])).toEqual([[4, 'MAX_RETRIES'], [1, '0'], [1, 'count: -1'], [Infinity, undefined]]);
  });

  it('reads a constant delay and the arithmetic of a delay function', () => {
    const sites = analyse(`
      import { retry, timer } from 'rxjs';
      a$.pipe(retry({ count: 3, delay: 1000 }));
      b$.pipe(retry({ count: 3, delay: (error, retryCount) => timer(2 ** retryCount * 1000) }));
      c$.pipe(retry({ count: 3, delay: (_e, n) => timer(Math.min(500 * 2 ** (n - 1), 2000) * (0.5 + Math.random())) }));
      d$.pipe(retry({ count: 3, delay: (_e, n) => timer(n * 500) }));
    `);
    expect(sites.map((s) => [s.growth, s.initialMs, s.jitter, s.worstCaseMs])).toEqual([
      ['constant', 1000, false, 3000],
      ['exponential', 2000, false, 2000 + 4000 + 8000],
      ['exponential', 750, true, 750 + 1500 + 3000],
      ['linear', 500, false, 500 + 1000 + 1500],
    ]);
  });

  it('treats throwing inside delay as a filter that may also end the retries', () => {
    const sites = analyse(`
      import { retry, timer, throwError } from 'rxjs';
      a$.pipe(retry({ delay: (err, n) => (err.status < 500 || n > 3 ? throwError(() => err) : timer(1000 * 2 ** n)) }));
      b$.pipe(retry({ count: 2, delay: (err) => { if (err.status === 404) throw err; return timer(500); } }));
    `);
    expect(sites.map((s) => [s.attempts, s.filter, s.growth])).toEqual([
      ['unknown', 'custom', 'exponential'],
      [3, 'custom', 'constant'],
    ]);
  });

  it("reads the deprecated retryWhen's usual notifiers: delay alone, delay with take, an index test in mergeMap", () => {
    const sites = analyse(`
      import { retryWhen, delay, take, mergeMap, concatMap } from 'rxjs/operators';
      import { throwError, timer } from 'rxjs';
      source$.pipe(retryWhen((errors) => errors.pipe(delay(1000))));
      source$.pipe(retryWhen((errors) => errors.pipe(delay(500), take(2))));
      source$.pipe(retryWhen((errors) => errors.pipe(mergeMap((e, i) => (i < 4 ? timer(1000) : throwError(() => e))))));
      source$.pipe(retryWhen((errors) => errors.pipe(concatMap((e, i) => (i >= 6 ? throwError(() => e) : timer(200))))));
    `);
    expect(sites.map((s) => [s.label, s.attempts, s.growth, s.jitter, s.filter])).toEqual([
      ['retryWhen()', Infinity, 'constant', false, 'none'],
      ['retryWhen()', 3, 'constant', false, 'none'],
      ['retryWhen()', 5, 'constant', false, 'none'],
      ['retryWhen()', 7, 'constant', false, 'none'],
    ]);
  });

  it('leaves any other notifier unknown: one that looks at the error, a wait that is no constant, another operator', () => {
    const sites = analyse(`
      import { retryWhen, delay, mergeMap, scan } from 'rxjs/operators';
      import { throwError, timer } from 'rxjs';
      source$.pipe(retryWhen((errors) => errors.pipe(mergeMap((e) => (e.status === 503 ? timer(1000) : throwError(() => e))))));
      source$.pipe(retryWhen((errors) => errors.pipe(mergeMap((e, i) => (i < 3 ? timer(2 ** i * 1000) : throwError(() => e))))));
      source$.pipe(retryWhen((errors) => errors.pipe(scan((n) => n + 1, 0), delay(1000))));
    `);
    for (const site of sites) expect(site).toMatchObject({ label: 'retryWhen()', attempts: 'unknown', growth: 'unknown', filter: 'custom' });
    expect(sites).toHaveLength(3);
  });

  it('reports each broken rule at a retryWhen around an HTTP call, besides the legacy import', () => {
    const rules = lint(`
      import { retryWhen, delay } from 'rxjs/operators';
      export class Api {
        constructor(private http: any) {}
        load() { return this.http.get('/api/items').pipe(retryWhen((errors) => errors.pipe(delay(1000)))); }
      }
    `).map((f) => f.rule).sort();
    expect(rules).toEqual(['max-retry-attempts', 'max-retry-duration', 'no-legacy-retry', 'no-retry-on-client-error', 'require-exponential-backoff', 'require-jitter']);
  });

  it('recognises CommonJS requires of rxjs/operators', () => {
    const sites = analyse(`
      const { retry: retryOp } = require('rxjs/operators');
      const operators = require('rxjs/operators');
      source$.pipe(retryOp(2));
      source$.pipe(operators.retry({ count: 1, delay: 300 }));
    `, { js: true });
    expect(sites.map((s) => [s.attempts, s.growth])).toEqual([[3, 'none'], [2, 'constant']]);
  });

  it('ignores a retry that is not rxjs', () => {
    expect(analyse(`import { retry } from './my-retry'; source$.pipe(retry());`)).toEqual([]);
  });

  describe('rules', () => {
    it('flags a bare retry() as unbounded and suggests two retries with a jittered exponential delay', () => {
      const code = `
        import { retry } from 'rxjs';
        export const users$ = http.get('/api/users').pipe(retry());
      `;
      expect(lint(code)).toContainEqual(expect.objectContaining({ rule: 'max-retry-attempts', messageId: 'unbounded', text: 'retry' }));
      expect(suggestions(code).find((s) => s.rule === 'max-retry-attempts')?.output).toContain("import { retry, timer } from 'rxjs'");
      expect(suggestions(code).find((s) => s.rule === 'max-retry-attempts')?.output)
        .toContain('pipe(retry({ count: 2, delay: (_error, retryCount) => timer(Math.random() * Math.min(2000, 500 * 2 ** (retryCount - 1))) }))');
    });

    it("rewrites a retryWhen into retry({ count, delay }) with one new import of rxjs, dropping the names it leaves unused", () => {
      const code = [
        "import { retryWhen, delay, map } from 'rxjs/operators';",
        "import { HttpClient } from '@angular/common/http';",
        'export class Api {',
        '  constructor(private http: HttpClient) {}',
        "  load() { return this.http.get('/api/items').pipe(map((x) => x), retryWhen((errors) => errors.pipe(delay(1000)))); }",
        '}',
      ].join('\n');
      const output = suggestions(code).find((s) => s.rule === 'max-retry-attempts')?.output;
      expect(output).toBe([
        "import { map } from 'rxjs/operators';",
        "import { HttpClient } from '@angular/common/http';",
        "import { retry, timer } from 'rxjs';",
        'export class Api {',
        '  constructor(private http: HttpClient) {}',
        "  load() { return this.http.get('/api/items').pipe(map((x) => x), retry({ count: 2, delay: (_error, retryCount) => timer(Math.random() * Math.min(4000, 1000 * 2 ** (retryCount - 1))) })); }",
        '}',
      ].join('\n'));
    });

    it('keeps an operator of the notifier that the file uses elsewhere, and a whole declaration the rewrite empties goes', () => {
      const code = [
        "import { HttpClient } from '@angular/common/http';",
        "import { retryWhen } from 'rxjs/operators';",
        "import { delay } from 'rxjs/operators';",
        'export class Api {',
        '  constructor(private http: HttpClient) {}',
        "  load() { return this.http.get('/api/items').pipe(retryWhen((errors) => errors.pipe(delay(1000)))); }",
        "  later() { return this.http.get('/api/later').pipe(delay(5)); }",
        '}',
      ].join('\n');
      const output = suggestions(code).find((s) => s.rule === 'max-retry-attempts')?.output ?? '';
      expect(output.split('\n').slice(0, 3)).toEqual([
        "import { HttpClient } from '@angular/common/http';",
        "import { delay } from 'rxjs/operators';",
        "import { retry, timer } from 'rxjs';",
      ]);
    });

    it('flags retry(10) on the count and the immediate resubscription', () => {
      const code = `
        import { retry, timer } from 'rxjs';
        export const users$ = http.get('/api/users').pipe(retry(10));
      `;
      const findings = lint(code);
      expect(findings).toContainEqual(expect.objectContaining({ rule: 'max-retry-attempts', text: '10' }));
      expect(findings).toContainEqual(expect.objectContaining({ rule: 'require-exponential-backoff', text: 'retry' }));
      const exp = suggestions(code).find((s) => s.rule === 'require-exponential-backoff');
      // The whole compliant set in one edit: two retries, full jitter on an exponential wait.
      expect(exp?.output).toContain('retry({ count: 2, delay: (_error, retryCount) => timer(Math.random() * Math.min(2000, 500 * 2 ** (retryCount - 1))) })');
    });

    it('flags delay: 1000 as constant and an un-jittered exponential delay function', () => {
      const code = `
        import { retry, timer } from 'rxjs';
        a$.pipe(retry({ count: 2, delay: 1000 }));
        b$.pipe(retry({ count: 2, delay: (e, n) => timer(2 ** n * 500) }));
      `;
      const findings = lint(code);
      expect(findings).toContainEqual(expect.objectContaining({ rule: 'require-exponential-backoff', text: 'delay: 1000' }));
      expect(findings).toContainEqual(expect.objectContaining({ rule: 'require-jitter', text: 'delay: (e, n) => timer(2 ** n * 500)' }));
      expect(suggestions(code).filter((s) => s.rule === 'require-jitter').map((s) => s.output))
        .toContainEqual(expect.stringContaining('b$.pipe(retry({ count: 2, delay: (_error, retryCount) => timer(Math.random() * Math.min(2000, 1000 * 2 ** (retryCount - 1))) }))'));
    });

    it('accepts a bounded, jittered exponential retry that stops on 4xx', () => {
      expect(lint(`
        import { retry, timer, throwError } from 'rxjs';
        export const users$ = http.get('/api/users').pipe(
          retry({ count: 2, delay: (err, n) => (err.status < 500 ? throwError(() => err) : timer(2 ** n * 250 * (0.5 + Math.random()))) }),
        );
      `)).toEqual([]);
    });

    it('accepts retry(0) and a namespace import with a jittered delay', () => {
      expect(lint(`
        import * as rx from 'rxjs';
        a$.pipe(rx.retry(0));
        b$.pipe(rx.retry({ count: 2, delay: (_e, n) => rx.timer(Math.random() * 500 * 2 ** n) }));
      `)).toEqual([]);
    });
  });

  describe('over rxjs ajax and fromFetch', () => {
    const rules = (code: string, rule: string) => lint(code, { js: true }).filter((f) => f.rule === rule).map((f) => f.line);

    it('ajax errors on 4xx: retry(n) over ajax.getJSON / ajax() retries them', () => {
      const code = `
        import { ajax } from 'rxjs/ajax';
        import { retry, map } from 'rxjs/operators';
        export const items$ = (q) => ajax.getJSON('/items?q=' + q).pipe(retry(5), map((r) => r.items));
        export const item$ = (id) => ajax({ url: '/items/' + id }).pipe(retry(2));
      `;
      expect(rules(code, 'no-retry-on-client-error')).toEqual([4, 5]);
      expect(rules(code, 'no-unsafe-write-retry')).toEqual([]);
    });

    it('ajax.post under retry is a retried write', () => {
      const code = `
        import { ajax } from 'rxjs/ajax';
        import { retry } from 'rxjs';
        export const order$ = (body) => ajax.post('/orders', body).pipe(retry(2));
      `;
      expect(rules(code, 'no-unsafe-write-retry')).toEqual([4]);
    });

    it('fromFetch: a 4xx is an error only where an operator before the retry throws on !res.ok', () => {
      const throwing = `
        import { retry, switchMap } from 'rxjs';
        import { fromFetch } from 'rxjs/fetch';
        export const get$ = (url) => fromFetch(url).pipe(
          switchMap((res) => { if (!res.ok) { throw new Error(res.statusText); } return res.text(); }),
          retry(1),
        );
      `;
      expect(rules(throwing, 'no-retry-on-client-error')).toEqual([6]);
      const resolving = `
        import { retry, switchMap } from 'rxjs';
        import { fromFetch } from 'rxjs/fetch';
        export const get$ = (url) => fromFetch(url).pipe(switchMap((res) => res.text()), retry(1));
      `;
      expect(rules(resolving, 'no-retry-on-client-error')).toEqual([]);
      // The throw comes after the retry: the retry never sees it.
      const after = `
        import { retry, switchMap } from 'rxjs';
        import { fromFetch } from 'rxjs/fetch';
        export const get$ = (url) => fromFetch(url).pipe(
          retry(1),
          switchMap((res) => { if (!res.ok) { throw new Error(res.statusText); } return res.text(); }),
        );
      `;
      expect(rules(after, 'no-retry-on-client-error')).toEqual([]);
      const post = `
        import { retry } from 'rxjs';
        import { fromFetch } from 'rxjs/fetch';
        export const send$ = (body) => fromFetch('/messages', { method: 'POST', body }).pipe(retry(2));
      `;
      expect(rules(post, 'no-unsafe-write-retry')).toEqual([4]);
    });
  });
});
