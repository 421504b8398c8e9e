import { createHash, randomFillSync } from 'node:crypto';

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

const HEX: string[] = [];
for (let i = 0; i < 256; i++) HEX.push((i + 0x100).toString(16).slice(1));

function format(b: Uint8Array): string {
  const h = (i: number): string => HEX[b[i]!]!;
  return (
    h(0) + h(1) + h(2) + h(3) + '-' + h(4) + h(5) + '-' + h(6) + h(7) + '-' + h(8) + h(9) + '-' +
    h(10) + h(11) + h(12) + h(13) + h(14) + h(15)
  );
}

function parse(uuid: string): Buffer {
  return Buffer.from(uuid.replace(/-/g, ''), 'hex');
}

/** RFC 9562 name-based UUID (SHA-1). Same namespace and name give the same UUID, everywhere. */
export function uuidV5(namespace: string, name: string): string {
  if (!UUID_RE.test(namespace)) throw new TypeError(`namespace must be a UUID, got ${JSON.stringify(namespace)}`);
  const digest = createHash('sha1').update(parse(namespace)).update(name, 'utf8').digest();
  digest[6] = (digest[6]! & 0x0f) | 0x50;
  digest[8] = (digest[8]! & 0x3f) | 0x80;
  return format(digest);
}

const SEPARATOR = '\u001f';

/**
 * Joins parts so that different part lists never produce the same name: ('a', 'bc') and ('ab', 'c')
 * must not share a key. A single plain part is used verbatim, so it matches standard UUID v5.
 */
function encodeParts(parts: readonly (string | number | bigint)[]): string {
  let out = '';
  for (let i = 0; i < parts.length; i++) {
    const part = String(parts[i]);
    const escaped = part.includes('\\') || part.includes(SEPARATOR) ? part.replace(/\\/g, '\\\\').replace(/\u001f/g, '\\s') : part;
    out += i === 0 ? escaped : SEPARATOR + escaped;
  }
  return out;
}

// Random bytes are drawn in batches: one crypto call per 512 keys instead of one per key.
const POOL_SIZE = 16 * 512;
const pool = new Uint8Array(POOL_SIZE);
let poolOffset = POOL_SIZE;
let lastMs = -1;
let sequence = 0;

/**
 * RFC 9562 UUID v7: 48-bit Unix milliseconds, then randomness. Within one millisecond the 12-bit
 * rand_a field counts up from a random start (method 1 of §6.2), so keys from one process sort in
 * creation order; on overflow the timestamp borrows from the next millisecond.
 */
export function uuidV7(nowMs: number = Date.now()): string {
  if (poolOffset + 16 > POOL_SIZE) {
    randomFillSync(pool);
    poolOffset = 0;
  }
  const b = pool.subarray(poolOffset, poolOffset + 16);
  poolOffset += 16;
  let ms = Math.floor(nowMs);
  if (ms > lastMs) {
    // Start low in the counter space so a busy millisecond rarely overflows.
    sequence = ((b[6]! << 8) | b[7]!) & 0x7ff;
    lastMs = ms;
  } else {
    sequence++;
    if (sequence > 0xfff) {
      lastMs++;
      sequence = 0;
    }
    ms = lastMs;
  }
  b[0] = Math.floor(ms / 2 ** 40) & 0xff;
  b[1] = Math.floor(ms / 2 ** 32) & 0xff;
  b[2] = (ms >>> 24) & 0xff;
  b[3] = (ms >>> 16) & 0xff;
  b[4] = (ms >>> 8) & 0xff;
  b[5] = ms & 0xff;
  b[6] = 0x70 | (sequence >>> 8);
  b[7] = sequence & 0xff;
  b[8] = (b[8]! & 0x3f) | 0x80;
  return format(b);
}

export const idempotencyKey = {
  /** Well-known RFC 9562 namespaces, for interop; an application should mint its own with `random()`. */
  namespaces: {
    dns: '6ba7b810-9dad-11d1-80b4-00c04fd430c8',
    url: '6ba7b811-9dad-11d1-80b4-00c04fd430c8',
  },
  /**
   * A deterministic key (UUID v5) from a namespace UUID and the parts that identify one business
   * operation, e.g. `fromParts(PAYMENTS_NS, orderId, 'capture')`. Recomputing it after a crash or
   * in a task queue yields the same key, so the remote still deduplicates.
   */
  fromParts(namespace: string, ...parts: (string | number | bigint)[]): string {
    if (parts.length === 0) throw new TypeError('fromParts needs at least one part after the namespace');
    return uuidV5(namespace, encodeParts(parts));
  },
  /**
   * A fresh time-ordered key (UUID v7). Call it once per user action, outside the retried function:
   * a key minted per attempt is a new operation per attempt.
   */
  random(): string {
    return uuidV7();
  },
} as const;
