// Success-path cost per call: what a retry engine adds to every call that works the first time,
// which is nearly every call. Variants run in alternating rounds so drift (thermal, GC, other
// processes) spreads over all of them; we report medians.
import { retry, handleAll, circuitBreaker, ConsecutiveBreaker, wrap } from 'cockatiel';
import pRetry from 'p-retry';
import { MeterProvider, MetricReader } from '@opentelemetry/sdk-metrics';
import { createRetryPolicy, createCircuitBreaker, createRetryBudget, enableMetrics } from '../../dist/runtime/index.js';

const fn = () => Promise.resolve(1);

/** A registered SDK whose reader is never asked to collect: what a call pays between two exports. */
class IdleReader extends MetricReader {
  async onForceFlush() {}
  async onShutdown() {}
}
const metrics = enableMetrics({ meterProvider: new MeterProvider({ readers: [new IdleReader()] }) });

function variants() {
  const ours = createRetryPolicy();
  const oursMetrics = createRetryPolicy({ name: 'bench', metrics });
  const oursBreaker = createRetryPolicy({ breaker: createCircuitBreaker() });
  const oursFull = createRetryPolicy({ breaker: createCircuitBreaker(), budget: createRetryBudget() });
  const cRetry = retry(handleAll, { maxAttempts: 2 });
  const cBreaker = circuitBreaker(handleAll, { halfOpenAfter: 5000, breaker: new ConsecutiveBreaker(5) });
  const cRetryBreaker = wrap(retry(handleAll, { maxAttempts: 2 }), circuitBreaker(handleAll, { halfOpenAfter: 5000, breaker: new ConsecutiveBreaker(5) }));
  const pBreaker = circuitBreaker(handleAll, { halfOpenAfter: 5000, breaker: new ConsecutiveBreaker(5) });
  const readSignal = (ctx) => {
    void ctx.signal;
    return fn();
  };
  return [
    ['bare `await fn()`', () => fn()],
    ['safe-retry `read`', () => ours.read(fn)],
    ['safe-retry `read`, metrics on', () => oursMetrics.read(fn)],
    ['safe-retry `read`, attempt reads `ctx.signal`', () => ours.read(readSignal)],
    ['safe-retry `write` (key)', () => ours.write({ idempotencyKey: 'order-1:charge' }, fn)],
    ['cockatiel `retry(handleAll,{maxAttempts:2})`', () => cRetry.execute(fn)],
    ['p-retry `pRetry(fn,{retries:2})`', () => pRetry(fn, { retries: 2 })],
    ['safe-retry `read` + breaker', () => oursBreaker.read(fn)],
    ['safe-retry `read` + breaker + budget', () => oursFull.read(fn)],
    ['cockatiel `wrap(retry, circuitBreaker)`', () => cRetryBreaker.execute(fn)],
    ['p-retry + cockatiel breaker', () => pRetry(() => pBreaker.execute(fn), { retries: 2 })],
  ];
  void cBreaker;
}

async function measure(run, calls) {
  const start = process.hrtime.bigint();
  for (let i = 0; i < calls; i++) await run();
  return Number(process.hrtime.bigint() - start) / calls;
}

function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

export async function successPath({ rounds = 15, calls = 100_000 } = {}) {
  const list = variants();
  const samples = list.map(() => []);
  // Warm-up round lets every variant reach optimised code before anything is recorded.
  for (const [, run] of list) await measure(run, calls);
  for (let r = 0; r < rounds; r++) {
    // Rotate and alternate the order each round: no variant always runs first or right after GC pressure.
    const order = list.map((_, i) => i);
    const rotated = order.slice(r % order.length).concat(order.slice(0, r % order.length));
    if (r % 2 === 1) rotated.reverse();
    for (const i of rotated) samples[i].push(await measure(list[i][1], calls));
  }
  const bare = median(samples[0]);
  const rows = list.map(([name], i) => {
    const m = median(samples[i]);
    const lo = Math.min(...samples[i]);
    const hi = Math.max(...samples[i]);
    return { name, median: m, lo, hi, overhead: m - bare, ratio: m / bare };
  });
  return { rounds, calls, rows };
}

export function successPathTable({ rounds, calls, rows }) {
  const lines = [
    `Success path, ${rounds} alternating rounds x ${calls.toLocaleString('en')} sequential awaited calls per variant; node ${process.version}.`,
    '',
    '| variant | median ns/call | min..max ns/call | overhead vs bare (ns) | ratio vs bare |',
    '|---|---:|---:|---:|---:|',
  ];
  for (const r of rows) {
    lines.push(`| ${r.name} | ${r.median.toFixed(1)} | ${r.lo.toFixed(0)}..${r.hi.toFixed(0)} | ${r.overhead.toFixed(1)} | ${r.ratio.toFixed(2)}x |`);
  }
  const off = rows.find((r) => r.name === 'safe-retry `read`');
  const on = rows.find((r) => r.name === 'safe-retry `read`, metrics on');
  if (off && on) {
    lines.push('', `Metrics on vs off (safe-retry \`read\`): ${(on.median / off.median).toFixed(2)}x, ${(on.median - off.median).toFixed(1)} ns/call.`);
  }
  return lines.join('\n');
}
