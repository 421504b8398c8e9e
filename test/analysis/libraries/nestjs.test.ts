import { describe, expect, it } from 'vitest';
import { analyse, lint } from '../../helpers/model.js';

describe('NestJS TypeORM / Mongoose connection retry descriptor', () => {
  it('leaves the framework default startup retry alone; the trap (9 attempts, not 10 retries) applies once written', () => {
    expect(analyse(`
      import { Module } from '@nestjs/common';
      import { TypeOrmModule } from '@nestjs/typeorm';
      @Module({ imports: [TypeOrmModule.forRoot({ type: 'postgres', url: process.env.DATABASE_URL })] })
      export class AppModule {}
    `)).toEqual([]);
    const [site] = analyse(`
      import { TypeOrmModule } from '@nestjs/typeorm';
      export const db = TypeOrmModule.forRoot({ type: 'postgres', retryDelay: 3000 });
    `);
    expect(site).toMatchObject({
      library: 'nestjs', label: 'TypeOrmModule.forRoot()', attempts: 9, growth: 'constant', initialMs: 3000,
      filter: 'none', worstCaseMs: 8 * 3000, attemptsAt: undefined,
    });
  });

  it('counts retryAttempts as attempts and reads Mongoose options from the second argument', () => {
    const sites = analyse(`
      import { TypeOrmModule } from '@nestjs/typeorm';
      import { MongooseModule } from '@nestjs/mongoose';
      TypeOrmModule.forRoot({ type: 'mysql', retryAttempts: 3, retryDelay: 500, toRetry: (e) => e.code === 'ECONNREFUSED' });
      MongooseModule.forRoot('mongodb://localhost/app', { retryAttempts: 2, retryDelay: 1000 });
    `);
    expect(sites.map((s) => [s.label, s.attempts, s.initialMs, s.filter, s.attemptsAt])).toEqual([
      ['TypeOrmModule.forRoot()', 3, 500, 'custom', 'retryAttempts: 3'],
      ['MongooseModule.forRoot()', 2, 1000, 'none', 'retryAttempts: 2'],
    ]);
  });

  it('reads forRootAsync factories, and leaves useClass unknown', () => {
    const sites = analyse(`
      import { TypeOrmModule } from '@nestjs/typeorm';
      TypeOrmModule.forRootAsync({ inject: [ConfigService], useFactory: (config: ConfigService) => ({ type: 'postgres', url: config.get('DB'), retryAttempts: 4 }) });
      TypeOrmModule.forRootAsync({ useClass: TypeOrmConfigService });
    `);
    expect(sites.map((s) => [s.label, s.attempts])).toEqual([['TypeOrmModule.forRootAsync()', 4], ['TypeOrmModule.forRootAsync()', 'unknown']]);
  });

  it('flags retryAttempts above the bound', () => {
    const findings = lint(`
      import { MongooseModule } from '@nestjs/mongoose';
      export const db = MongooseModule.forRoot(process.env.MONGO_URL, { retryAttempts: 20, retryDelay: 1000 });
    `);
    expect(findings).toContainEqual(expect.objectContaining({ rule: 'max-retry-attempts', text: 'retryAttempts: 20' }));
  });

  it('flags the default 9 attempts on the call once the retry is configured', () => {
    const findings = lint(`
      import { TypeOrmModule } from '@nestjs/typeorm';
      export const db = TypeOrmModule.forRoot({ type: 'postgres', retryDelay: 2000 });
    `);
    expect(findings).toContainEqual(expect.objectContaining({ rule: 'max-retry-attempts', text: 'TypeOrmModule.forRoot' }));
  });

  it('does not report a single connection attempt, nor an unrelated forRoot', () => {
    expect(lint(`
      import { TypeOrmModule } from '@nestjs/typeorm';
      import { ConfigModule } from '@nestjs/config';
      export const imports = [ConfigModule.forRoot(), TypeOrmModule.forRoot({ type: 'postgres', retryAttempts: 1 })];
    `)).toEqual([]);
  });
});
