/**
 * A filter is asked once for every failure status when its answer for one read no status value
 * (sameForFailures, statusOf): these fail if the sharing hides a status the code tells apart,
 * whether it reads the status in the guard, through a constant, through a counter's memo filled
 * by an earlier question, or in a helper the guard calls.
 */
import { describe, expect, it } from 'vitest';
import { sameForFailures } from '../../src/analysis/hand-written/filter.js';
import { statusOf, statusReads, NO_RESPONSE } from '../../src/analysis/eval/environment.js';
import { RUNNING_ENV } from '../../src/analysis/eval/environment.js';
import { Linter } from 'eslint';
import * as tsParser from '@typescript-eslint/parser';
import type { TSESLint, TSESTree } from '@typescript-eslint/utils';
import { getRetryModel } from '../../src/analysis/index.js';
import { attemptEnv, valueAt, type HandWritten, type Region, type StateVariable } from '../../src/analysis/hand-written/attempts.js';
import { analyse } from '../helpers/model.js';

function one(code: string) {
  const sites = analyse(code);
  expect(sites).toHaveLength(1);
  return sites[0]!;
}

describe('sameForFailures', () => {
  it('asks each failure status while the answers read the status, and once when they do not', () => {
    const asked: number[] = [];
    const reading = sameForFailures((s) => { asked.push(s); return (statusOf({ ...RUNNING_ENV, status: s }) ?? 0) >= 500; });
    expect([400, 404, 500, 503].map(reading)).toEqual([false, false, true, true]);
    expect(asked).toEqual([400, 404, 500, 503]);
    const blind: number[] = [];
    const unread = sameForFailures((s) => { blind.push(s); return true; });
    expect([200, 400, 404, 500, NO_RESPONSE, 599].map(unread)).toEqual([true, true, true, true, true, true]);
    // 200 and no response are their own classes; 400 answers for the other failures.
    expect(blind).toEqual([200, 400, NO_RESPONSE]);
    expect(statusReads.count).toBeGreaterThan(0);
  });
});

describe('hand-written filters with the sharing', () => {
  it('keeps the statuses a guard tells apart', () => {
    const site = one(`
      async function g(url) {
        for (let attempt = 1; attempt <= 3; attempt++) {
          const res = await fetch(url);
          if (!res.ok && res.status !== 404) { await sleep(500 * 2 ** attempt); continue; }
          return res;
        }
      }
    `);
    expect(site).toMatchObject({ filter: 'statuses', clientErrors: ['4xx other than 404'] });
  });

  it('keeps a status read through a constant and a local function', () => {
    const site = one(`
      const isRetryable = (s) => s === 409 || s >= 500;
      async function g(url) {
        for (let attempt = 1; attempt <= 3; attempt++) {
          const res = await fetch(url);
          const code = res.status;
          if (!res.ok && isRetryable(code)) { await sleep(500 * 2 ** attempt); continue; }
          return res;
        }
      }
    `);
    expect(site).toMatchObject({ filter: 'statuses', clientErrors: ['409'] });
  });

  it('says a guard that reads no status retries every failure', () => {
    const site = one(`
      async function g(url) {
        for (let attempt = 1; attempt <= 3; attempt++) {
          const res = await fetch(url);
          if (!res.ok) { await sleep(500 * 2 ** attempt); continue; }
          return res;
        }
      }
    `);
    expect(site).toMatchObject({ filter: 'none', retriesEverything: true });
  });
});

/** The context of a snippet's model, for reading its nodes with the hand-written detector's parts. */
function contextOf(code: string): HandWritten {
  let hw: HandWritten | undefined;
  const capture = {
    meta: { type: 'problem' as const, schema: [] },
    create(context: TSESLint.RuleContext<string, []>) {
      return { 'Program:exit'() { const ctx = getRetryModel(context).context; hw = { ctx, evaluator: ctx.evaluator }; } };
    },
  };
  new Linter({ configType: 'flat' }).verify(code, [{
    files: ['**/*.ts'], plugins: { test: { rules: { capture } } as never },
    languageOptions: { parser: tsParser as never }, rules: { 'test/capture': 'error' },
  }], 'file.ts');
  return hw!;
}

describe('a status read through a variable carried from one attempt to the next', () => {
  // \`last\` is a state variable whose next value reads the status: its values are memoised per
  // question, and an answer taken from that memo must count as a read of the status, or the
  // sharing would give every failure the answer of the first.
  const code = 'async function g() { let last = 0; for (let n = 0; n < 3; n++) { try { return await op(); } catch (err) { last = err.status; } } }';
  const setup = () => {
    const hw = contextOf(code);
    const scopes = hw.ctx.sourceCode.scopeManager!;
    const all = scopes.scopes.flatMap((sc) => sc.variables);
    const last = all.find((v) => v.name === 'last')!;
    const err = all.find((v) => v.name === 'err')!;
    const write = last.references.find((r) => r.isWrite() && !r.init)!.identifier.parent as TSESTree.AssignmentExpression;
    const loop = hw.ctx.nodesOfType('ForStatement' as never)[0] as unknown as TSESTree.ForStatement;
    const state: StateVariable = { variable: last, init: { expr: (last.defs[0]!.node as TSESTree.VariableDeclarator).init! }, write, memo: new Map() };
    const region: Region = { kind: 'loop', root: loop, loop, vars: new Map([[last, state]]), roots: new Set([err]) };
    // At the start of the second attempt, before this attempt's write: the status the first one failed with.
    const at = (status: number) => valueAt(hw, state, attemptEnv(hw, region, 2, { status }), loop.body.range[0]);
    return at;
  };

  it('counts a read when the value comes from the memo', () => {
    const at = setup();
    let before = statusReads.count;
    expect(at(404)).toBe(404);
    expect(statusReads.count).toBeGreaterThan(before);
    before = statusReads.count;
    expect(at(404)).toBe(404);
    expect(statusReads.count).toBeGreaterThan(before);
  });

  it('keeps the failures apart when the first answer is taken from the memo', () => {
    const at = setup();
    expect(at(400)).toBe(400);
    const ask = sameForFailures(at);
    expect([400, 404, 500].map(ask)).toEqual([400, 404, 500]);
  });
});
