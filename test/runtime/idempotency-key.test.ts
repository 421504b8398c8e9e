import { describe, it, expect } from 'vitest';
import fc from 'fast-check';
import { idempotencyKey } from '../../src/runtime/index.js';
import { uuidV5, uuidV7 } from '../../src/runtime/idempotency-key.js';

const DNS = idempotencyKey.namespaces.dns;
const URL_NS = idempotencyKey.namespaces.url;
const UUID_V5 = /^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const UUID_V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('UUID v5 (idempotencyKey.fromParts)', () => {
  it('matches the RFC 9562 DNS-namespace example', () => {
    expect(idempotencyKey.fromParts(DNS, 'www.example.com')).toBe('2ed6657d-e927-568b-95e1-2665a8aea6a2');
  });

  it('matches other published vectors, including non-ASCII names (UTF-8)', () => {
    expect(uuidV5(DNS, 'hello.example.com')).toBe('fdda765f-fc57-5604-a269-52a7df8164ec');
    expect(uuidV5(URL_NS, 'http://example.com/hello')).toBe('3bbcee75-cecc-5b56-8031-b6641c1ed1f1');
    expect(uuidV5(DNS, '日本')).toBe('c545f148-2f1e-5792-8646-ecd64f3bb671');
  });

  it('accepts an upper-case namespace', () => {
    expect(uuidV5(DNS.toUpperCase(), 'www.example.com')).toBe('2ed6657d-e927-568b-95e1-2665a8aea6a2');
  });

  it('rejects a namespace that is not a UUID and a call without parts', () => {
    expect(() => idempotencyKey.fromParts('payments', 'x')).toThrow(TypeError);
    expect(() => idempotencyKey.fromParts(DNS)).toThrow(TypeError);
  });

  it('is deterministic and version 5', () => {
    fc.assert(
      fc.property(fc.array(fc.oneof(fc.string(), fc.integer()), { minLength: 1, maxLength: 4 }), (parts) => {
        const a = idempotencyKey.fromParts(DNS, ...parts);
        expect(a).toMatch(UUID_V5);
        expect(idempotencyKey.fromParts(DNS, ...parts)).toBe(a);
      }),
    );
  });

  it('gives different part lists different keys (no ambiguity in how parts are joined)', () => {
    const part = fc.string({ unit: fc.constantFrom('a', 'b', '\\', '\u001f', 's') , maxLength: 4 });
    fc.assert(
      fc.property(fc.array(part, { minLength: 1, maxLength: 3 }), fc.array(part, { minLength: 1, maxLength: 3 }), (x, y) => {
        fc.pre(JSON.stringify(x) !== JSON.stringify(y));
        expect(idempotencyKey.fromParts(DNS, ...x)).not.toBe(idempotencyKey.fromParts(DNS, ...y));
      }),
      { numRuns: 2000 },
    );
    expect(idempotencyKey.fromParts(DNS, 'a', 'bc')).not.toBe(idempotencyKey.fromParts(DNS, 'ab', 'c'));
  });

  it('treats a number and its decimal string as the same part', () => {
    expect(idempotencyKey.fromParts(DNS, 42, 'capture')).toBe(idempotencyKey.fromParts(DNS, '42', 'capture'));
  });
});

describe('UUID v7 (idempotencyKey.random)', () => {
  it('is version 7 with the RFC variant and embeds the timestamp', () => {
    const at = Date.UTC(2026, 0, 2, 3, 4, 5, 678);
    const id = uuidV7(at);
    expect(id).toMatch(UUID_V7);
    expect(parseInt(id.replace(/-/g, '').slice(0, 12), 16)).toBe(at);
  });

  it('sorts in creation order within one process, even inside one millisecond', () => {
    const ids = Array.from({ length: 5000 }, () => idempotencyKey.random());
    expect(new Set(ids).size).toBe(ids.length);
    expect([...ids].sort()).toEqual(ids);
    for (const id of ids) expect(id).toMatch(UUID_V7);
  });

  it('stays ordered when the 12-bit counter overflows within one millisecond', () => {
    const at = Date.UTC(2030, 0, 1);
    const ids = Array.from({ length: 6000 }, () => uuidV7(at));
    expect([...ids].sort()).toEqual(ids);
    expect(new Set(ids).size).toBe(ids.length);
  });
});
