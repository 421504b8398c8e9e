import { describe, expect, it } from 'vitest';
import { analyse, lint } from '../../helpers/model.js';
import { suggestions } from './suggest.js';

describe('bullmq descriptor', () => {
  it('reads defaultJobOptions on the queue as a durable site (fine)', () => {
    const code = `
      import { Queue } from 'bullmq';
      export const emails = new Queue('emails', {
        connection,
        defaultJobOptions: { attempts: 8, backoff: { type: 'exponential', delay: 1000, jitter: 0.5 }, removeOnComplete: true },
      });
      await emails.add('welcome', { userId });
    `;
    const sites = analyse(code);
    expect(sites).toHaveLength(1);
    expect(sites[0]).toMatchObject({
      library: 'bullmq', label: 'new Queue()', kind: 'durable', attempts: 8, attemptsAt: 'attempts: 8', growth: 'exponential',
      initialMs: 1000, multiplier: 2, jitter: true, filter: 'none', clientLevel: true,
    });
    // Durable: eight attempts are exempt from the in-memory bound.
    expect(lint(code)).toEqual([]);
  });

  it('reads job options on queue.add, merged over the queue defaults (fine)', () => {
    const code = `
      const { Queue } = require('bullmq');
      const queue = new Queue('payments', { defaultJobOptions: { backoff: { type: 'exponential', delay: 2000, jitter: 0.3 } } });
      async function enqueue(payment) {
        await queue.add('capture', payment, { attempts: 5, jobId: payment.id });
      }
    `;
    const sites = analyse(code, { js: true });
    // The queue's defaults alone do not retry (attempts defaults to 1).
    expect(sites).toHaveLength(1);
    expect(sites[0]).toMatchObject({ label: 'queue.add()', attempts: 5, growth: 'exponential', initialMs: 2000, jitter: true, clientLevel: false });
    expect(lint(code, { js: true })).toEqual([]);
  });

  it('a number backoff is a fixed delay (bad)', () => {
    const code = `
      import { Queue } from 'bullmq';
      const queue = new Queue('sms');
      export const send = (to: string) => queue.add('send', { to }, { attempts: 3, backoff: 5000 });
    `;
    expect(analyse(code)[0]).toMatchObject({ growth: 'constant', initialMs: 5000, attempts: 3 });
    expect(lint(code)).toContainEqual(expect.objectContaining({ rule: 'require-exponential-backoff', text: 'backoff: 5000' }));
  });

  it('attempts without backoff retry at once; exponential without jitter is flagged (bad)', () => {
    const code = `
      import { Queue as BullQueue } from 'bullmq';
      const reports = new BullQueue('reports', { defaultJobOptions: { attempts: 4 } });
      const exports = new BullQueue('exports', { defaultJobOptions: { attempts: 4, backoff: { type: 'exponential', delay: 1000 } } });
    `;
    const sites = analyse(code);
    expect(sites[0]).toMatchObject({ growth: 'none', attempts: 4 });
    expect(sites[1]).toMatchObject({ growth: 'exponential', jitter: false });
    const findings = lint(code);
    expect(findings).toContainEqual(expect.objectContaining({ rule: 'require-exponential-backoff', text: 'BullQueue' }));
    expect(findings).toContainEqual(expect.objectContaining({ rule: 'require-jitter', text: "backoff: { type: 'exponential', delay: 1000 }" }));
  });

  it('finds add() on an injected queue (NestJS) where only the written options are known', () => {
    const sites = analyse(`
      import { InjectQueue } from '@nestjs/bullmq';
      import { Queue } from 'bullmq';
      export class AudioService {
        constructor(@InjectQueue('audio') private readonly audioQueue: Queue) {}
        transcode(file: string) {
          return this.audioQueue.add('transcode', { file }, { attempts: 3, backoff: { type: 'fixed', delay: 1000 } });
        }
        cleanup() {
          return this.audioQueue.add('cleanup', {}, { backoff: { type: 'exponential', delay: 500 } });
        }
      }
    `);
    expect(sites).toHaveLength(2);
    expect(sites[0]).toMatchObject({ label: 'this.audioQueue.add()', attempts: 3, growth: 'constant' });
    // attempts may come from defaults registered elsewhere
    expect(sites[1]).toMatchObject({ attempts: 'unknown', growth: 'exponential' });
  });

  it('reads addBulk entries, linear and polynomial types, maxDelay caps and custom strategies', () => {
    const sites = analyse(`
      import { Queue } from 'bullmq';
      const q = new Queue('q');
      q.addBulk([
        { name: 'a', data: {}, opts: { attempts: 3, backoff: { type: 'linear', delay: 1000 } } },
        { name: 'b', data: {}, opts: { attempts: 4, backoff: { type: 'polynomial', delay: 100, maxDelay: 500 } } },
        { name: 'c', data: {}, opts: { attempts: 3, backoff: { type: 'myStrategy' } } },
        { name: 'd', data: {} },
      ]);
    `);
    expect(sites).toHaveLength(3);
    expect(sites[0]).toMatchObject({ growth: 'linear', worstCaseMs: 3000 });
    // 100 × n²: 100, 400, 900 → capped at 500
    expect(sites[1]).toMatchObject({ growth: 'polynomial', worstCaseMs: 100 + 400 + 500 });
    expect(sites[2]).toMatchObject({ growth: 'custom', jitter: 'unknown' });
  });

  it('reads defaultJobOptions registered through @nestjs/bullmq', () => {
    const code = `
      import { Module } from '@nestjs/common';
      import { BullModule } from '@nestjs/bullmq';
      @Module({
        imports: [
          BullModule.forRoot({ connection, defaultJobOptions: { attempts: 5, backoff: { type: 'exponential', delay: 1000, jitter: 0.5 } } }),
          BullModule.registerQueue({ name: 'audio' }, { name: 'video', defaultJobOptions: { attempts: 3, backoff: { type: 'fixed', delay: 3000 } } }),
        ],
      })
      export class QueuesModule {}
    `;
    const sites = analyse(code);
    expect(sites.map((s) => [s.label, s.attempts, s.growth, s.jitter, s.kind])).toEqual([
      ['BullModule.forRoot()', 5, 'exponential', true, 'durable'],
      ['BullModule.registerQueue()', 3, 'constant', false, 'durable'],
    ]);
    // BullMQ has a jitter setting, so a fixed backoff without it is a jitter finding too.
    expect(lint(code)).toEqual([
      expect.objectContaining({ rule: 'require-exponential-backoff', text: "backoff: { type: 'fixed', delay: 3000 }" }),
      expect.objectContaining({ rule: 'require-jitter', text: "backoff: { type: 'fixed', delay: 3000 }" }),
    ]);
  });

  it('ignores a Queue that is not from bullmq', () => {
    expect(analyse(`import { Queue } from './queue'; const q = new Queue('x'); q.add('a', {}, { attempts: 50 });`)).toEqual([]);
  });

  it('suggests an exponential backoff and jitter written as BullMQ backoff options', () => {
    const fixed = suggestions(`import { Queue } from 'bullmq';\nconst q = new Queue('q');\nq.add('a', {}, { attempts: 3, backoff: 5000 });`);
    expect(fixed.find((s) => s.rule === 'require-exponential-backoff')?.output).toContain("backoff: { type: 'exponential', delay: 5000 }");
    const plain = suggestions(`import { Queue } from 'bullmq';\nnew Queue('q', { defaultJobOptions: { attempts: 3, backoff: { type: 'exponential', delay: 1000, maxDelay: 60000 } } });`);
    expect(plain.find((s) => s.rule === 'require-jitter')?.output).toContain("backoff: { type: 'exponential', delay: 1000, jitter: 0.5, maxDelay: 60000 }");
  });
});

describe('bull descriptor (Bull 4)', () => {
  it('queue.add(data, opts) with a number backoff is a fixed delay; no jitter is asked of Bull (bad)', () => {
    const code = `
      const Queue = require('bull');
      const emailQueue = new Queue('email-queue', { redis: { host: 'redis' } });
      module.exports = {
        addEmailJob: (data) => emailQueue.add(data, { attempts: 3, backoff: 5000 }),
      };
    `;
    const sites = analyse(code, { js: true });
    expect(sites).toHaveLength(1);
    expect(sites[0]).toMatchObject({ library: 'bull', kind: 'durable', attempts: 3, growth: 'constant', initialMs: 5000 });
    const found = lint(code, { js: true }).map((f) => f.rule);
    expect(found).toContain('require-exponential-backoff');
    expect(found).not.toContain('require-jitter');
    expect(found).not.toContain('max-retry-duration');
  });

  it('reads a named job, a Redis URL before the options and the exponential type (fine)', () => {
    const code = `
      import Queue from 'bull';
      const q = new Queue('pdf', 'redis://cache:6379', { defaultJobOptions: { backoff: { type: 'exponential', delay: 1000 } } });
      export const render = (doc: unknown) => q.add('render', doc, { attempts: 5 });
    `;
    const sites = analyse(code);
    expect(sites).toHaveLength(1);
    expect(sites[0]).toMatchObject({ library: 'bull', attempts: 5, growth: 'exponential', initialMs: 1000 });
    expect(lint(code)).toEqual([]);
  });

  it('a job without attempts is no retry (look-alike)', () => {
    const code = `
      import Queue from 'bull';
      const q = new Queue('pdf');
      export const render = (doc: unknown) => q.add(doc, { delay: 5000, removeOnComplete: true });
    `;
    expect(analyse(code)).toEqual([]);
  });
});
