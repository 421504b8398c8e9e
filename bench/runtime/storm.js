// Retry-storm simulation in virtual time.
//
// 100 clients send Poisson traffic to one dependency with fixed capacity. The dependency fails
// completely for an outage window, then recovers. Each retry strategy runs the same seeded traffic.
// The baselines are small loops written here (schedules only); "safe-retry" rows run the REAL
// engine from dist/: createRetryPolicy().read() with createRetryBudget() and createCircuitBreaker(),
// under a virtual clock that replaces setTimeout/clearTimeout/performance.now for the run.
import { createCircuitBreaker, createRetryBudget, createRetryPolicy } from '../../dist/runtime/index.js';
import { mulberry32 } from '../lib/random.js';

const TICK_MS = 50;
const CLIENTS = 100;
const RATE_PER_CLIENT = 10; // requests per second per client -> 1000 rps offered
const CAPACITY = 1.5 * CLIENTS * RATE_PER_CLIENT; // attempts per second the dependency can serve

// --- deterministic randomness ------------------------------------------------------------------

function poisson(lambda, rnd) {
  const l = Math.exp(-lambda);
  let k = 0;
  let p = 1;
  do {
    k++;
    p *= rnd();
  } while (p > l);
  return k - 1;
}

// --- virtual clock -----------------------------------------------------------------------------
class VirtualClock {
  now = 0;
  #heap = [];
  #seq = 0;

  setTimeout = (cb, ms, ...args) => {
    const t = { at: this.now + Math.max(0, Number(ms) || 0), seq: this.#seq++, cb, args, cancelled: false };
    this.#push(t);
    return t;
  };

  clearTimeout = (t) => {
    if (t && typeof t === 'object') t.cancelled = true;
  };

  #less(a, b) {
    return a.at < b.at || (a.at === b.at && a.seq < b.seq);
  }

  #push(t) {
    const h = this.#heap;
    h.push(t);
    let i = h.length - 1;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (!this.#less(h[i], h[p])) break;
      [h[i], h[p]] = [h[p], h[i]];
      i = p;
    }
  }

  #pop() {
    const h = this.#heap;
    const top = h[0];
    const last = h.pop();
    if (h.length > 0) {
      h[0] = last;
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        const r = l + 1;
        let m = i;
        if (l < h.length && this.#less(h[l], h[m])) m = l;
        if (r < h.length && this.#less(h[r], h[m])) m = r;
        if (m === i) break;
        [h[i], h[m]] = [h[m], h[i]];
        i = m;
      }
    }
    return top;
  }

  /** Fires every timer due before `until`, letting promise continuations run between batches. */
  async runUntil(until) {
    for (;;) {
      let fired = 0;
      while (this.#heap.length > 0 && this.#heap[0].at < until) {
        const t = this.#pop();
        if (t.cancelled) continue;
        this.now = Math.max(this.now, t.at);
        t.cb(...t.args);
        fired++;
      }
      await drainMicrotasks();
      if (fired === 0 && !(this.#heap.length > 0 && this.#heap[0].at < until)) break;
    }
    this.now = until;
  }
}

const realSetImmediate = setImmediate;
const drainMicrotasks = () => new Promise((resolve) => realSetImmediate(resolve));

function installClock(clock) {
  const saved = { setTimeout: globalThis.setTimeout, clearTimeout: globalThis.clearTimeout, now: performance.now };
  globalThis.setTimeout = clock.setTimeout;
  globalThis.clearTimeout = clock.clearTimeout;
  performance.now = () => clock.now;
  return () => {
    globalThis.setTimeout = saved.setTimeout;
    globalThis.clearTimeout = saved.clearTimeout;
    delete performance.now;
  };
}

// --- the dependency ------------------------------------------------------------------------------
const OVERLOADED = Object.assign(new Error('503 Service Unavailable'), { status: 503 });

class Dependency {
  #bucket = [];
  attemptsByTick = [];

  constructor({ clock, rnd, outage, failureRate, model }) {
    this.clock = clock;
    this.rnd = rnd;
    this.outage = outage;
    this.failureRate = failureRate;
    this.model = model;
  }

  call() {
    return new Promise((resolve, reject) => this.#bucket.push(resolve, reject));
  }

  /** Answers everything sent during the tick that just ended; latency is one tick. */
  settleTick(tickStart) {
    const bucket = this.#bucket;
    this.#bucket = [];
    const n = bucket.length / 2;
    this.attemptsByTick.push(n);
    const down = this.outage !== undefined && tickStart >= this.outage.from && tickStart < this.outage.to;
    const capacity = (CAPACITY * TICK_MS) / 1000;
    let pSuccess;
    if (down) pSuccess = 0;
    else if (n <= capacity) pSuccess = 1 - this.failureRate;
    else {
      // 'shed': excess is refused cleanly, capacity is still served.
      // 'thrash': every excess request also costs work, so goodput falls as load grows.
      const goodput = this.model === 'thrash' ? Math.max(0, capacity - (n - capacity)) : capacity;
      pSuccess = (goodput / n) * (1 - this.failureRate);
    }
    for (let i = 0; i < bucket.length; i += 2) {
      if (this.rnd() < pSuccess) bucket[i](true);
      else bucket[i + 1](OVERLOADED);
    }
  }
}

// --- strategies ----------------------------------------------------------------------------------
const sleep = (ms) => new Promise((resolve) => globalThis.setTimeout(resolve, ms));

async function scheduleLoop(dep, attempts, delayFor) {
  for (let attempt = 1; ; attempt++) {
    try {
      await dep.call();
      return true;
    } catch {
      if (attempt >= attempts) return false;
      const d = delayFor(attempt);
      if (d > 0) await sleep(d);
    }
  }
}

const STRATEGIES = [
  {
    name: 'immediate retry (3 attempts)',
    client: () => (dep) => scheduleLoop(dep, 3, () => 0),
  },
  {
    name: 'p-retry defaults (11 attempts, 1 s x 2^n, no jitter)',
    client: () => (dep) => scheduleLoop(dep, 11, (n) => 1000 * 2 ** (n - 1)),
  },
  {
    name: 'exponential, no jitter (3 attempts, 500 ms x 2^n)',
    client: () => (dep) => scheduleLoop(dep, 3, (n) => Math.min(2000, 500 * 2 ** (n - 1))),
  },
  {
    name: 'exponential, full jitter (3 attempts)',
    client: (rnd) => (dep) => scheduleLoop(dep, 3, (n) => rnd() * Math.min(2000, 500 * 2 ** (n - 1))),
  },
  {
    name: 'safe-retry: budget only',
    client: (rnd, clock) => {
      const policy = createRetryPolicy({ random: rnd, budget: createRetryBudget({ now: () => clock.now }) });
      return (dep) => policy.read(() => dep.call()).then(() => true, () => false);
    },
  },
  {
    name: 'safe-retry: budget only, minPerSecond 1',
    client: (rnd, clock) => {
      const policy = createRetryPolicy({ random: rnd, budget: createRetryBudget({ minPerSecond: 1, now: () => clock.now }) });
      return (dep) => policy.read(() => dep.call()).then(() => true, () => false);
    },
  },
  {
    name: 'safe-retry: budget + breaker',
    client: (rnd, clock) => {
      const policy = createRetryPolicy({
        random: rnd,
        budget: createRetryBudget({ now: () => clock.now }),
        breaker: createCircuitBreaker({ now: () => clock.now }),
      });
      return (dep) => policy.read(() => dep.call()).then(() => true, () => false);
    },
  },
];

async function simulate(strategy, { durationMs, outage, failureRate = 0, model = 'shed', seed = 1 }) {
  const clock = new VirtualClock();
  const restore = installClock(clock);
  try {
    const rnd = mulberry32(seed);
    const dep = new Dependency({ clock, rnd: mulberry32(seed + 1), outage, failureRate, model });
    const clients = Array.from({ length: CLIENTS }, (_, i) => strategy.client(mulberry32(seed * 1000 + i), clock));
    const requests = [];
    const lambda = (RATE_PER_CLIENT * TICK_MS) / 1000;
    const pending = [];
    for (let t = 0; t < durationMs; t += TICK_MS) {
      for (const client of clients) {
        for (let k = poisson(lambda, rnd); k > 0; k--) {
          const rec = { start: t, end: -1, ok: false };
          requests.push(rec);
          pending.push(
            client(dep).then((ok) => {
              rec.ok = ok;
              rec.end = clock.now;
            }),
          );
        }
      }
      await clock.runUntil(t + TICK_MS);
      dep.settleTick(t);
      await drainMicrotasks();
    }
    // Let in-flight requests finish so every request has an outcome (p-retry can take minutes).
    for (let t = durationMs; pending.length > 0 && t < durationMs + 20 * 60_000; t += TICK_MS) {
      await clock.runUntil(t + TICK_MS);
      dep.settleTick(t);
      await drainMicrotasks();
      if (requests.every((r) => r.end >= 0)) break;
    }
    return { requests, attemptsByTick: dep.attemptsByTick };
  } finally {
    restore();
  }
}

function outageMetrics({ requests, attemptsByTick }, outage, durationMs) {
  const inOutage = (t) => t >= outage.from && t < outage.to;
  const issued = requests.filter((r) => inOutage(r.start)).length;
  let attempts = 0;
  attemptsByTick.forEach((n, i) => {
    if (inOutage(i * TICK_MS)) attempts += n;
  });
  // Peak offered load in any 1 s after the outage, as a multiple of capacity.
  const perSecond = [];
  attemptsByTick.forEach((n, i) => {
    const s = Math.floor((i * TICK_MS) / 1000);
    perSecond[s] = (perSecond[s] ?? 0) + n;
  });
  const after = perSecond.slice(outage.to / 1000, durationMs / 1000);
  const peak = Math.max(...after) / CAPACITY;
  // Healthy second: the dependency is not over capacity and >= 95% of the requests completing in
  // it succeed. Time to healthy: from the outage end until 10 healthy seconds in a row begin.
  // Both halves matter: p-retry's 11 attempts hide failures from callers while the dependency
  // stays overloaded, and a breaker keeps the dependency idle while callers fail fast.
  const done = [];
  for (const r of requests) {
    if (r.end < 0) continue;
    const s = Math.floor(r.end / 1000);
    done[s] ??= { ok: 0, all: 0 };
    done[s].all++;
    if (r.ok) done[s].ok++;
  }
  const healthy = (s) => done[s] !== undefined && done[s].ok / done[s].all >= 0.95 && (perSecond[s] ?? 0) <= CAPACITY;
  let recovery;
  for (let s = outage.to / 1000; s + 10 <= durationMs / 1000; s++) {
    let good = true;
    for (let k = s; k < s + 10; k++) if (!healthy(k)) good = false;
    if (good) {
      recovery = s - outage.to / 1000;
      break;
    }
  }
  return { amplification: attempts / issued, peak, recovery };
}

function successRate({ requests }) {
  const done = requests.filter((r) => r.end >= 0);
  return done.filter((r) => r.ok).length / done.length;
}

export async function stormTables({ quick = false } = {}) {
  const outage = { from: 20_000, to: 50_000 };
  const durationMs = quick ? 80_000 : 110_000;
  const steadyMs = quick ? 20_000 : 60_000;
  const rows = [];
  for (const s of STRATEGIES) {
    const shed = outageMetrics(await simulate(s, { durationMs, outage, model: 'shed' }), outage, durationMs);
    const thrash = outageMetrics(await simulate(s, { durationMs, outage, model: 'thrash' }), outage, durationMs);
    const p5 = successRate(await simulate(s, { durationMs: steadyMs, failureRate: 0.05 }));
    const p10 = successRate(await simulate(s, { durationMs: steadyMs, failureRate: 0.1 }));
    rows.push({ name: s.name, shed, thrash, p5, p10 });
  }
  const window = durationMs / 1000 - outage.to / 1000 - 10;
  const fmtRecovery = (r) => (r === undefined ? `not within ${window} s` : `${r} s`);
  const lines = [
    `${CLIENTS} clients x ${RATE_PER_CLIENT} rps (Poisson), dependency capacity ${CAPACITY} attempts/s (1.5x offered load),` +
      ` ${TICK_MS} ms ticks, one-tick latency. Full outage ${outage.from / 1000}-${outage.to / 1000} s, run ${durationMs / 1000} s.` +
      ` "shed": excess load is refused, capacity still served; "thrash": goodput = capacity - excess.` +
      ` Healthy second = load <= capacity and >= 95% of requests completing in it succeed; time to healthy = until 10 healthy seconds in a row.` +
      ` safe-retry rows: real engine, defaults (3 attempts, 500 ms x2 full jitter, cap 2 s, deadline 5 s; budget ratio 0.1 + 10/s per client; breaker 50%/10 calls/10 s, 5 s break).`,
    '',
    '| strategy | load amplification during outage | peak load after outage (x capacity), shed | time to healthy after outage, shed | time to healthy, thrash | success at 5% failures | success at 10% failures |',
    '|---|---:|---:|---:|---:|---:|---:|',
  ];
  for (const r of rows) {
    lines.push(
      `| ${r.name} | ${r.shed.amplification.toFixed(2)}x | ${r.shed.peak.toFixed(2)} | ${fmtRecovery(r.shed.recovery)} | ${fmtRecovery(r.thrash.recovery)} | ${(r.p5 * 100).toFixed(2)}% | ${(r.p10 * 100).toFixed(2)}% |`,
    );
  }
  return lines.join('\n');
}
