// npm run bench:editor — builds, then measures what every keystroke costs in the editor.
//
// The VS Code extension re-lints the whole unsaved buffer on each change: parse, scope analysis,
// then every enabled rule. This compares linting a 2,000-line TypeScript file with all of this
// plugin's rules against the same parse with a single trivial rule (no-debugger), so the ratio
// is the plugin's share on top of the parse a person pays anyway. Each round changes one
// character, as typing does, so no cache keyed by the previous parse can help.
import { Linter } from 'eslint';
import tseslint from 'typescript-eslint';
import safeRetry from '../dist/index.js';

const quick = process.argv.includes('--quick');
const ROUNDS = quick ? 15 : 60;
const WARMUP = quick ? 5 : 15;

/** A realistic service file: retry sites from several libraries among ordinary code. */
function sourceOfLines(target) {
  const header = [
    "import pRetry from 'p-retry';",
    "import { retry, handleAll, ExponentialBackoff, circuitBreaker, ConsecutiveBreaker, wrap } from 'cockatiel';",
    "import axios from 'axios';",
    "import axiosRetry from 'axios-retry';",
    "import got from 'got';",
    '',
    "const api = axios.create({ baseURL: 'https://api.example.com' });",
    'axiosRetry(api, { retries: 2, retryDelay: axiosRetry.exponentialDelay });',
    "const client = got.extend({ prefixUrl: 'https://catalogue.example.com' });",
    'const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));',
    '',
  ];
  const blocks = [
    (i) => [
      `export interface Order${i} { id: string; total: number; items: Array<{ sku: string; qty: number }> }`,
      '',
      `export async function loadOrder${i}(id: string): Promise<Order${i}> {`,
      '  return pRetry(async () => {',
      '    const response = await fetch(`https://orders.example.com/orders/${id}`);',
      "    if (response.status >= 500) throw new Error(`orders: ${response.status}`);",
      `    return (await response.json()) as Order${i};`,
      '  }, { retries: 2, minTimeout: 500, factor: 2, randomize: true });',
      '}',
      '',
    ],
    (i) => [
      `const breaker${i} = circuitBreaker(handleAll, { halfOpenAfter: 10_000, breaker: new ConsecutiveBreaker(5) });`,
      `const policy${i} = wrap(retry(handleAll, { maxAttempts: 2, backoff: new ExponentialBackoff() }), breaker${i});`,
      `export function price${i}(sku: string): Promise<number> {`,
      `  return policy${i}.execute(async () => (await client.get(\`prices/\${sku}\`).json<{ price: number }>()).price);`,
      '}',
      '',
    ],
    (i) => [
      `export class Inventory${i} {`,
      '  private readonly cache = new Map<string, number>();',
      '  constructor(private readonly base: string) {}',
      '  async stock(sku: string): Promise<number> {',
      '    const hit = this.cache.get(sku);',
      '    if (hit !== undefined) return hit;',
      '    for (let attempt = 1; attempt <= 3; attempt++) {',
      '      try {',
      '        const { data } = await api.get<{ qty: number }>(`${this.base}/stock/${sku}`);',
      '        this.cache.set(sku, data.qty);',
      '        return data.qty;',
      '      } catch (error) {',
      '        if (attempt === 3) throw error;',
      '        await sleep(Math.random() * Math.min(2000, 500 * 2 ** (attempt - 1)));',
      '      }',
      '    }',
      "    throw new Error('unreachable');",
      '  }',
      '}',
      '',
    ],
    (i) => [
      `export function summarise${i}(orders: Array<{ total: number; items: Array<{ qty: number }> }>) {`,
      '  let total = 0;',
      '  let items = 0;',
      '  for (const order of orders) {',
      '    total += order.total;',
      '    for (const item of order.items) items += item.qty;',
      '  }',
      '  const average = orders.length ? total / orders.length : 0;',
      '  return { total, items, average: Math.round(average * 100) / 100 };',
      '}',
      '',
    ],
  ];
  const lines = [...header];
  for (let i = 0; lines.length < target; i++) lines.push(...blocks[i % blocks.length](i));
  return lines.slice(0, target).join('\n') + '\n';
}

const code = sourceOfLines(2000);
const linter = new Linter({ configType: 'flat' });
const base = { files: ['**/*.ts'], languageOptions: { parser: tseslint.parser } };
const configs = {
  'parse + no-debugger': [base, { files: ['**/*.ts'], rules: { 'no-debugger': 'error' } }],
  'parse + all safe-retry rules': [base, { files: ['**/*.ts'], ...safeRetry.configs.all }],
};

/** One keystroke with one configuration: lint the whole text, as the editor does. */
function lintOnce(config, round) {
  // A different character at the end of a comment each round, as typing does.
  const text = `${code}// edit ${round}\n`;
  const start = process.hrtime.bigint();
  const messages = linter.verify(text, config, 'src/service.ts');
  const ms = Number(process.hrtime.bigint() - start) / 1e6;
  const fatal = messages.find((m) => m.fatal);
  if (fatal) throw new Error(`the benchmark file does not parse: ${fatal.message}`);
  return { ms, findings: messages.length };
}

// The configurations alternate keystroke by keystroke, so a busy machine slows both alike; the
// ratio is the median of the per-keystroke ratios.
const names = Object.keys(configs);
const samples = Object.fromEntries(names.map((n) => [n, []]));
const findings = {};
const ratios = [];
for (let round = 0; round < WARMUP + ROUNDS; round++) {
  const times = {};
  for (const name of round % 2 ? [...names].reverse() : names) {
    const r = lintOnce(configs[name], round);
    times[name] = r.ms;
    findings[name] = r.findings;
  }
  if (round < WARMUP) continue;
  for (const name of names) samples[name].push(times[name]);
  ratios.push(times[names[1]] / times[names[0]]);
}
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const p90 = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length * 0.9)];
const results = Object.fromEntries(names.map((n) => [n, { median: median(samples[n]), p90: p90(samples[n]), findings: findings[n] }]));

console.log(`## Per-keystroke cost: ${code.split('\n').length - 1}-line TypeScript file, ${ROUNDS} rounds\n`);
console.log('| configuration | median ms | p90 ms | findings |');
console.log('| --- | ---: | ---: | ---: |');
for (const [name, r] of Object.entries(results)) console.log(`| ${name} | ${r.median.toFixed(1)} | ${r.p90.toFixed(1)} | ${r.findings} |`);
console.log(`\nRatio, all rules to parse + no-debugger (median of per-keystroke ratios): ${median(ratios).toFixed(2)}`);

// Where the time goes: ESLint's own per-rule stats (a separate run, so their bookkeeping does not
// count in the ratio above). The retry model is built once per file by whichever rule asks first.
const totals = new Map();
let parse = 0;
for (let round = 0; round < ROUNDS; round++) {
  linter.verifyAndFix(`${code}// stats ${round}\n`, configs['parse + all safe-retry rules'], { filename: 'src/service.ts', stats: true, fix: false });
  const pass = linter.getTimes().passes[0];
  parse += pass.parse.total;
  for (const [rule, t] of Object.entries(pass.rules ?? {})) totals.set(rule, (totals.get(rule) ?? 0) + t.total);
}
console.log('\n| step (mean per keystroke) | ms |');
console.log('| --- | ---: |');
console.log(`| parse (typescript-eslint) | ${(parse / ROUNDS).toFixed(1)} |`);
for (const [rule, t] of [...totals].sort((a, b) => b[1] - a[1]).slice(0, 6)) console.log(`| ${rule} | ${(t / ROUNDS).toFixed(1)} |`);

