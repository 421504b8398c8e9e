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
  // What `policy.read(({ signal }) => fetch(url, { signal }))` pays besides fetch itself.
  const readSignal = (ctx) => {
    void ctx.signal;
    return fn();
  };
  // A caller signal that outlives the calls, such as a server's shutdown signal.
  const shutdown = new AbortController().signal;
  return [
    ['bare `await fn()`', () => fn()],
    ['safe-retry `read`', () => ours.read(fn)],
    ['safe-retry `read`, metrics on', () => oursMetrics.read(fn)],
    ['safe-retry `read`, attempt reads `ctx.signal`', () => ours.read(readSignal)],
    ['safe-retry `write` (key)', () => ours.write({ idempotencyKey: 'order-1:charge' }, fn)],
    ['safe-retry `read`, caller signal, attempt reads `ctx.signal`', () => ours.read(readSignal, { signal: shutdown })],
    ['cockatiel `retry(handleAll,{maxAttempts:2})`', () => cRetry.execute(fn)],
    ['cockatiel `retry`, attempt reads its `signal`', () => cRetry.execute(readSignal)],
    ['cockatiel `retry`, caller signal, attempt reads its `signal`', () => cRetry.execute(readSignal, shutdown)],
    ['p-retry `pRetry(fn,{retries:2})`', () => pRetry(fn, { retries: 2 })],
    ['safe-retry `read` + breaker', () => oursBreaker.read(fn)],
    ['safe-retry `read` + breaker + budget', () => oursFull.read(fn)],
    ['cockatiel `wrap(retry, circuitBreaker)`', () => cRetryBreaker.execute(fn)],
    ['p-retry + cockatiel breaker', () => pRetry(() => pBreaker.execute(fn), { retries: 2 })],
  ];
  void cBreaker;
}

/**
 * CPU time of this process (all its threads, garbage collection included) per call. On a machine
 * shared with other work, wall time also counts the moments this process waited for a core.
 */
async function measure(run, calls) {
  const start = process.cpuUsage();
  for (let i = 0; i < calls; i++) await run();
  const used = process.cpuUsage(start);
  return ((used.user + used.system) * 1000) / calls;
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
  // Ratios between two variants are taken round by round (the same minute of machine load),
  // then the median over rounds.
  const ratio = (a, b) => {
    const i = list.findIndex(([name]) => name === a);
    const j = list.findIndex(([name]) => name === b);
    if (i < 0 || j < 0) return undefined;
    const xs = samples[i].map((x, r) => x / samples[j][r]);
    return { median: median(xs), lo: Math.min(...xs), hi: Math.max(...xs) };
  };
  const bare = median(samples[0]);
  const rows = list.map(([name], i) => {
    const m = median(samples[i]);
    const lo = Math.min(...samples[i]);
    const hi = Math.max(...samples[i]);
    return { name, median: m, lo, hi, overhead: m - bare, ratio: m / bare };
  });
  const pairs = [
    ['safe-retry `read`, attempt reads `ctx.signal`', 'cockatiel `retry`, attempt reads its `signal`'],
    ['safe-retry `read`, attempt reads `ctx.signal`', 'safe-retry `read`'],
    ['safe-retry `read`, caller signal, attempt reads `ctx.signal`', 'cockatiel `retry`, caller signal, attempt reads its `signal`'],
    ['safe-retry `read`, metrics on', 'safe-retry `read`'],
  ];
  const ratios = new Map(pairs.map(([a, b]) => [`${a}|${b}`, ratio(a, b)]));
  return { rounds, calls, rows, ratios };
}

export function successPathTable({ rounds, calls, rows, ratios }) {
  const lines = [
    `Success path, ${rounds} alternating rounds x ${calls.toLocaleString('en')} sequential awaited calls per variant; node ${process.version}. ` +
      'Times are CPU time of the benchmark process per call (process.cpuUsage, garbage collection included), medians over rounds.',
    '',
    '| variant | median ns/call | min..max ns/call | overhead vs bare (ns) | ratio vs bare |',
    '|---|---:|---:|---:|---:|',
  ];
  for (const r of rows) {
    lines.push(`| ${r.name} | ${r.median.toFixed(1)} | ${r.lo.toFixed(0)}..${r.hi.toFixed(0)} | ${r.overhead.toFixed(1)} | ${r.ratio.toFixed(2)}x |`);
  }
  const pair = (a, b) => ratios.get(`${a}|${b}`);
  const fmt = (x) => (x === undefined ? 'n/a | n/a' : `${x.median.toFixed(2)}x | ${x.lo.toFixed(2)}..${x.hi.toFixed(2)}x`);
  const signal = 'safe-retry `read`, attempt reads `ctx.signal`';
  lines.push(
    '',
    'Ratios between two variants, taken round by round (the same minute of machine load): median and range over rounds.',
    '',
    '| comparison | median ratio | range | target |',
    '|---|---:|---:|---:|',
    `| attempt reading its signal / cockatiel's retry doing the same | ${fmt(pair(signal, 'cockatiel `retry`, attempt reads its `signal`'))} | <= 1.5x |`,
    `| attempt reading its signal / our \`read\` that does not read it | ${fmt(pair(signal, 'safe-retry `read`'))} | <= 2x |`,
    `| the same with a long-lived caller signal / cockatiel doing the same | ${fmt(pair('safe-retry `read`, caller signal, attempt reads `ctx.signal`', 'cockatiel `retry`, caller signal, attempt reads its `signal`'))} | |`,
    `| metrics on / off (safe-retry \`read\`) | ${fmt(pair('safe-retry `read`, metrics on', 'safe-retry `read`'))} | |`,
    '',
    "Our signal aborts at the policy deadline (to the millisecond) and at the caller's abort, and the policy rejects at that moment even if the operation ignores it; " +
      "cockatiel's retry has no deadline and hands the attempt the caller's signal, or one that never aborts. " +
      'Attempts that stop in the same millisecond share one signal and one timer (src/runtime/deadline.ts), so neither is created per call.',
  );
  return lines.join('\n');
}
