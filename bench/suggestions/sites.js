// Typical retry sites, one per entry, as a team new to the plugin would have them: each library the
// catalogue knows, hand-written loops, nested layers and writes. Each is linted alone.
export const SITES = [
  // --- p-retry
  { name: 'p-retry defaults', code: `import pRetry from 'p-retry';\nexport const load = (id: string) => pRetry(() => fetch(\`/api/items/\${id}\`).then((r) => r.json()));\n` },
  { name: 'p-retry retries 5', code: `import pRetry from 'p-retry';\nexport async function load(id: string) {\n  return pRetry(async () => {\n    const res = await fetch(\`/api/items/\${id}\`);\n    if (!res.ok) throw new Error(String(res.status));\n    return res.json();\n  }, { retries: 5 });\n}\n` },
  { name: 'p-retry constant', js: true, code: `import pRetry from 'p-retry';\nexport const load = (id) => pRetry(() => getItem(id), { retries: 2, factor: 1, minTimeout: 1000 });\n` },
  { name: 'p-retry write', code: `import pRetry from 'p-retry';\nexport const pay = (order: { id: string }) => pRetry(() => fetch('/api/payments', { method: 'POST', body: JSON.stringify(order) }), { retries: 2, minTimeout: 500, randomize: true, maxTimeout: 1000 });\n` },
  { name: 'p-retry axios get', code: `import pRetry from 'p-retry';\nimport axios from 'axios';\nexport const user = (id: string) => pRetry(() => axios.get(\`/users/\${id}\`), { retries: 2, minTimeout: 500, randomize: true, maxTimeout: 1000 });\n` },
  // --- async-retry
  { name: 'async-retry defaults', code: `import retry from 'async-retry';\nexport const load = (url: string) => retry(async () => {\n  const res = await fetch(url);\n  return res.json();\n});\n` },
  { name: 'async-retry constant', js: true, code: `const retry = require('async-retry');\nmodule.exports = (url) => retry(async (bail) => {\n  const res = await fetch(url);\n  if (res.status === 403) { bail(new Error('forbidden')); return; }\n  return res.json();\n}, { retries: 3, factor: 1 });\n` },
  { name: 'async-retry axios', code: `import retry from 'async-retry';\nimport axios from 'axios';\nexport const load = (url: string) => retry(() => axios.get(url), { retries: 2, minTimeout: 500, maxTimeout: 1000 });\n` },
  // --- promise-retry
  { name: 'promise-retry', js: true, code: `import promiseRetry from 'promise-retry';\nexport const load = (url) => promiseRetry((retry) => fetch(url).catch(retry), { retries: 4 });\n` },
  { name: 'promise-retry constant', code: `import promiseRetry from 'promise-retry';\nexport const load = (url: string) => promiseRetry((retry) => fetch(url).catch(retry), { retries: 2, factor: 1, minTimeout: 400 });\n` },
  // --- node-retry
  { name: 'node-retry', js: true, code: `const retry = require('retry');\nexports.load = (url, cb) => {\n  const op = retry.operation({ retries: 5, factor: 3, minTimeout: 1000 });\n  op.attempt(() => fetch(url).then((r) => cb(null, r), (e) => { if (!op.retry(e)) cb(op.mainError()); }));\n};\n` },
  // --- cockatiel
  { name: 'cockatiel constant', code: `import { retry, handleAll, ConstantBackoff } from 'cockatiel';\nconst policy = retry(handleAll, { maxAttempts: 3, backoff: new ConstantBackoff(1000) });\nexport const load = (url: string) => policy.execute(() => fetch(url));\n` },
  { name: 'cockatiel exponential', code: `import { retry, handleAll, ExponentialBackoff, noJitterGenerator } from 'cockatiel';\nconst policy = retry(handleAll, { maxAttempts: 3, backoff: new ExponentialBackoff({ generator: noJitterGenerator }) });\nexport const load = (url: string) => policy.execute(() => fetch(url).then((r) => { if (!r.ok) throw new Error(String(r.status)); return r; }));\n` },
  { name: 'cockatiel many', js: true, code: `import { retry, handleAll, ExponentialBackoff } from 'cockatiel';\nexport const policy = retry(handleAll, { maxAttempts: 8, backoff: new ExponentialBackoff({ initialDelay: 1000, maxDelay: 30000 }) });\n` },
  // --- exponential-backoff
  { name: 'exponential-backoff', code: `import { backOff } from 'exponential-backoff';\nexport const load = (url: string) => backOff(() => fetch(url));\n` },
  { name: 'exponential-backoff jitter none', code: `import { backOff } from 'exponential-backoff';\nexport const load = (url: string) => backOff(() => fetch(url), { numOfAttempts: 3, startingDelay: 500, jitter: 'none' });\n` },
  // --- ts-retry-promise
  { name: 'ts-retry-promise', code: `import { retry } from 'ts-retry-promise';\nexport const load = (url: string) => retry(() => fetch(url), { retries: 3, delay: 1000 });\n` },
  // --- typescript-retry-decorator
  { name: 'typescript-retry-decorator', code: `import { Retryable, BackOffPolicy } from 'typescript-retry-decorator';\nexport class Api {\n  @Retryable({ maxAttempts: 3, backOff: 1000, backOffPolicy: BackOffPolicy.FixedBackOffPolicy })\n  async load(url: string) { return fetch(url); }\n}\n` },
  // --- bluebird-retry
  { name: 'bluebird-retry', js: true, code: `const retry = require('bluebird-retry');\nexports.load = (url) => retry(() => fetch(url), { max_tries: 5, interval: 1000 });\n` },
  // --- async
  { name: 'async.retry', js: true, code: `const async = require('async');\nexports.load = (url, cb) => async.retry({ times: 5, interval: 200 }, (done) => fetch(url).then((r) => done(null, r), done), cb);\n` },
  // --- rxjs
  { name: 'rxjs retry count', code: `import { ajax } from 'rxjs/ajax';\nimport { retry } from 'rxjs';\nexport const items$ = ajax.getJSON('/api/items').pipe(retry(3));\n` },
  { name: 'rxjs retry delay', code: `import { ajax } from 'rxjs/ajax';\nimport { retry } from 'rxjs';\nexport const items$ = ajax.getJSON('/api/items').pipe(retry({ count: 3, delay: 1000 }));\n` },
  { name: 'rxjs retryWhen', code: `import { ajax } from 'rxjs/ajax';\nimport { retryWhen, delay } from 'rxjs/operators';\nexport const items$ = ajax.getJSON('/api/items').pipe(retryWhen((errors) => errors.pipe(delay(1000))));\n` },
  // --- nestjs
  { name: 'nestjs typeorm', code: `import { TypeOrmModule } from '@nestjs/typeorm';\nexport const db = TypeOrmModule.forRoot({ type: 'postgres', retryAttempts: 10, retryDelay: 3000 });\n` },
  // --- axios-retry
  { name: 'axios-retry defaults', code: `import axios from 'axios';\nimport axiosRetry from 'axios-retry';\nconst client = axios.create({ baseURL: 'https://api.example.com' });\naxiosRetry(client, { retries: 3 });\nexport const user = (id: string) => client.get(\`/users/\${id}\`);\n` },
  { name: 'axios-retry everything', js: true, code: `import axios from 'axios';\nimport axiosRetry from 'axios-retry';\naxiosRetry(axios, { retries: 2, retryDelay: axiosRetry.exponentialDelay, retryCondition: () => true });\n` },
  { name: 'axios-retry writes', code: `import axios from 'axios';\nimport axiosRetry, { exponentialDelay } from 'axios-retry';\naxiosRetry(axios, { retries: 2, retryDelay: exponentialDelay, retryCondition: (e) => !e.response || e.response.status >= 500 });\nexport const pay = (body: unknown) => axios.post('/payments', body);\n` },
  // --- retry-axios
  { name: 'retry-axios', code: `import axios from 'axios';\nimport * as rax from 'retry-axios';\nconst client = axios.create({ raxConfig: { retry: 3, backoffType: 'static', retryDelay: 1000 } });\nrax.attach(client);\nexport const items = () => client.get('/items');\n` },
  { name: 'retry-axios 4xx', js: true, code: `const axios = require('axios');\nconst rax = require('retry-axios');\nconst http = axios.create({ raxConfig: { retry: 2, statusCodesToRetry: [[400, 599]] } });\nrax.attach(http);\nmodule.exports = () => http.get('/items');\n` },
  // --- got
  { name: 'got 4xx', code: `import got from 'got';\nexport const items = () => got('https://api.example.com/items', { retry: { limit: 2, statusCodes: [404, 408, 429, 500, 503] } }).json();\n` },
  { name: 'got limit 6', js: true, code: `import got from 'got';\nexport const api = got.extend({ prefixUrl: 'https://api.example.com', retry: { limit: 6 } });\n` },
  { name: 'got constant', code: `import got from 'got';\nexport const api = got.extend({ retry: { limit: 3, calculateDelay: ({ attemptCount }) => 1000 } });\n` },
  // --- ky
  { name: 'ky limit 2', code: `import ky from 'ky';\nexport const items = () => ky.get('https://api.example.com/items', { retry: 2 }).json();\n` },
  { name: 'ky 4xx', js: true, code: `import ky from 'ky';\nexport const items = () => ky('https://api.example.com/items', { retry: { limit: 2, statusCodes: [404, 429, 500, 503] }, timeout: 1000 });\n` },
  { name: 'ky many', code: `import ky from 'ky';\nexport const api = ky.create({ prefixUrl: 'https://api.example.com', retry: { limit: 6 } });\n` },
  // --- fetch-retry
  { name: 'fetch-retry defaults', js: true, code: `const fetchRetry = require('fetch-retry')(global.fetch);\nmodule.exports = (url) => fetchRetry(url);\n` },
  { name: 'fetch-retry 4xx', code: `import fetchBuilder from 'fetch-retry';\nexport const f = fetchBuilder(fetch, { retries: 2, retryDelay: 500, retryOn: [400, 404, 500, 503] });\n` },
  // --- octokit
  { name: 'octokit doNotRetry []', code: `import { Octokit } from '@octokit/core';\nimport { retry } from '@octokit/plugin-retry';\nconst MyOctokit = Octokit.plugin(retry);\nexport const octokit = new MyOctokit({ auth: 'token', retry: { doNotRetry: [] } });\n` },
  { name: 'octokit retries 6', js: true, code: `import { Octokit } from '@octokit/core';\nimport { retry } from '@octokit/plugin-retry';\nconst MyOctokit = Octokit.plugin(retry);\nexport const octokit = new MyOctokit({ retry: { retries: 6 } });\n` },
  // --- undici
  { name: 'undici retry 4xx', code: `import { Agent, interceptors } from 'undici';\nexport const client = new Agent().compose(interceptors.retry({ maxRetries: 2, statusCodes: [404, 500, 502] }));\n` },
  { name: 'undici RetryAgent many', js: true, code: `import { Agent, RetryAgent } from 'undici';\nexport const agent = new RetryAgent(new Agent(), { maxRetries: 8 });\n` },
  // --- superagent
  { name: 'superagent', code: `import request from 'superagent';\nexport const items = () => request.get('https://api.example.com/items').retry(6);\n` },
  { name: 'superagent post', js: true, code: `const request = require('superagent');\nexports.pay = (body) => request.post('https://api.example.com/payments').send(body).retry(2);\n` },
  // --- apollo
  { name: 'apollo retry link', code: `import { RetryLink } from '@apollo/client/link/retry';\nexport const link = new RetryLink({ delay: { initial: 300, max: Infinity, jitter: false }, attempts: { max: 5 } });\n` },
  // --- urql
  { name: 'urql retry exchange', code: `import { retryExchange } from '@urql/exchange-retry';\nexport const exchange = retryExchange({ initialDelayMs: 1000, maxDelayMs: 15000, randomDelay: false, maxNumberAttempts: 6 });\n` },
  // --- AWS SDK v3 / v2
  { name: 'aws v3 attempts', code: `import { S3Client } from '@aws-sdk/client-s3';\nexport const s3 = new S3Client({ region: 'eu-west-1', maxAttempts: 10 });\n` },
  { name: 'aws v2 retries', js: true, code: `const AWS = require('aws-sdk');\nexports.s3 = new AWS.S3({ maxRetries: 8, retryDelayOptions: { base: 1000 } });\n` },
  // --- Stripe / OpenAI
  { name: 'stripe network retries', code: `import Stripe from 'stripe';\nexport const stripe = new Stripe('sk_test', { maxNetworkRetries: 8 });\n` },
  { name: 'openai retries', js: true, code: `import OpenAI from 'openai';\nexport const openai = new OpenAI({ maxRetries: 9 });\n` },
  { name: 'anthropic retries', code: `import Anthropic from '@anthropic-ai/sdk';\nexport const anthropic = new Anthropic({ maxRetries: 8 });\n` },
  // --- AWS SDK v3 retry strategies
  { name: 'aws v3 configured strategy', code: `import { S3Client } from '@aws-sdk/client-s3';\nimport { ConfiguredRetryStrategy } from '@smithy/util-retry';\nexport const s3 = new S3Client({ retryStrategy: new ConfiguredRetryStrategy(8, 1000) });\n` },
  { name: 'aws v3 standard strategy', js: true, code: `import { StandardRetryStrategy } from '@smithy/util-retry';\nexport const strategy = new StandardRetryStrategy(10);\n` },
  // --- ofetch (and its create())
  { name: 'ofetch create', code: `import { ofetch } from 'ofetch';\nexport const api = ofetch.create({ baseURL: 'https://api.example.com', retry: 6, retryDelay: 1000 });\n` },
  { name: 'ofetch 4xx', js: true, code: `import { ofetch } from 'ofetch';\nexport const items = () => ofetch('https://api.example.com/items', { retry: 2, retryDelay: 500, retryStatusCodes: [404, 429, 500, 503] });\n` },
  // --- fetch-retry-ts
  { name: 'fetch-retry-ts', code: `import fetchBuilder from 'fetch-retry-ts';\nexport const f = fetchBuilder(fetch, { retries: 6, retryDelay: 1000 });\n` },
  // --- tRPC's queryClientConfig
  { name: 'trpc query retry', code: `import { createTRPCNext } from '@trpc/next';\nexport const trpc = createTRPCNext({ config() { return { links: [], queryClientConfig: { defaultOptions: { queries: { retry: 8, retryDelay: 1000 } } } }; } });\n` },
  // --- discord.js: every request of its REST layer is retried on its own
  { name: 'discord.js send in a loop', code: `import type { TextChannel } from 'discord.js';\nexport async function announce(channel: TextChannel, text: string) {\n  for (let attempt = 0; attempt < 3; attempt++) {\n    try {\n      return await channel.send(text);\n    } catch (e) {\n      await new Promise((r) => setTimeout(r, 1000));\n    }\n  }\n}\n` },
  // --- the project's runtime (compliant by construction: no finding expected)
  { name: 'safe-retry runtime', code: `import { createRetryPolicy } from 'eslint-plugin-safe-retry/runtime';\nconst policy = createRetryPolicy({ maxAttempts: 3 });\nexport const load = (url: string) => policy.read(() => fetch(url));\n` },
  // --- nested layers
  { name: 'nested p-retry around got', code: `import pRetry from 'p-retry';\nimport got from 'got';\nexport const items = () => pRetry(() => got('https://api.example.com/items').json(), { retries: 2, minTimeout: 500, randomize: true, maxTimeout: 1000 });\n` },
  { name: 'nested loop around ky', js: true, code: `import ky from 'ky';\nexport async function items() {\n  for (let attempt = 0; attempt < 3; attempt++) {\n    try {\n      return await ky.get('https://api.example.com/items', { retry: 2 }).json();\n    } catch (e) {\n      await new Promise((r) => setTimeout(r, Math.random() * 500 * 2 ** attempt));\n    }\n  }\n}\n` },
  { name: 'nested p-retry around stripe', code: `import pRetry from 'p-retry';\nimport Stripe from 'stripe';\nconst stripe = new Stripe('sk_test', { maxNetworkRetries: 2 });\nexport const refund = (id: string, key: string) => pRetry(() => stripe.refunds.create({ charge: id }, { idempotencyKey: key }), { retries: 2, minTimeout: 500, randomize: true, maxTimeout: 1000 });\n` },
  { name: 'nested async-retry around openai', code: `import retry from 'async-retry';\nimport OpenAI from 'openai';\nconst openai = new OpenAI();\nexport const complete = (prompt: string) => retry(() => openai.completions.create({ model: 'x', prompt }), { retries: 2, minTimeout: 500, maxTimeout: 1000 });\n` },
  // --- writes
  { name: 'stripe charge in p-retry', code: `import pRetry from 'p-retry';\nimport Stripe from 'stripe';\nconst stripe = new Stripe('sk_test', { maxNetworkRetries: 0 });\nexport const charge = (amount: number) => pRetry(() => stripe.charges.create({ amount, currency: 'eur' }), { retries: 2, minTimeout: 500, randomize: true, maxTimeout: 1000 });\n` },
  { name: 'axios post in async-retry', js: true, code: `import retry from 'async-retry';\nimport axios from 'axios';\nexport const order = (body) => retry(() => axios.post('/orders', body), { retries: 2, minTimeout: 500, maxTimeout: 1000 });\n` },
  { name: 'fetch POST in loop', code: `export async function pay(body: unknown) {\n  for (let attempt = 0; attempt < 3; attempt++) {\n    try {\n      return await fetch('/api/payments', { method: 'POST', body: JSON.stringify(body) });\n    } catch (e) {\n      await new Promise((r) => setTimeout(r, Math.random() * 500 * 2 ** attempt));\n    }\n  }\n  throw new Error('failed');\n}\n` },
  // --- hand-written loops
  { name: 'loop constant', code: `const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));\nexport async function load(url: string) {\n  for (let i = 0; i < 3; i++) {\n    try {\n      return await fetch(url);\n    } catch (e) {\n      await sleep(1000);\n    }\n  }\n  throw new Error('unreachable');\n}\n` },
  { name: 'loop exponential no jitter', js: true, code: `const sleep = (ms) => new Promise((r) => setTimeout(r, ms));\nexport async function load(url) {\n  for (let attempt = 0; attempt < 3; attempt++) {\n    try {\n      return await fetch(url);\n    } catch (e) {\n      await sleep(500 * 2 ** attempt);\n    }\n  }\n}\n` },
  { name: 'loop immediate', code: `export async function load(url: string) {\n  let attempt = 0;\n  while (attempt < 3) {\n    try {\n      return await fetch(url);\n    } catch (e) {\n      attempt++;\n    }\n  }\n  throw new Error('failed');\n}\n` },
  { name: 'loop long waits', code: `const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));\nexport async function load(url: string) {\n  for (let attempt = 0; attempt < 5; attempt++) {\n    try {\n      return await fetch(url);\n    } catch (e) {\n      await sleep(Math.random() * 1000 * 2 ** attempt);\n    }\n  }\n  throw new Error('failed');\n}\n` },
  { name: 'loop axios 4xx', js: true, code: `import axios from 'axios';\nconst sleep = (ms) => new Promise((r) => setTimeout(r, ms));\nexport async function user(id) {\n  for (let attempt = 0; attempt < 3; attempt++) {\n    try {\n      return await axios.get(\`/users/\${id}\`);\n    } catch (e) {\n      await sleep(Math.random() * 500 * 2 ** attempt);\n    }\n  }\n}\n` },
  { name: 'loop ok check 4xx', code: `const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));\nexport async function load(url: string) {\n  for (let attempt = 0; attempt < 3; attempt++) {\n    const res = await fetch(url);\n    if (res.ok) return res.json();\n    await sleep(Math.random() * 500 * 2 ** attempt);\n  }\n  throw new Error('failed');\n}\n` },
  // --- client-error filters in each library's words (issue 16)
  { name: 'rxjs retry axios', code: `import { from, retry } from 'rxjs';\nimport axios from 'axios';\nexport const user$ = (id: string) => from(axios.get(\`/users/\${id}\`)).pipe(retry({ count: 2, delay: 1000 }));\n` },
  { name: 'cockatiel handleAll axios', js: true, code: `import { retry, handleAll, ExponentialBackoff } from 'cockatiel';\nimport axios from 'axios';\nconst policy = retry(handleAll, { maxAttempts: 2, backoff: new ExponentialBackoff({ maxDelay: 2000 }) });\nexport const user = (id) => policy.execute(() => axios.get(\`/users/\${id}\`));\n` },
  { name: 'axios-retry predicate 404', code: `import axios from 'axios';\nimport axiosRetry, { exponentialDelay } from 'axios-retry';\naxiosRetry(axios, { retries: 2, retryDelay: exponentialDelay, retryCondition: (e) => !e.response || e.response.status === 404 || e.response.status >= 500 });\n` },
  { name: 'octokit doNotRetry partial', js: true, code: `import { Octokit } from '@octokit/core';\nimport { retry } from '@octokit/plugin-retry';\nconst MyOctokit = Octokit.plugin(retry);\nexport const octokit = new MyOctokit({ retry: { doNotRetry: [400, 401] } });\n` },
  { name: 'async-retry got block', code: `import retry from 'async-retry';\nimport got from 'got';\nexport const load = (url: string) => retry(async () => {\n  const body = await got(url, { retry: { limit: 0 } }).json();\n  return body;\n}, { retries: 2, minTimeout: 500, maxTimeout: 1000 });\n` },
  { name: 'p-retry ky', js: true, code: `import pRetry from 'p-retry';\nimport ky from 'ky';\nexport const items = () => pRetry(() => ky.get('https://api.example.com/items', { retry: 0 }).json(), { retries: 2, minTimeout: 500, randomize: true, maxTimeout: 1000 });\n` },
  { name: 'got predicate 4xx range', code: `import got from 'got';\nexport const api = got.extend({ retry: { limit: 2, statusCodes: [[400, 599]].flat() } });\n` },
  { name: 'loop got catch', code: `import got from 'got';\nconst sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));\nexport async function item(id: string) {\n  let attempt = 0;\n  while (true) {\n    try {\n      return await got(\`https://api.example.com/items/\${id}\`, { retry: { limit: 0 } }).json();\n    } catch (err) {\n      if (++attempt >= 3) throw err;\n      await sleep(Math.random() * 500 * 2 ** attempt);\n    }\n  }\n}\n` },
  // --- nested layers: the inner one turned off (issue 16)
  { name: 'nested p-retry around axios-retry client', code: `import pRetry from 'p-retry';\nimport axios from 'axios';\nimport axiosRetry from 'axios-retry';\nconst api = axios.create({ baseURL: 'https://api.example.com' });\naxiosRetry(api, { retries: 2, retryDelay: axiosRetry.exponentialDelay });\nexport const user = (id: string) => pRetry(() => api.get(\`/users/\${id}\`), { retries: 2, minTimeout: 500, randomize: true, maxTimeout: 1000, shouldRetry: () => true });\n` },
  { name: 'nested cockatiel around got.extend', js: true, code: `import { retry, handleAll, ExponentialBackoff } from 'cockatiel';\nimport got from 'got';\nconst api = got.extend({ prefixUrl: 'https://api.example.com', retry: { limit: 2 } });\nconst policy = retry(handleAll, { maxAttempts: 2, backoff: new ExponentialBackoff({ maxDelay: 2000 }) });\nexport const items = () => policy.execute(() => api.get('items').json());\n` },
  { name: 'nested loop around S3', code: `import { S3Client, GetObjectCommand } from '@aws-sdk/client-s3';\nconst s3 = new S3Client({ region: 'eu-west-1' });\nexport async function read(Key: string) {\n  for (let attempt = 0; attempt < 3; attempt++) {\n    try {\n      return await s3.send(new GetObjectCommand({ Bucket: 'b', Key }));\n    } catch (e) {\n      await new Promise((r) => setTimeout(r, Math.random() * 500 * 2 ** attempt));\n    }\n  }\n  throw new Error('failed');\n}\n` },
  // --- migrations off legacy helpers (issue 16)
  { name: 'async-retry require migrate', js: true, code: `const retry = require('async-retry');\nconst axios = require('axios');\nexports.user = (id) => retry(() => axios.get('/users/' + id), { retries: 2, factor: 2, minTimeout: 500, maxTimeout: 2000, randomize: true });\nexports.team = (id) => retry(async () => (await axios.get('/teams/' + id)).data, { retries: 1, minTimeout: 300 });\n` },
  { name: 'promise-retry options first', code: `import promiseRetry from 'promise-retry';\nimport got from 'got';\nexport const items = () => promiseRetry({ retries: 2, minTimeout: 500, maxRetryTime: 4000 }, (retry) => got('https://api.example.com/items', { retry: { limit: 0 } }).json().catch(retry));\n` },
  // --- more of the catalogue, and more hand-written shapes, as typical code has them (issue 16)
  { name: 'lifeomic attempt', code: `import { retry } from '@lifeomic/attempt';\nexport const load = (url: string) => retry(() => fetch(url), { maxAttempts: 4, delay: 500 });\n` },
  { name: 'requestretry', js: true, code: `const request = require('requestretry');\nexports.load = (url) => request({ url, json: true, maxAttempts: 5, retryDelay: 5000 });\n` },
  { name: 'tanstack query client', code: `import { QueryClient } from '@tanstack/react-query';\nexport const queryClient = new QueryClient({ defaultOptions: { queries: { retry: 6, retryDelay: 1000 } } });\n` },
  { name: 'rtk-query retry', code: `import { fetchBaseQuery, retry } from '@reduxjs/toolkit/query';\nexport const baseQuery = retry(fetchBaseQuery({ baseUrl: '/api' }), { maxRetries: 8 });\n` },
  { name: 'swr retries', js: true, code: `import useSWR from 'swr';\nexport const useUser = (id) => useSWR(\`/api/users/\${id}\`, fetcher, { errorRetryCount: 10, errorRetryInterval: 2000 });\n` },
  { name: 'kafkajs client', code: `import { Kafka } from 'kafkajs';\nexport const kafka = new Kafka({ clientId: 'app', brokers: ['kafka:9092'], retry: { retries: 8, initialRetryTime: 1000 } });\n` },
  { name: 'bullmq fixed backoff', code: `import { Queue } from 'bullmq';\nconst queue = new Queue('email');\nexport const send = (to: string) => queue.add('welcome', { to }, { attempts: 5, backoff: { type: 'fixed', delay: 5000 } });\n` },
  { name: 'temporal activities', code: `import { proxyActivities } from '@temporalio/workflow';\nexport const { charge } = proxyActivities({ startToCloseTimeout: '1 minute', retry: { maximumAttempts: 5, backoffCoefficient: 1 } });\n` },
  { name: 'slack web client', js: true, code: `const { WebClient } = require('@slack/web-api');\nexports.slack = new WebClient(process.env.SLACK_TOKEN, { retryConfig: { retries: 2 } });\n` },
  { name: 'angular post retry', code: `import { Injectable } from '@angular/core';\nimport { HttpClient } from '@angular/common/http';\nimport { retry } from 'rxjs';\n@Injectable()\nexport class Orders {\n  constructor(private http: HttpClient) {}\n  create(order: unknown) { return this.http.post('/api/orders', order).pipe(retry(2)); }\n}\n` },
  { name: 'nestjs HttpService retry', code: `import { Injectable } from '@nestjs/common';\nimport { HttpService } from '@nestjs/axios';\nimport { retry } from 'rxjs';\n@Injectable()\nexport class Users {\n  constructor(private readonly http: HttpService) {}\n  find(id: string) { return this.http.get(\`/users/\${id}\`).pipe(retry({ count: 3, delay: 1000 })); }\n}\n` },
  { name: 'recursive retry', code: `const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));\nexport async function fetchWithRetry(url: string, retries = 3): Promise<Response> {\n  try {\n    return await fetch(url);\n  } catch (e) {\n    if (retries === 0) throw e;\n    await sleep(1000);\n    return fetchWithRetry(url, retries - 1);\n  }\n}\n` },
  { name: 'loop axios post headers', js: true, code: `import axios from 'axios';\nexport async function createOrder(body, token) {\n  for (let attempt = 0; attempt < 3; attempt++) {\n    try {\n      return await axios.post('/api/orders', body, { headers: { Authorization: token } });\n    } catch (e) {\n      await new Promise((r) => setTimeout(r, Math.random() * 500 * 2 ** attempt));\n    }\n  }\n  throw new Error('failed');\n}\n` },
  { name: 'loop timers/promises', code: `import { setTimeout as sleep } from 'node:timers/promises';\nexport async function poll(url: string) {\n  let tries = 0;\n  while (tries < 4) {\n    const res = await fetch(url);\n    if (res.ok) return res.json();\n    tries++;\n    await sleep(2000);\n  }\n  throw new Error('gave up');\n}\n` },
];
