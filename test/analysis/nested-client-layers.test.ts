import { describe, expect, it } from 'vitest';
import { lint } from '../helpers/model.js';

const nested = (code: string) => lint(code).filter((f) => f.rule === 'no-nested-retry').map((f) => f.text);

const HEAD = `import pRetry from 'p-retry';
import { S3Client, PutObjectCommand } from '@aws-sdk/client-s3';
`;
const PUT = `new PutObjectCommand({ Bucket: 'b', Key: key, Body: 'x' })`;

describe('a retrying client under a retry, reached through the code the retry runs', () => {
  it('finds the client a function of the file sends through', () => {
    const code = `${HEAD}const s3 = new S3Client({ region: 'eu-west-1' });
async function put(key: string) { return s3.send(${PUT}); }
export const upload = (key: string) => pRetry(() => put(key), { retries: 2 });`;
    expect(nested(code)).toEqual(['put(key)']);
    expect(lint(code).find((f) => f.rule === 'no-nested-retry')).toBeDefined();
  });

  it('finds a client the class keeps (a field), called directly or through a method of the class', () => {
    const direct = `${HEAD}export class Store {
  private s3 = new S3Client({ region: 'eu-west-1' });
  upload(key: string) { return pRetry(() => this.s3.send(${PUT}), { retries: 2 }); }
}`;
    expect(nested(direct)).toEqual([`this.s3.send(${PUT})`]);
    const viaMethod = `${HEAD}export class Store {
  private s3: S3Client;
  constructor() { this.s3 = new S3Client({ region: 'eu-west-1' }); }
  private async put(key: string) { return this.s3.send(${PUT}); }
  upload(key: string) { return pRetry(() => this.put(key), { retries: 2 }); }
}`;
    expect(nested(viaMethod)).toEqual(['this.put(key)']);
  });

  it('follows two calls deep, and not into a function the called one only defines or a client told not to retry', () => {
    const twoDeep = `${HEAD}const s3 = new S3Client({});
async function send(key: string) { return s3.send(${PUT}); }
async function put(key: string) { await send(key); }
export const upload = (key: string) => pRetry(() => put(key), { retries: 2 });`;
    expect(nested(twoDeep)).toEqual(['put(key)']);
    const onlyDefines = `${HEAD}const s3 = new S3Client({});
function later(key: string) { return () => s3.send(${PUT}); }
export const upload = (key: string) => pRetry(() => later(key), { retries: 2 });`;
    expect(nested(onlyDefines)).toEqual([]);
    const off = `${HEAD}const s3 = new S3Client({ maxAttempts: 1 });
async function put(key: string) { return s3.send(${PUT}); }
export const upload = (key: string) => pRetry(() => put(key), { retries: 2 });`;
    expect(nested(off)).toEqual([]);
  });

  it('finds a client a function of the file picks and hands back, whole or in an object', () => {
    const picked = (pick: string) => `${HEAD}const ingest = new S3Client({ region: 'a' });
const published = new S3Client({ region: 'b', maxAttempts: 5 });
function clientFor(to: string) { return ${pick}; }
async function put(to: string, key: string) {
  const { client } = clientFor(to);
  return client.send(${PUT});
}
export const upload = (key: string) => pRetry(() => put('in', key), { retries: 2 });`;
    // Either client retries: the layer counts the one that retries least (3 calls).
    const both = picked("{ client: to === 'in' ? ingest : published, bucket: to }");
    expect(nested(both)).toEqual(["put('in', key)"]);
    expect(lint(both).find((f) => f.rule === 'no-nested-retry')?.text).toBe("put('in', key)");
    // The layer is the pick that retries least: one that makes a single call is no layer at all.
    const onceOrFive = `${HEAD}const once = new S3Client({ maxAttempts: 1 });
const five = new S3Client({ maxAttempts: 5 });
function clientFor(to: string) { return { client: to === 'a' ? once : five }; }
export const upload = (key: string) => pRetry(async () => { const { client } = clientFor('a'); return client.send(${PUT}); }, { retries: 2 });`;
    expect(nested(onceOrFive)).toEqual([]);
    // A pick that may be something else (a client made per call) leaves the receiver unknown.
    expect(nested(picked("{ client: to === 'in' ? ingest : new S3Client({ maxAttempts: 1 }) }"))).toEqual([]);
    const whole = `${HEAD}const ingest = new S3Client({});
const clientFor = (to: string) => ingest;
export const upload = (key: string) => pRetry(async () => { const s3 = clientFor('x'); return s3.send(${PUT}); }, { retries: 2 });`;
    expect(nested(whole)).toEqual([`s3.send(${PUT})`]);
  });
});
