/**
 * Metrics through the real OpenTelemetry SDK: an in-memory exporter behind a periodic reader that
 * the tests flush, so every assertion is on values the SDK actually exported.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { metrics as otelMetrics } from '@opentelemetry/api';
import {
  AggregationTemporality,
  InMemoryMetricExporter,
  MeterProvider,
  PeriodicExportingMetricReader,
  type ResourceMetrics,
} from '@opentelemetry/sdk-metrics';
import { afterEach, describe, expect, it } from 'vitest';
import {
  createCircuitBreaker,
  createPolicyRegistry,
  createRetryBudget,
  createRetryPolicy,
  createTaskQueue,
  enableMetrics,
  NonRetryableTaskError,
  sqliteStore,
  type ResponseLike,
  type RuntimeMetrics,
} from '../../src/runtime/index.js';
import { httpError, transient } from './helpers.js';

interface Point {
  attributes: Record<string, unknown>;
  value: number;
}

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function sdk(): { metrics: RuntimeMetrics; provider: MeterProvider; collect: () => Promise<Map<string, Point[]>> } {
  const exporter = new InMemoryMetricExporter(AggregationTemporality.CUMULATIVE);
  // Exports only when flushed: the interval is far longer than any test.
  const reader = new PeriodicExportingMetricReader({ exporter, exportIntervalMillis: 3_600_000 });
  const provider = new MeterProvider({ readers: [reader] });
  cleanups.push(() => provider.shutdown());
  return {
    provider,
    metrics: enableMetrics({ meterProvider: provider }),
    async collect() {
      await reader.forceFlush();
      const exported = exporter.getMetrics();
      exporter.reset();
      return pointsOf(exported.at(-1));
    },
  };
}

function pointsOf(resource: ResourceMetrics | undefined): Map<string, Point[]> {
  const out = new Map<string, Point[]>();
  for (const scope of resource?.scopeMetrics ?? []) {
    for (const metric of scope.metrics) {
      out.set(metric.descriptor.name, metric.dataPoints.map((p) => ({ attributes: { ...p.attributes }, value: p.value as number })));
    }
  }
  return out;
}

/** The value of the one point with exactly these attributes, or 0 when the SDK exported none. */
function valueOf(points: Map<string, Point[]>, name: string, attributes: Record<string, unknown>): number {
  const matching = (points.get(name) ?? []).filter((p) => JSON.stringify(sortKeys(p.attributes)) === JSON.stringify(sortKeys(attributes)));
  expect(matching.length).toBeLessThanOrEqual(1);
  return matching[0]?.value ?? 0;
}

function sortKeys(o: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(o).sort(([a], [b]) => a.localeCompare(b)));
}

function response(status: number): ResponseLike {
  return { ok: status < 400, status, headers: { get: () => null } };
}

const fast = { initialDelayMs: 1, maxDelayMs: 2 };

describe('retry policy metrics', () => {
  it('counts calls by outcome, attempts, retries and give-ups by reason, per policy and kind', async () => {
    const { metrics, collect } = sdk();
    const policy = createRetryPolicy({ ...fast, name: 'payments', metrics });
    const other = createRetryPolicy({ ...fast, name: 'search', metrics });

    await policy.read(() => 1);
    let n = 0;
    await policy.read(() => {
      if (n++ === 0) throw transient();
      return 2;
    });
    await expect(policy.write({ idempotencyKey: 'order-1:charge' }, () => Promise.reject(transient()))).rejects.toThrow();
    await expect(policy.read(() => Promise.reject(httpError(404)))).rejects.toThrow();
    await expect(policy.read(() => response(404))).resolves.toMatchObject({ status: 404 });
    const deferred = await policy.write(
      { idempotencyKey: 'order-2:charge', handoff: async () => ({ taskId: 'task-1' }) },
      () => Promise.reject(transient()),
    );
    expect(deferred).toMatchObject({ taskId: 'task-1', reason: 'attempts' });
    await expect(policy.read(() => 1, { signal: AbortSignal.abort() })).rejects.toThrow();
    await other.read(() => 1);

    const p = await collect();
    const read = { policy: 'payments', kind: 'read' };
    const write = { policy: 'payments', kind: 'write' };
    expect(valueOf(p, 'safe_retry.calls', { ...read, outcome: 'success' })).toBe(2);
    expect(valueOf(p, 'safe_retry.calls', { ...read, outcome: 'gave_up' })).toBe(2);
    expect(valueOf(p, 'safe_retry.calls', { ...read, outcome: 'aborted' })).toBe(1);
    expect(valueOf(p, 'safe_retry.calls', { ...write, outcome: 'gave_up' })).toBe(1);
    expect(valueOf(p, 'safe_retry.calls', { ...write, outcome: 'deferred' })).toBe(1);
    expect(valueOf(p, 'safe_retry.calls', { policy: 'search', kind: 'read', outcome: 'success' })).toBe(1);
    expect(valueOf(p, 'safe_retry.attempts', read)).toBe(1 + 2 + 1 + 1);
    expect(valueOf(p, 'safe_retry.attempts', write)).toBe(3 + 3);
    expect(valueOf(p, 'safe_retry.retries', read)).toBe(1);
    expect(valueOf(p, 'safe_retry.retries', write)).toBe(4);
    expect(valueOf(p, 'safe_retry.giveups', { ...read, reason: 'not-retryable' })).toBe(2);
    expect(valueOf(p, 'safe_retry.giveups', { ...write, reason: 'attempts' })).toBe(2);
    // Combinations that never happened are not exported as zeros.
    expect(p.get('safe_retry.giveups')).toHaveLength(2);
  });

  it('keeps counting into the same series when a registry swaps a policy\'s limits', async () => {
    const { metrics, collect } = sdk();
    const config = (retries: number) => ({ retry: { orders: { ...fast, maxAttempts: retries } } });
    const registry = createPolicyRegistry(config(3), { metrics });
    await expect(registry.retry('orders').read(() => Promise.reject(transient()))).rejects.toThrow();
    registry.update(config(2));
    await expect(registry.retry('orders').read(() => Promise.reject(transient()))).rejects.toThrow();
    const p = await collect();
    expect(valueOf(p, 'safe_retry.attempts', { policy: 'orders', kind: 'read' })).toBe(5);
    expect(valueOf(p, 'safe_retry.giveups', { policy: 'orders', kind: 'read', reason: 'attempts' })).toBe(2);
  });
});

describe('budget and breaker metrics', () => {
  it('counts budget refusals and reports what is left', async () => {
    const { metrics, collect } = sdk();
    const budget = createRetryBudget({ name: 'payments', ratio: 0, minPerSecond: 0, metrics });
    const policy = createRetryPolicy({ ...fast, name: 'payments', budget, metrics });
    await expect(policy.read(() => Promise.reject(transient()))).rejects.toThrow();
    await expect(policy.read(() => Promise.reject(transient()))).rejects.toThrow();
    const p = await collect();
    expect(valueOf(p, 'safe_retry.budget.exhausted', { budget: 'payments' })).toBe(2);
    expect(valueOf(p, 'safe_retry.budget.available', { budget: 'payments' })).toBe(0);
    expect(valueOf(p, 'safe_retry.giveups', { policy: 'payments', kind: 'read', reason: 'budget' })).toBe(2);
  });

  it('reports the state, every transition and the calls refused while open', async () => {
    const { metrics, collect } = sdk();
    let now = 0;
    const breaker = createCircuitBreaker({ name: 'payments', minimumThroughput: 1, breakMs: 1000, now: () => now, metrics });
    const policy = createRetryPolicy({ ...fast, name: 'payments', breaker, metrics });
    await expect(policy.read(() => Promise.reject(httpError(503)))).rejects.toThrow();
    await expect(policy.read(() => 1)).rejects.toThrow(/Circuit breaker is open/);

    let p = await collect();
    const state = (s: string) => valueOf(p, 'safe_retry.breaker.state', { breaker: 'payments', state: s });
    expect([state('closed'), state('open'), state('half-open')]).toEqual([0, 1, 0]);
    expect(valueOf(p, 'safe_retry.breaker.transitions', { breaker: 'payments', from: 'closed', to: 'open' })).toBe(1);
    expect(valueOf(p, 'safe_retry.breaker.rejections', { breaker: 'payments' })).toBe(1);
    expect(valueOf(p, 'safe_retry.giveups', { policy: 'payments', kind: 'read', reason: 'circuit-open' })).toBe(2);

    now += 1000;
    await expect(policy.read(() => 1)).resolves.toBe(1);
    p = await collect();
    expect([state('closed'), state('open'), state('half-open')]).toEqual([1, 0, 0]);
    expect(valueOf(p, 'safe_retry.breaker.transitions', { breaker: 'payments', from: 'open', to: 'half-open' })).toBe(1);
    expect(valueOf(p, 'safe_retry.breaker.transitions', { breaker: 'payments', from: 'half-open', to: 'closed' })).toBe(1);
  });
});

describe('task queue metrics', () => {
  it('reports depth by status from the store, completions, and failures split by whether the task is now FAILED', async () => {
    const { metrics, collect } = sdk();
    const dir = mkdtempSync(path.join(tmpdir(), 'safe-retry-metrics-'));
    const store = sqliteStore({ filename: path.join(dir, 'tasks.db') });
    cleanups.push(async () => {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    });
    const queue = createTaskQueue({
      store,
      name: 'orders',
      metrics,
      baseDelayMs: 60_000,
      onError: () => {},
      handlers: {
        'order.confirm': async () => {},
        'order.refund': async () => {
          throw new NonRetryableTaskError('no such order');
        },
        'order.ship': async () => {
          throw new Error('warehouse down');
        },
      },
    });
    await queue.enqueue('order.confirm', { id: 1 });
    await queue.enqueue('order.confirm', { id: 2 });
    await queue.enqueue('order.refund', { id: 3 });
    await queue.enqueue('order.ship', { id: 4 });
    let p = await collect();
    expect(valueOf(p, 'safe_retry.queue.depth', { queue: 'orders', status: 'pending' })).toBe(4);

    await queue.runOnce();
    p = await collect();
    expect(valueOf(p, 'safe_retry.queue.depth', { queue: 'orders', status: 'completed' })).toBe(2);
    expect(valueOf(p, 'safe_retry.queue.depth', { queue: 'orders', status: 'failed' })).toBe(1);
    expect(valueOf(p, 'safe_retry.queue.depth', { queue: 'orders', status: 'pending' })).toBe(1);
    expect(valueOf(p, 'safe_retry.queue.depth', { queue: 'orders', status: 'running' })).toBe(0);
    expect(valueOf(p, 'safe_retry.queue.task.completions', { queue: 'orders', task_kind: 'order.confirm' })).toBe(2);
    expect(valueOf(p, 'safe_retry.queue.task.failures', { queue: 'orders', task_kind: 'order.refund', final: true })).toBe(1);
    expect(valueOf(p, 'safe_retry.queue.task.failures', { queue: 'orders', task_kind: 'order.ship', final: false })).toBe(1);
  });

  it('skips the depth of a store it cannot read, reporting the first failure only', async () => {
    const { metrics, collect } = sdk();
    const dir = mkdtempSync(path.join(tmpdir(), 'safe-retry-metrics-'));
    const store = sqliteStore({ filename: path.join(dir, 'tasks.db') });
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    const errors: string[] = [];
    const queue = createTaskQueue({ store, metrics, handlers: { t: () => {} }, onError: (_e, where) => errors.push(where) });
    await queue.migrate();
    await store.close();
    const p = await collect();
    await collect();
    expect(p.get('safe_retry.queue.depth') ?? []).toEqual([]);
    expect(errors).toEqual(['metrics: reading queue depth']);
  });
});

describe('enableMetrics', () => {
  it('takes the global MeterProvider, loading @opentelemetry/api only when asked', async () => {
    const exporter = new InMemoryMetricExporter(AggregationTemporality.CUMULATIVE);
    const reader = new PeriodicExportingMetricReader({ exporter, exportIntervalMillis: 3_600_000 });
    const provider = new MeterProvider({ readers: [reader] });
    otelMetrics.setGlobalMeterProvider(provider);
    cleanups.push(async () => {
      otelMetrics.disable();
      await provider.shutdown();
    });
    const policy = createRetryPolicy({ name: 'global', metrics: enableMetrics() });
    await policy.read(() => 1);
    await reader.forceFlush();
    const p = pointsOf(exporter.getMetrics().at(-1));
    expect(valueOf(p, 'safe_retry.calls', { policy: 'global', kind: 'read', outcome: 'success' })).toBe(1);
    expect(exporter.getMetrics().at(-1)?.scopeMetrics[0]?.scope.name).toBe('eslint-plugin-safe-retry');
  });

  it('gives one result per meter, so instruments are registered once, and accepts a Meter directly', () => {
    const provider = new MeterProvider();
    cleanups.push(() => provider.shutdown());
    const meter = provider.getMeter('mine');
    expect(enableMetrics({ meter })).toBe(enableMetrics({ meter }));
    expect(() => enableMetrics({ meter, meterProvider: provider })).toThrow(TypeError);
  });

  it('refuses a metrics option it did not make', () => {
    expect(() => createRetryPolicy({ metrics: { meter: {} } as RuntimeMetrics })).toThrow(/enableMetrics\(\)/);
  });
});

describe('the runtime ships to production', () => {
  const src = path.resolve(import.meta.dirname, '../../src');
  const filesUnder = (root: string): string[] => {
    const files: string[] = [];
    const walk = (dir: string): void => {
      for (const name of readdirSync(dir)) {
        const file = path.join(dir, name);
        if (statSync(file).isDirectory()) walk(file);
        else if (file.endsWith('.ts')) files.push(file);
      }
    };
    walk(root);
    return files;
  };
  /** Every import of the files under `root` that `allowed` refuses, as `file: specifier`. */
  const offendersUnder = (root: string, allowed: (specifier: string, target: string | undefined) => boolean): string[] => {
    const offenders: string[] = [];
    for (const file of filesUnder(root)) {
      const text = readFileSync(file, 'utf8');
      for (const match of text.matchAll(/\b(?:from|import)\s*\(?\s*['"]([^'"]+)['"]/g)) {
        const specifier = match[1]!;
        const target = specifier.startsWith('.') ? path.resolve(path.dirname(file), specifier) : undefined;
        if (!allowed(specifier, target)) offenders.push(`${path.relative(src, file)}: ${specifier}`);
      }
    }
    return offenders;
  };
  const inside = (target: string | undefined, dir: string) => target !== undefined && target.startsWith(path.join(src, dir) + path.sep);

  it('imports only node: built-ins, its own files and src/shared, so @opentelemetry/api is never loaded unless asked for', () => {
    expect(filesUnder(path.join(src, 'runtime')).length).toBeGreaterThan(10);
    const offenders = offendersUnder(path.join(src, 'runtime'), (specifier, target) => specifier.startsWith('node:') || inside(target, 'runtime') || inside(target, 'shared'));
    expect(offenders).toEqual([]);
  });

  it('shares with the linter only src/shared, which imports nothing outside itself (no eslint, typescript, yaml parser or node:)', () => {
    expect(filesUnder(path.join(src, 'shared')).length).toBeGreaterThan(5);
    expect(offendersUnder(path.join(src, 'shared'), (_specifier, target) => inside(target, 'shared'))).toEqual([]);
  });
});
