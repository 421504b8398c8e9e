import { describe, expect, it } from 'vitest';
import { analyse, lint } from '../../helpers/model.js';
import { suggestions } from './suggest.js';

describe('aws-sdk-v2 descriptor', () => {
  it('counts maxRetries as retries: the default 3 means 4 calls, full jitter from 100 ms (fine)', () => {
    const code = `
      const AWS = require('aws-sdk');
      const s3 = new AWS.S3({ region: 'us-east-1' });
      s3.getObject({ Bucket, Key }).promise();
    `;
    const sites = analyse(code, { js: true });
    expect(sites).toHaveLength(1);
    expect(sites[0]).toMatchObject({
      library: 'aws-sdk-v2', label: 'new AWS.S3()', attempts: 4, growth: 'exponential', initialMs: 100, maxMs: Infinity,
      jitter: true, filter: 'library-default', clientLevel: true, worstCaseMs: 100 + 200 + 400,
    });
    expect(lint(code, { js: true })).toEqual([]);
  });

  it('uses DynamoDB\'s own defaults: 10 retries from 50 ms', () => {
    const sites = analyse(`
      import AWS from 'aws-sdk';
      import DynamoDB from 'aws-sdk/clients/dynamodb';
      new AWS.DynamoDB();
      new DynamoDB.DocumentClient({ maxRetries: 2 });
    `);
    expect(sites[0]).toMatchObject({ label: 'new AWS.DynamoDB()', attempts: 11, initialMs: 50 });
    expect(sites[1]).toMatchObject({ attempts: 3, initialMs: 50 });
  });

  it('reads named imports, per-service modules and retryDelayOptions (fine)', () => {
    const code = `
      import { SQS } from 'aws-sdk';
      import S3 from 'aws-sdk/clients/s3';
      const sqs = new SQS({ maxRetries: 2, retryDelayOptions: { base: 200 } });
      const s3 = new S3({ maxRetries: 1, httpOptions: { timeout: 1000 } });
    `;
    const sites = analyse(code);
    expect(sites[0]).toMatchObject({ attempts: 3, initialMs: 200, worstCaseMs: 600 });
    expect(sites[1]).toMatchObject({ attempts: 2, attemptTimeoutMs: 1000, worstCaseMs: 100 + 2000 });
    expect(lint(code)).toEqual([]);
  });

  it('flags a large global maxRetries in AWS.config.update (bad)', () => {
    const code = `
      const AWS = require('aws-sdk');
      AWS.config.update({ region: 'eu-west-1', maxRetries: 10 });
    `;
    const sites = analyse(code, { js: true });
    expect(sites).toHaveLength(1);
    expect(sites[0]).toMatchObject({ label: 'AWS.config.update()', attempts: 11, attemptsAt: 'maxRetries: 10' });
    const findings = lint(code, { js: true });
    expect(findings).toContainEqual(expect.objectContaining({ rule: 'max-retry-attempts', text: 'maxRetries: 10' }));
    expect(findings).toContainEqual(expect.objectContaining({ rule: 'max-retry-duration' }));
  });

  it('flags AWS.config.maxRetries assignments and reads customBackoff as custom (bad)', () => {
    const code = `
      import * as AWS from 'aws-sdk';
      AWS.config.maxRetries = 8;
      const lambda = new AWS.Lambda({ retryDelayOptions: { customBackoff: (n) => 1000 } });
    `;
    const sites = analyse(code);
    expect(sites.find((s) => s.label === 'AWS.config')).toMatchObject({ attempts: 9 });
    expect(sites.find((s) => s.label === 'new AWS.Lambda()')).toMatchObject({ growth: 'custom', jitter: 'unknown' });
    expect(lint(code)).toContainEqual(expect.objectContaining({ rule: 'max-retry-attempts', text: 'AWS.config.maxRetries = 8' }));
  });

  it('skips configuration that says nothing about retries, and non-service classes', () => {
    expect(analyse(`
      const AWS = require('aws-sdk');
      AWS.config.update({ region: 'us-east-1' });
      new AWS.SharedIniFileCredentials({ profile });
      new AWS.Endpoint('http://localhost:4566');
    `, { js: true })).toEqual([]);
  });

  it('suggests maxRetries: 2 for 3 calls', () => {
    const applied = suggestions(`import AWS from 'aws-sdk';\nnew AWS.SQS({ maxRetries: 9 });`);
    expect(applied.find((s) => s.rule === 'max-retry-attempts')?.output).toContain('new AWS.SQS({ maxRetries: 2 })');
  });
});
