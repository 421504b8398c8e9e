import { describe, expect, it } from 'vitest';
import { analyse, lint } from '../../helpers/model.js';
import { rawSites, suggestions } from './suggest.js';

describe('aws-sdk-v3 descriptor', () => {
  it('reads a default client: 3 attempts, full-jitter exponential from 100 ms capped at 20 s (fine)', () => {
    const code = `
      import { S3Client, GetObjectCommand } from '@aws-sdk/client-s3';
      const s3 = new S3Client({ region: 'eu-west-1' });
      export const get = (Key: string) => s3.send(new GetObjectCommand({ Bucket, Key }));
    `;
    const sites = analyse(code);
    expect(sites).toHaveLength(1);
    expect(sites[0]).toMatchObject({
      library: 'aws-sdk-v3', label: 'new S3Client()', attempts: 3, growth: 'exponential', initialMs: 100, multiplier: 2,
      maxMs: 20000, jitter: true, filter: 'library-default', clientLevel: true, worstCaseMs: 300, attemptsAt: undefined,
    });
    expect(lint(code)).toEqual([]);
  });

  it('counts maxAttempts as total attempts, also through a namespace import and a const (fine)', () => {
    const code = `
      const ddb = require('@aws-sdk/client-dynamodb');
      const config = { region: process.env.AWS_REGION, maxAttempts: 4 };
      const client = new ddb.DynamoDBClient(config);
    `;
    const [site] = analyse(code, { js: true });
    expect(site).toMatchObject({ label: 'new ddb.DynamoDBClient()', attempts: 4, attemptsAt: 'maxAttempts: 4' });
    expect(lint(code, { js: true })).toEqual([]);
  });

  it('recognises the aggregated service class and a provider function', () => {
    const sites = analyse(`
      import { SecretsManager } from '@aws-sdk/client-secrets-manager';
      import { GetSecretValueCommand } from '@aws-sdk/client-secrets-manager';
      new SecretsManager({ maxAttempts: async () => 2 });
      new GetSecretValueCommand({ SecretId });
    `);
    expect(sites).toHaveLength(1);
    expect(sites[0]).toMatchObject({ label: 'new SecretsManager()', attempts: 2 });
  });

  it('flags too many attempts and suggests maxAttempts: 3 (bad)', () => {
    const code = `
      import { SQSClient } from '@aws-sdk/client-sqs';
      export const sqs = new SQSClient({ region, maxAttempts: 10 });
    `;
    expect(analyse(code)[0]).toMatchObject({ attempts: 10 });
    expect(lint(code)).toContainEqual(expect.objectContaining({ rule: 'max-retry-attempts', text: 'maxAttempts: 10' }));
  });

  it('ConfiguredRetryStrategy counts attempts despite its JSDoc; a number backoff is constant (bad)', () => {
    const code = `
      import { S3Client } from '@aws-sdk/client-s3';
      import { ConfiguredRetryStrategy } from '@smithy/util-retry';
      const s3 = new S3Client({
        retryStrategy: new ConfiguredRetryStrategy(4, 2000),
      });
    `;
    const sites = analyse(code);
    expect(sites).toHaveLength(1);
    // "if set to 3, then 4 total requests" says the JSDoc; the code passes 4 as total attempts.
    expect(sites[0]).toMatchObject({ attempts: 4, attemptsAt: '4', growth: 'constant', initialMs: 2000, jitter: false, worstCaseMs: 6000 });
    const findings = lint(code);
    expect(findings).toContainEqual(expect.objectContaining({ rule: 'require-exponential-backoff', text: '2000' }));
    expect(findings).toContainEqual(expect.objectContaining({ rule: 'max-retry-duration' }));
  });

  it('ConfiguredRetryStrategy without a backoff waits a constant 100 ms', () => {
    const [site] = analyse(`
      import { ConfiguredRetryStrategy } from '@smithy/core/retry';
      export const retryStrategy = new ConfiguredRetryStrategy(3);
    `);
    expect(site).toMatchObject({ label: 'new ConfiguredRetryStrategy()', attempts: 3, growth: 'constant', initialMs: 100 });
  });

  it('a backoff function is custom; a strategy in a const is read once, at the client', () => {
    const sites = analyse(`
      import { LambdaClient } from '@aws-sdk/client-lambda';
      import { ConfiguredRetryStrategy } from '@aws-sdk/util-retry';
      const retryStrategy = new ConfiguredRetryStrategy(2, (attempt) => 100 + attempt * 1000);
      const lambda = new LambdaClient({ retryStrategy });
    `);
    expect(sites).toHaveLength(1);
    expect(sites[0]).toMatchObject({ label: 'new LambdaClient()', attempts: 2, growth: 'custom', jitter: 'unknown' });
  });

  it('StandardRetryStrategy: number and options forms', () => {
    const sites = analyse(`
      import { KinesisClient } from '@aws-sdk/client-kinesis';
      import { StandardRetryStrategy } from '@smithy/util-retry';
      new KinesisClient({ retryStrategy: new StandardRetryStrategy(6) });
      new KinesisClient({ retryStrategy: new StandardRetryStrategy({ maxAttempts: 2, baseDelay: 250 }) });
    `);
    expect(sites[0]).toMatchObject({ attempts: 6, growth: 'exponential', jitter: true });
    expect(sites[1]).toMatchObject({ attempts: 2, initialMs: 250, worstCaseMs: 250 });
  });

  it('a retryStrategy replaces maxAttempts; an unknown strategy is unknown', () => {
    const [site] = analyse(`
      import { S3Client } from '@aws-sdk/client-s3';
      new S3Client({ maxAttempts: 2, retryStrategy: makeStrategy() });
    `);
    expect(site).toMatchObject({ attempts: 'unknown', growth: 'unknown', filter: 'custom' });
  });

  it('reads a per-attempt requestTimeout from the request handler', () => {
    const [site] = analyse(`
      import { S3Client } from '@aws-sdk/client-s3';
      import { NodeHttpHandler } from '@smithy/node-http-handler';
      new S3Client({ requestHandler: new NodeHttpHandler({ requestTimeout: 2000 }) });
    `);
    expect(site).toMatchObject({ attemptTimeoutMs: 2000, worstCaseMs: 300 + 3 * 2000 });
  });

  it('options behind a spread argument or an import are unknown, not defaults', () => {
    const sites = analyse(`
      import { S3Client } from '@aws-sdk/client-s3';
      import { clientConfig } from './config';
      new S3Client(...args);
      new S3Client(clientConfig);
    `);
    expect(sites.map((s) => s.attempts)).toEqual(['unknown', 'unknown']);
  });

  it('marks a client with no retry option written as implicit (the SDK retries on its own)', () => {
    const { sites } = rawSites(`
      import { S3Client } from '@aws-sdk/client-s3';
      new S3Client({ region });
      new S3Client({ region, maxAttempts: 2 });
    `);
    expect(sites.map((s) => (s as { implicit?: boolean }).implicit ?? false)).toEqual([true, false]);
  });

  it('a command that replaces the resource at a named address is an idempotent write; an append is a write', () => {
    const writes = (command: string, module = '@aws-sdk/client-s3') => lint(`
      import pRetry from 'p-retry';
      import { ${command}Command } from '${module}';
      export const put = (client: any, input: any) => pRetry(() => client.send(new ${command}Command(input)), { retries: 2, minTimeout: 500, randomize: true });
    `).filter((f) => f.rule === 'no-unsafe-write-retry');
    // S3 overwrites the same bucket and key; DynamoDB replaces the item; a part number is overwritten.
    expect(writes('PutObject')).toEqual([]);
    expect(writes('UploadPart')).toEqual([]);
    expect(writes('PutItem', '@aws-sdk/client-dynamodb')).toEqual([]);
    expect(writes('PutBucketPolicy')).toEqual([]);
    // Appends and creations are still writes.
    expect(writes('PutRecord', '@aws-sdk/client-kinesis')).toHaveLength(1);
    expect(writes('PutEvents', '@aws-sdk/client-eventbridge')).toHaveLength(1);
    expect(writes('CreateMultipartUpload')).toHaveLength(1);
  });

  it('ignores classes not from @aws-sdk/client-*', () => {
    expect(analyse(`import { S3Client } from './fake'; new S3Client({ maxAttempts: 50 });`)).toEqual([]);
  });

  it('suggests maxAttempts: 3 on the client, or the strategy\'s own count', () => {
    const client = suggestions(`import { S3Client } from '@aws-sdk/client-s3';\nnew S3Client({ maxAttempts: 10 });`);
    expect(client.find((s) => s.rule === 'max-retry-attempts')?.output).toContain('new S3Client({ maxAttempts: 3 })');
    const strategy = suggestions(`import { ConfiguredRetryStrategy } from '@smithy/util-retry';\nexport const s = new ConfiguredRetryStrategy(9, (n) => 100 * 2 ** n);`);
    expect(strategy.find((s) => s.rule === 'max-retry-attempts')?.output).toContain('new ConfiguredRetryStrategy(3, (n)');
  });
});
