/**
 * no-unsafe-write-retry: a known client's request member chosen at run time (`request[action](url)`),
 * a method parameter that every call of a local function fills with literals, and a caller's method
 * compared only to choose a response predicate.
 */
import rule from '../../src/rules/no-unsafe-write-retry.js';
import { run } from '../helpers/rule-tester.js';

const opts = `{ retries: 2, minTimeout: 500, randomize: true }`;
const sleep = `await new Promise((r) => setTimeout(r, Math.random() * 100 * 2 ** n));`;

run('no-unsafe-write-retry (chosen method)', rule, {
  valid: [
    // A member chosen from GET/HEAD only (constant lists): reads.
    `import pRetry from 'p-retry';\nimport axios from 'axios';\nexport const load = (url) => Promise.all(['get', 'head'].map((m) => pRetry(() => axios[m](url), ${opts})));`,
    // A written computed name: that method.
    `import request from 'superagent';\nexport const load = (url) => request['get'](url).retry(2);`,
    // A method name the caller passes, compared before the retry: the code chooses what it retries.
    `import axios from 'axios';\nexport async function call(method, url) {\n  const tries = method === 'get' ? 3 : 1;\n  for (let n = 1; n <= tries; n++) {\n    try { return await axios[method](url); } catch (e) { if (n === tries) throw e; ${sleep} }\n  }\n}`,
    // A local, unexported function every call of which passes 'get' or 'head': reads.
    `import request from 'superagent';\nfunction send(action, route) { return request[action](route).retry(2); }\nexport const a = () => send('get', '/a');\nexport const b = () => send('head', '/b');`,
    // A parameter whose literal default stands where a call passes nothing: 'get' or 'head', reads.
    `import request from 'superagent';\nfunction send(route, action = 'get') { return request[action](route).retry(2); }\nexport const a = () => send('/a');\nexport const b = () => send('/b', 'head');`,
    // The same for fetch: a method parameter every call fills with GET.
    `import pRetry from 'p-retry';\nconst load = (url, method) => pRetry(() => fetch(url, { method }), ${opts});\nexport const one = () => load('/a', 'GET');\nexport const two = () => load('/b', 'GET');`,
    // A computed member of something that is no known client stays unknown.
    `import pRetry from 'p-retry';\nexport const run = (store, action, key) => pRetry(() => store[action](key), ${opts});`,
    // A computed key that is no HTTP method name (a list holding 'agent'): not a request.
    `import pRetry from 'p-retry';\nimport axios from 'axios';\nexport const load = (url) => ['get', 'getUri'].forEach((m) => pRetry(() => axios[m](url), ${opts}));`,
    // The predicate chosen by the method also judges thrown errors: what a network error gets is unknown.
    "async function withRetries(request, options = {}) {\n  const shouldRetry = options.shouldRetry || (() => false);\n  let attempts = 0;\n  do {\n    try {\n      const response = await request();\n      if (response.ok || !shouldRetry(response)) return response;\n    } catch (error) {\n      if (!shouldRetry(error)) throw error;\n    }\n    await new Promise((r) => setTimeout(r, 500 * 2 ** attempts + Math.random() * 100));\n    attempts += 1;\n  } while (attempts < 3);\n  return request();\n}\nexport async function call(url, options) {\n  const { method = 'GET', data } = options;\n  const init = { method, body: JSON.stringify(data) };\n  const shouldRetry = method === 'GET' ? (response) => response.status >= 500 : (response) => response.status === 429;\n  return withRetries(async () => fetch(url, init), { shouldRetry });\n}",
    // A comparison that keeps writes out of the retry: only GET reaches it.
    "async function withRetries(request, options = {}) {\n  const shouldRetry = options.shouldRetry || (() => false);\n  let attempts = 0;\n  do {\n    try {\n      const response = await request();\n      if (response.ok || !shouldRetry(response)) return response;\n    } catch (error) {\n      console.warn(error);\n    }\n    await new Promise((r) => setTimeout(r, 500 * 2 ** attempts + Math.random() * 100));\n    attempts += 1;\n  } while (attempts < 3);\n  return request();\n}\nexport async function call(url, options) {\n  const { method = 'GET', data } = options;\n  const init = { method, body: JSON.stringify(data) };\n  if (method !== 'GET') return fetch(url, init);\n  const shouldRetry = (response) => response.status >= 500;\n  return withRetries(async () => fetch(url, init), { shouldRetry });\n}",
    // The method chooses whether the retry runs at all (a chosen function that calls something): writes are kept out.
    "async function withRetries(request) {\n  let attempts = 0;\n  do {\n    try {\n      return await request();\n    } catch (error) {\n      console.warn(error);\n    }\n    await new Promise((r) => setTimeout(r, 500 * 2 ** attempts + Math.random() * 100));\n    attempts += 1;\n  } while (attempts < 3);\n  return request();\n}\nexport async function call(url, options) {\n  const { method = 'GET', data } = options;\n  const init = { method, body: JSON.stringify(data) };\n  const run = method === 'GET' ? (f) => withRetries(f) : (f) => f();\n  return run(async () => fetch(url, init));\n}",
    // No catch: a failure without a response leaves the helper, whatever the method.
    "async function withRetries(request, options = {}) {\n  const shouldRetry = options.shouldRetry || (() => false);\n  let attempts = 0;\n  do {\n    const response = await request();\n    if (response.ok || !shouldRetry(response)) return response;\n    await new Promise((r) => setTimeout(r, 500 * 2 ** attempts + Math.random() * 100));\n    attempts += 1;\n  } while (attempts < 3);\n  return request();\n}\nexport async function call(url, options) {\n  const { method = 'GET', data } = options;\n  const init = { method, body: JSON.stringify(data) };\n  const shouldRetry = method === 'GET' ? (response) => response.status >= 500 : (response) => response.status === 429;\n  return withRetries(async () => fetch(url, init), { shouldRetry });\n}",
  ],
  invalid: [
    {
      // replicate's request(): the caller's method (GET by default) compared only to choose which
      // responses are retried, while the helper's catch retries every thrown error (a network
      // failure after which a POST may have landed).
      code: "async function withRetries(request, options = {}) {\n  const shouldRetry = options.shouldRetry || (() => false);\n  let attempts = 0;\n  do {\n    try {\n      const response = await request();\n      if (response.ok || !shouldRetry(response)) return response;\n    } catch (error) {\n      console.warn(error);\n    }\n    await new Promise((r) => setTimeout(r, 500 * 2 ** attempts + Math.random() * 100));\n    attempts += 1;\n  } while (attempts < 3);\n  return request();\n}\nexport async function call(url, options) {\n  const { method = 'GET', data } = options;\n  const init = { method, body: JSON.stringify(data) };\n  const shouldRetry = method === 'GET' ? (response) => response.status >= 500 : (response) => response.status === 429;\n  return withRetries(async () => fetch(url, init), { shouldRetry });\n}",
      errors: [{
        messageId: 'unsafeWrite', line: 20, data: { site: 'withRetries()', operation: 'fetch() (every request, POST included)' },
        suggestions: [{ messageId: 'callOnce', output: "async function withRetries(request, options = {}) {\n  const shouldRetry = options.shouldRetry || (() => false);\n  let attempts = 0;\n  do {\n    try {\n      const response = await request();\n      if (response.ok || !shouldRetry(response)) return response;\n    } catch (error) {\n      console.warn(error);\n    }\n    await new Promise((r) => setTimeout(r, 500 * 2 ** attempts + Math.random() * 100));\n    attempts += 1;\n  } while (attempts < 3);\n  return request();\n}\nexport async function call(url, options) {\n  const { method = 'GET', data } = options;\n  const init = { method, body: JSON.stringify(data) };\n  const shouldRetry = method === 'GET' ? (response) => response.status >= 500 : (response) => response.status === 429;\n  return fetch(url, init);\n}" }],
      }],
    },
    {
      // superagent re-sends whatever method the caller names (raylu107/server_client).
      code: `const request = require('superagent');\nclass HttpReq {\n  send(action, route, body) {\n    return new Promise((resolve, reject) => {\n      request[action](route).send(body).retry(3, (err) => { if (err) console.log(err); }).end((err, res) => (err ? reject(err) : resolve(res)));\n    });\n  }\n}\nmodule.exports = new HttpReq();`,
      errors: [{
        messageId: 'unsafeWrite', line: 5, data: { site: '.retry()', operation: 'request[action]() (every request, POST included)' },
        suggestions: [{ messageId: 'sendKey', output: "const request = require('superagent');\nclass HttpReq {\n  send(action, route, body) {\n    return new Promise((resolve, reject) => {\n      const idempotencyKey = crypto.randomUUID();\n      request[action](route).set('Idempotency-Key', idempotencyKey).send(body).retry(3, (err) => { if (err) console.log(err); }).end((err, res) => (err ? reject(err) : resolve(res)));\n    });\n  }\n}\nmodule.exports = new HttpReq();" }],
      }],
    },
    {
      // An axios instance's member chosen by the caller, in a hand-written loop.
      code: `import axios from 'axios';\nconst api = axios.create({ baseURL: '/api' });\nexport async function call(method, url, data) {\n  for (let n = 1; n <= 3; n++) {\n    try { return await api[method](url, data); } catch (e) { ${sleep} }\n  }\n}`,
      errors: [{ messageId: 'unsafeWrite', line: 5 }],
    },
    {
      // Constant lists naming a write: the retry sends it.
      code: `import pRetry from 'p-retry';\nimport axios from 'axios';\nexport const load = (url) => ['get', 'post'].map((m) => pRetry(() => axios[m](url), ${opts}));`,
      errors: [{
        messageId: 'unsafeWrite', line: 3, data: { site: 'pRetry()', operation: 'axios[m]() (POST)' },
        suggestions: [{ messageId: 'callOnce', output: "import pRetry from 'p-retry';\nimport axios from 'axios';\nexport const load = (url) => ['get', 'post'].map((m) => axios[m](url));" }],
      }],
    },
    {
      // Every local call passes literals, one of them a write.
      code: `import request from 'superagent';\nfunction send(action, route) { return request[action](route).retry(2); }\nexport const a = () => send('get', '/a');\nexport const b = () => send('post', '/b');`,
      errors: [{
        messageId: 'unsafeWrite', line: 2, data: { site: '.retry()', operation: 'request[action]() (POST)' },
        suggestions: [{ messageId: 'sendKey', output: "import request from 'superagent';\nfunction send(action, route) { const idempotencyKey = crypto.randomUUID();\nreturn request[action](route).set('Idempotency-Key', idempotencyKey).retry(2); }\nexport const a = () => send('get', '/a');\nexport const b = () => send('post', '/b');" }],
      }],
    },
    {
      // A literal default that is a write, where one call passes nothing.
      code: `import request from 'superagent';\nfunction send(route, action = 'post') { return request[action](route).retry(2); }\nexport const a = () => send('/a');\nexport const b = () => send('/b', 'get');`,
      errors: [{
        messageId: 'unsafeWrite', line: 2, data: { site: '.retry()', operation: 'request[action]() (POST)' },
        suggestions: [{ messageId: 'sendKey', output: "import request from 'superagent';\nfunction send(route, action = 'post') { const idempotencyKey = crypto.randomUUID();\nreturn request[action](route).set('Idempotency-Key', idempotencyKey).retry(2); }\nexport const a = () => send('/a');\nexport const b = () => send('/b', 'get');" }],
      }],
    },
  ],
});
