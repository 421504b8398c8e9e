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
      'Attempts that stop in the same millisecond share one signal and one timer (src/runtime/deadline.ts), so a loop of calls creates neither per call; calls a millisecond or more apart are measured below.',
  );
  return lines.join('\n');
}

/**
 * Calls a millisecond or more apart, as a service that is not saturated makes them: each call's
 * deadline falls in a millisecond of its own, so it shares no slot (deadline.ts) with another.
 * Every call waits for a 1 ms timer first; reported is the CPU time per call beyond a bare call's,
 * the median of the per-round differences.
 */
export async function sparseCalls({ rounds = 7, calls = 1000 } = {}) {
  const ours = createRetryPolicy();
  const cRetry = retry(handleAll, { maxAttempts: 2 });
  const readSignal = (ctx) => {
    void ctx.signal;
    return fn();
  };
  const list = [
    ['bare `await fn()`', () => fn()],
    ['safe-retry `read`', () => ours.read(fn)],
    ['safe-retry `read`, attempt reads `ctx.signal`', () => ours.read(readSignal)],
    ['cockatiel `retry`, attempt reads its `signal`', () => cRetry.execute(readSignal)],
  ];
  const tick = () => new Promise((resolve) => setTimeout(resolve, 1));
  const paced = async (run, n) => {
    const start = process.cpuUsage();
    for (let i = 0; i < n; i++) {
      await tick();
      await run();
    }
    const used = process.cpuUsage(start);
    return ((used.user + used.system) * 1000) / n;
  };
  for (const [, run] of list) await paced(run, calls / 5);
  const samples = list.map(() => []);
  for (let r = 0; r < rounds; r++) {
    for (let k = 0; k < list.length; k++) {
      const i = (k + r) % list.length;
      samples[i].push(await paced(list[i][1], calls));
    }
  }
  const rows = list.map(([name], i) => {
    const extra = samples[i].map((x, r) => x - samples[0][r]);
    return { name, extra: median(extra), lo: Math.min(...extra), hi: Math.max(...extra) };
  });
  return { rounds, calls, rows };
}

export function sparseCallsTable({ rounds, calls, rows }) {
  const lines = [
    `Sparse calls, ${rounds} rotating rounds x ${calls.toLocaleString('en')} calls per variant, each after a 1 ms timer, so that no two calls share a deadline millisecond. ` +
      'CPU time per call beyond a bare call (the timer and the event-loop turn cancel out): median and range of the per-round differences.',
    '',
    '| variant | extra CPU ns/call | range |',
    '|---|---:|---:|',
  ];
  for (const r of rows.slice(1)) lines.push(`| ${r.name} | ${r.extra.toFixed(0)} | ${r.lo.toFixed(0)}..${r.hi.toFixed(0)} |`);
  lines.push(
    '',
    'Here every call pays for its own slot: one timer, cleared after the turn of the event loop, and one AbortSignal when the attempt reads it. ' +
      'In absolute terms that is microseconds against at least a millisecond between calls; the tight loop above is where the cost per call decides throughput.',
  );
  return lines.join('\n');
}
