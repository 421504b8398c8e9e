/**
 * What a retry's way back awaits before it calls again:
 * - "repair, then try again" (issue 13 item 5): with no count of attempts, an awaited repair (a
 *   one-time-password prompt, a token refresh, issuing a certificate) makes the way back no
 *   transient-failure retry: no backoff, jitter or time budget is asked of it, whatever the
 *   repair's own wait (only a write it sends again is judged). Under a count, the repair is one
 *   step of a retry, judged as one.
 * - an awaited call of a function of the same file (or class) with no sleep and no timer but a
 *   timeout that only rejects adds no wait; a call that cannot be followed, or one that sleeps,
 *   still may wait (the schedule stays unknown).
 */
import { describe, expect, it } from 'vitest';
import { analyse, lint } from '../helpers/model.js';

const PAUSE_RULES = new Set(['require-exponential-backoff', 'require-jitter', 'max-retry-duration']);
const pauses = (code: string) => lint(code).filter((f) => PAUSE_RULES.has(f.rule)).map((f) => `${f.line} ${f.rule} ${f.messageId}`).sort();
const handWritten = (code: string) => analyse(code).filter((s) => s.library === 'hand-written');

const REFRESH = `async function refreshToken(): Promise<void> {
  const res = await fetch('/oauth/token', { method: 'POST', body: refreshBody() });
  token = (await res.json()).access_token;
}`;

const SLEEP = 'const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));';

describe('repair, then try again', () => {
  it('is silent on a token refresh then one more call, the refresh a local function with no wait', () => {
    const code = `${REFRESH}
export async function call(req: Req): Promise<Res> {
  try {
    return await send(req);
  } catch (e) {
    if (isUnauthorized(e)) {
      await refreshToken();
      return call(req);
    }
    throw e;
  }
}`;
    expect(pauses(code)).toEqual([]);
    // Not a transient-failure retry, but nothing bounds it: a refresh that keeps failing calls
    // forever, so its count is judged, and so is the unkeyed write it may send again.
    expect(lint(code).map((f) => f.rule).sort()).toEqual(['max-retry-attempts', 'no-unsafe-write-retry']);
  });

  it('is silent on a refresh under a flag set once (`refreshed = true`)', () => {
    const code = `${REFRESH}
export async function call(req: Req, refreshed = false): Promise<Res> {
  try {
    return await send(req);
  } catch (e) {
    if (!refreshed && isUnauthorized(e)) {
      await refreshToken();
      return call(req, true);
    }
    throw e;
  }
}`;
    expect(pauses(code)).toEqual([]);
  });

  it('is silent on a one-time-password prompt awaited inside its own try (npm-registry-fetch)', () => {
    const code = `export function regFetch(uri: string, opts: Opts): Promise<Res> {
  const p = fetch(uri, opts).then((res) => checkResponse(res));
  return p.catch(async (er) => {
    if (er instanceof HttpErrorAuthOTP) {
      let otp;
      try {
        otp = await opts.otpPrompt();
      } catch (_) {
        // ignore
      }
      if (!otp) {
        throw er;
      }
      return regFetch(uri, { ...opts, otp });
    }
    throw er;
  });
}`;
    expect(pauses(code)).toEqual([]);
  });

  it('is silent on issuing a missing certificate (a method of the same class), then connecting again', () => {
    const code = `export class Gateway {
  async connect(domain: string): Promise<Conn> {
    try {
      return await this.tls.open(domain);
    } catch (e) {
      if (e.code === 'CERT_NOT_FOUND') {
        await this.issueCertificate(domain);
        return this.connect(domain);
      }
      throw e;
    }
  }
  private async issueCertificate(domain: string): Promise<void> {
    const cert = await fetch(this.caUrl, { method: 'POST', body: domain });
    this.store.save(domain, await cert.text());
  }
}`;
    expect(pauses(code)).toEqual([]);
  });

  it('still judges a counted retry whose way back awaits the same repair', () => {
    const code = `${REFRESH}
export async function call(req: Req, attempt = 0): Promise<Res> {
  try {
    return await send(req);
  } catch (e) {
    if (attempt < 3) {
      await refreshToken();
      return call(req, attempt + 1);
    }
    throw e;
  }
}`;
    expect(pauses(code)).toEqual(['11 require-exponential-backoff noDelay', '11 require-jitter noJitter']);
  });

  it('still judges a repair under a counter kept outside the function', () => {
    const code = `${REFRESH}
let failures = 0;
export function load(id: string): Promise<Item> {
  return getItem(id).catch(async (e) => {
    failures++;
    if (failures > 4) throw e;
    await refreshToken();
    return load(id);
  });
}`;
    expect(pauses(code)).toEqual(['11 require-exponential-backoff noDelay', '11 require-jitter noJitter']);
  });

  it('is no repair when the way back only logs before calling again', () => {
    const code = `async function logFailure(e: unknown): Promise<void> {
  console.error('load failed', e);
}
export async function load(id: string): Promise<Item> {
  try {
    return await getItem(id);
  } catch (e) {
    await logFailure(e);
    return load(id);
  }
}`;
    expect(pauses(code)).toEqual(['9 require-exponential-backoff noDelay', '9 require-jitter noJitter']);
  });
});

describe('what counts as the repair', () => {
  const shape = (awaited: string, helper = '') => `${helper}
export async function load(id: string): Promise<Item> {
  try {
    return await getItem(id);
  } catch (e) {
    await ${awaited};
    return load(id);
  }
}`;
  const NOTHING = 'async function nothing(): Promise<void> { cache.clear(); }';

  it('reads logging, metrics and error reports as telling of the failure, not fixing it', () => {
    for (const awaited of ['this.logger.warn(e)', 'reportError(e)', 'metrics.increment("load.failed")', 'Sentry.flush()']) {
      // The log call is a way back with no pause: an immediate retry, with no count.
      expect(lint(shape(awaited)).map((f) => f.rule), awaited).toContain('max-retry-attempts');
    }
  });

  it('reads a log-in, a reconnect or a cache reset as a repair', () => {
    for (const awaited of ['logIn(credentials)', 'this.client.reconnect()', 'nothing()']) {
      // No pause is asked of a repair; with no bound on it, its count still is.
      expect(lint(shape(awaited, NOTHING)).map((f) => f.rule), awaited).toEqual(['max-retry-attempts']);
    }
  });
});

describe('an awaited call on the way back', () => {
  const CONDUIT = `async function getConduitId(forceRefresh = false): Promise<string> {
  return new Promise((resolve, reject) => {
    const cleanup = () => {
      clearTimeout(timeout);
      socket.off('conduitData', onData);
    };
    const onData = (data: { conduitId?: string }) => {
      cleanup();
      if (data?.conduitId) resolve(data.conduitId);
      else reject(new Error('Invalid conduit data received'));
    };
    const timeout = setTimeout(() => {
      cleanup();
      reject(new Error('Timeout waiting for conduit data'));
    }, 15000);
    socket.on('conduitData', onData);
    socket.emit('getConduitData', { forceRefresh });
  });
}`;

  it('adds no wait when it calls a local function with no sleep and only a rejecting timeout (dotabod conduitSetup)', () => {
    const code = `${CONDUIT}
export async function updateConduitShard(sessionId: string, conduitId: string, retryCount = 0): Promise<void> {
  try {
    const success = await sharedUpdateConduitShard(sessionId, conduitId, retryCount);
    if (!success && retryCount < 5) {
      const freshConduitId = await getConduitId(true);
      return updateConduitShard(sessionId, freshConduitId, retryCount + 1);
    }
  } catch (error) {
    if (retryCount < 5) {
      const delay = Math.min(1000 * 2 ** retryCount, 30000);
      await new Promise((resolve) => setTimeout(resolve, delay));
      return updateConduitShard(sessionId, conduitId, retryCount + 1);
    }
  }
}`;
    expect(handWritten(code)).toMatchObject([{ attempts: 6, growth: 'none', worstCaseMs: 31000, jitter: false }]);
    expect(pauses(code)).toEqual(['25 max-retry-duration needsQueue', '25 require-exponential-backoff noDelay', '25 require-jitter noJitter']);
  });

  it('adds no wait in a counted loop whose catch awaits a local reconnect', () => {
    const code = `async function reconnect(): Promise<void> {
  await client.close();
  client = await createClient(url);
}
async function createClient(u: string): Promise<Client> {
  return new Client(u);
}
export async function query(sql: string): Promise<Rows> {
  for (let i = 0; i < 3; i++) {
    try {
      return await client.query(sql);
    } catch (e) {
      await reconnect();
    }
  }
  throw new Error('unreachable');
}`;
    // client.close() cannot be followed: the reconnect may wait, the schedule stays unknown.
    expect(pauses(code)).toEqual([]);
    const readable = code.replace('  await client.close();\n', '');
    expect(pauses(readable)).toEqual(['8 require-exponential-backoff noDelay', '8 require-jitter noJitter']);
  });

  it('keeps a local function that sleeps as a wait of unknown length', () => {
    const code = `${SLEEP}
async function recover(): Promise<void> {
  invalidateCache();
  await sleep(500);
}
export async function load(id: string): Promise<Item> {
  for (let i = 0; i < 3; i++) {
    try {
      return await getItem(id);
    } catch (e) {
      await recover();
    }
  }
  throw new Error('failed');
}`;
    expect(handWritten(code)[0]).toMatchObject({ attempts: 3 });
    expect(handWritten(code)[0]!.growth).not.toBe('none');
  });

  it('keeps an imported function, a repeating timer and a timer that resolves as possible waits', () => {
    const loop = (helper: string, call: string) => `${helper}
export async function load(id: string): Promise<Item> {
  for (let i = 0; i < 3; i++) {
    try {
      return await getItem(id);
    } catch (e) {
      await ${call};
    }
  }
  throw new Error('failed');
}`;
    const imported = loop("import { resetPool } from './pool';", 'resetPool()');
    const interval = loop(`function settle(): Promise<void> {
  return new Promise((resolve) => { const t = setInterval(() => { if (ready()) { clearInterval(t); resolve(); } }, 100); });
}`, 'settle()');
    const resolving = loop(`function settle(): Promise<void> {
  return new Promise((resolve, reject) => { setTimeout(() => { if (ready()) resolve(); else reject(new Error('x')); }, 100); });
}`, 'settle()');
    for (const code of [imported, interval, resolving]) {
      expect(handWritten(code)[0]!.growth).toBe('unknown');
      expect(pauses(code)).toEqual([]);
    }
  });
});

describe('a `for` loop whose response branch goes straight on while its catch backs off', () => {
  const loop = (branch: string) => `export async function callModel(prompt: string) {
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      const res = await fetch('https://llm.example.com/v1/complete', { method: 'POST', body: JSON.stringify({ prompt }) });
      if (res.status >= 500) ${branch}
      return await res.json();
    } catch (e) {
      await new Promise((r) => setTimeout(r, 2 ** attempt * 500 * Math.random()));
    }
  }
  throw new Error('failed');
}
`;

  it('retries a 5xx with no wait: the `continue` goes through the update, which counts the attempt', () => {
    expect(pauses(loop('continue;'))).toEqual(['5 require-exponential-backoff noDelay', '5 require-jitter noJitter']);
  });

  it('look-alike: the branch waits before it goes on', () => {
    expect(pauses(loop('{ await new Promise((r) => setTimeout(r, 2 ** attempt * 500 * Math.random())); continue; }'))).toEqual([]);
  });
});
