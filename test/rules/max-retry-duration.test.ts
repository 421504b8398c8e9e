import rule from '../../src/rules/max-retry-duration.js';
import { formatDuration } from '../../src/analysis/fix-plan.js';
import { run } from '../helpers/rule-tester.js';
import { twoPathLoop } from '../helpers/loops.js';
import { describe, expect, it } from 'vitest';

run('max-retry-duration', rule, {
  valid: [
    // Unbounded but for the caller's abort signal, which may carry a deadline: the time is unknown.
    "const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));\nexport async function load(url: string, signal: AbortSignal) {\n  while (true) {\n    if (signal.aborted) throw new Error('aborted');\n    try { return await fetch(url, { signal }); } catch { await sleep(1000 * Math.random()); }\n  }\n}",
    // 500 + 1000 = 1.5 s
    `import pRetry from 'p-retry'; await pRetry(run, { retries: 2, minTimeout: 500 });`,
    // randomize doubles the bound: 2 × (1000 + 2000) = 6 s, but a 4 s maxRetryTime caps it.
    `import pRetry from 'p-retry'; await pRetry(run, { retries: 2, randomize: true, maxRetryTime: 4000 });`,
    `import pRetry from 'p-retry'; await pRetry(run, { retries: 4, minTimeout: cfg.min });`,
    { code: `import pRetry from 'p-retry'; await pRetry(run, { retries: 3 });`, options: [{ maxMs: 8000 }] },
    // A module of the team's own whose folder is named by a word: not p-retry, so unknown.
    `import pRetry from './retry/index.js'; await pRetry(run, { retries: 6 });`,
    // Each attempt of the outer loop runs the inner one: 2 s + 2 x (2 x 500 ms) = 4 s, within budget.
    "const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));\nasync function send(msg: string) {\n  for (let i = 0; i < 3; i++) {\n    try { return await mailer.sendMail(msg); } catch (e) { if (i === 2) throw e; await sleep(500); }\n  }\n}\nexport async function notify(msg: string) {\n  for (let a = 1; a <= 2; a++) {\n    try { await send(msg); return; } catch (e) { if (a === 1) await sleep(2000); }\n  }\n}",
    // A per-attempt timeout bounds each attempt already (2 s + 2 x 1 s).
    "const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));\nasync function send(msg: string) {\n  for (let i = 0; i < 3; i++) {\n    try { return await mailer.sendMail(msg); } catch (e) { if (i === 2) throw e; await sleep(2000); }\n  }\n}\nexport async function notify(msg: string) {\n  for (let a = 1; a <= 2; a++) {\n    try { await send(msg, AbortSignal.timeout(1000)); return; } catch (e) { if (a === 1) await sleep(2000); }\n  }\n}",
    // The retried request sets no timeout of its own: 0.4 s + 0.8 s of waits.
    "import axios from 'axios';\nconst sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));\nexport async function load(url: string) {\n  for (let attempt = 1; attempt <= 3; attempt++) {\n    try {\n      const options = { url, method: 'get' };\n      return await axios(options);\n    } catch (e) {\n      if (attempt === 3) throw e;\n      await sleep(200 * 2 ** attempt * Math.random());\n    }\n  }\n}",
    // A config handed to another call first may get another timeout there: unknown.
    "import axios from 'axios';\nconst sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));\nexport async function load(url: string) {\n  for (let attempt = 1; attempt <= 3; attempt++) {\n    try {\n      const options = { url, timeout: 10000 };\n      prepare(options);\n      return await axios(options);\n    } catch (e) {\n      if (attempt === 3) throw e;\n      await sleep(200 * 2 ** attempt * Math.random());\n    }\n  }\n}",
    // The server sets the wait on a 429 (not known), the other failures wait 200 ms: at least 0.8 s, within budget.
    "const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));\nexport async function load(url: string) {\n  for (let attempt = 1; attempt <= 5; attempt++) {\n    try {\n      return await client.get(url);\n    } catch (err: any) {\n      if (attempt === 5) throw err;\n      let wait = 200;\n      if (err.response?.status === 429) {\n        wait = Number(err.response.headers['retry-after']) * 1000;\n      }\n      await sleep(wait);\n    }\n  }\n}",
    // Only a 429 goes on to another attempt: the waits of the failures whose wait is known are never taken.
    "const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));\nexport async function load(url: string) {\n  for (let attempt = 1; attempt <= 5; attempt++) {\n    try {\n      return await client.get(url);\n    } catch (err: any) {\n      if (attempt === 5 || err.response?.status !== 429) throw err;\n      let wait = 1000 * 2 ** attempt;\n      if (err.response?.status === 429) {\n        wait = Number(err.response.headers['retry-after']) * 1000;\n      }\n      await sleep(wait);\n    }\n  }\n}",
  ],
  invalid: [
    {
      // No bound at all: said as such, not as a duration of "forever".
      code: "import { retry } from 'rxjs';\nexport const items$ = source$.pipe(retry({ delay: 1000 }));",
      errors: [{
        messageId: 'endless', line: 2, data: { label: 'retry()', schedule: '', noFix: '' },
        suggestions: [{ messageId: 'fitBudget', output: "import { retry, timer } from 'rxjs';\nexport const items$ = source$.pipe(retry({ delay: (_error, retryCount) => timer(Math.random() * Math.min(4000, 1000 * 2 ** (retryCount - 1))), count: 2 }));" }],
      }],
    },
    {
      // The server sets the wait on a 429 (not known), but a network error or a 5xx waits 2, 4, 8, 16 s:
      // at least 30 s, whatever the 429s wait.
      code: "const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));\nexport async function load(url: string) {\n  for (let attempt = 1; attempt <= 5; attempt++) {\n    try {\n      return await client.get(url);\n    } catch (err: any) {\n      if (attempt === 5) throw err;\n      let wait = 1000 * 2 ** attempt;\n      if (err.response?.status === 429) {\n        wait = Number(err.response.headers['retry-after']) * 1000;\n      }\n      await sleep(wait);\n    }\n  }\n}",
      errors: [{ messageId: 'knownWaitsTooLong', line: 3, column: 25, data: { label: 'for loop', duration: '30 s', attempts: '5', waits: '2 s, 4 s, 8 s, 16 s', timeouts: '', max: '5 s' } }],
    },
    {
      // The retried axios request's own config timeout is each attempt's: 3 x 10 s plus the waits.
      code: "import axios from 'axios';\nconst sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));\nexport async function load(url: string) {\n  for (let attempt = 1; attempt <= 3; attempt++) {\n    try {\n      const options = { url, timeout: 10000 };\n      return await axios(options);\n    } catch (e) {\n      if (attempt === 3) throw e;\n      await sleep(200 * 2 ** attempt * Math.random());\n    }\n  }\n}",
      errors: [{ messageId: 'needsQueue', line: 4 }],
    },
    {
      // pRetry waits up to 1 s twice, but each attempt sleeps through got's own default waits
      // (1.1 s + 2.1 s): 2 s + 3 x 3.2 s. Turning off got's retries fits the budget.
      code: "import pRetry from 'p-retry';\nimport got from 'got';\nexport const items = () => pRetry(() => got('https://api.example.com/items').json(), { retries: 2, minTimeout: 500, randomize: true, maxTimeout: 1000 });",
      errors: [{
        messageId: 'tooLong', line: 3, data: { label: 'pRetry()', duration: '11.6 s', max: '5 s', schedule: " (waits 1 s, 1 s, plus 3 x 3.2 s of got()'s own waits)", noFix: '' },
        suggestions: [{ messageId: 'dropInner', data: { max: '5 s', inner: 'got()', label: 'pRetry()', edit: 'limit: 0', waits: '1 s, 1 s' }, output: "import pRetry from 'p-retry';\nimport got from 'got';\nexport const items = () => pRetry(() => got('https://api.example.com/items', { retry: { limit: 0 } }).json(), { retries: 2, minTimeout: 500, randomize: true, maxTimeout: 1000 });" }],
      }],
    },
    {
      // The outer loop waits 2 s once, but each of its 2 attempts runs send()'s own 3 tries with
      // 2 s waits: 2 s + 2 x 4 s = 10 s. Only dropping a layer fits, so no option edit is offered.
      code: "const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));\nasync function send(msg: string) {\n  for (let i = 0; i < 3; i++) {\n    try { return await mailer.sendMail(msg); } catch (e) { if (i === 2) throw e; await sleep(2000); }\n  }\n}\nexport async function notify(msg: string) {\n  for (let a = 1; a <= 2; a++) {\n    try { await send(msg); return; } catch (e) { if (a === 1) await sleep(2000); }\n  }\n}",
      errors: [{ messageId: 'tooLong', line: 8, data: { label: 'for loop', duration: '10 s', max: '5 s', schedule: " (waits 2 s, plus 2 x 4 s of send()'s own waits)", noFix: '; no edit of these options alone fits the budget safely' } }],
    },
    {
      // A per-attempt timeout the loop sets itself (AbortSignal.timeout) counts: 3 x 15 s plus the waits.
      code: twoPathLoop('delay = Math.min(delay * 2, 4000)', ', { signal: AbortSignal.timeout(15000) }'),
      errors: [{ messageId: 'needsQueue', line: 3, column: 19 }],
    },
    {
      // 1 + 2 + 4 = 7 s
      code: `import pRetry from 'p-retry';\nawait pRetry(run, { retries: 3 });`,
      errors: [{
        messageId: 'tooLong', line: 2, column: 7, endColumn: 13,
        data: { label: 'pRetry()', duration: '7 s', max: '5 s', schedule: ' (waits 1 s, 2 s, 4 s)', noFix: '' },
        // The whole schedule is planned: a shorter first wait alone fits, so the count stays.
        suggestions: [{ messageId: 'fitBudget', data: { max: '5 s', edit: 'minTimeout: 500', waits: '500 ms, 1 s, 2 s' }, output: `import pRetry from 'p-retry';\nawait pRetry(run, { retries: 3, minTimeout: 500 });` }],
      }],
    },
    {
      // A copy of p-retry kept in the repository (its folder's entry) is read as p-retry.
      code: `import pRetry from '../vendor/p-retry/index.js';\nawait pRetry(run, { retries: 3 });`,
      errors: [{
        messageId: 'tooLong', line: 2, column: 7, endColumn: 13,
        data: { label: 'pRetry()', duration: '7 s', max: '5 s', schedule: ' (waits 1 s, 2 s, 4 s)', noFix: '' },
        suggestions: [{ messageId: 'fitBudget', data: { max: '5 s', edit: 'minTimeout: 500', waits: '500 ms, 1 s, 2 s' }, output: `import pRetry from '../vendor/p-retry/index.js';\nawait pRetry(run, { retries: 3, minTimeout: 500 });` }],
      }],
    },
    {
      // p-retry defaults: 10 retries of 1, 2, 4 ... 512 s = 1023 s.
      code: `import pRetry from 'p-retry';\nawait pRetry(run);`,
      errors: [{
        messageId: 'needsQueue', line: 2, column: 7,
        data: { label: 'pRetry()', duration: '17.1 min', schedule: ' (waits 1 s, 2 s, 4 s, 8 s, ..., 8.5 min)', noFix: '' },
        suggestions: [{ messageId: 'fitBudget', data: { max: '5 s', edit: 'retries: 2', waits: '1 s, 2 s' }, output: `import pRetry from 'p-retry';\nawait pRetry(run, { retries: 2 });` }],
      }],
    },
    {
      code: `const retry = require('retry');\nconst op = retry.operation({ retries: 4, minTimeout: 2000, maxTimeout: 10000 });`,
      // 2 + 4 + 8 + 10 (capped) = 24 s
      errors: [{
        messageId: 'tooLong', line: 2, column: 12,
        data: { label: 'retry.operation()', duration: '24 s', max: '5 s', schedule: ' (waits 2 s, 4 s, 8 s, 10 s)', noFix: '' },
        suggestions: [{
          messageId: 'fitBudget',
          data: { max: '5 s', edit: 'retries: 2, minTimeout: 500, maxTimeout: 2000', waits: '500 ms, 1 s' },
          output: `const retry = require('retry');\nconst op = retry.operation({ retries: 2, minTimeout: 500, maxTimeout: 2000 });`,
        }],
      }],
    },
  ],
});

describe('formatDuration', () => {
  it('prints human units', () => {
    expect([formatDuration(250), formatDuration(7000), formatDuration(150_000), formatDuration(Infinity)]).toEqual(['250 ms', '7 s', '2.5 min', 'forever']);
  });
});
