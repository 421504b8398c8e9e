/**
 * `Number.isInteger` and its neighbours where the argument's value is known, a continuous random
 * term that is never a whole number, arithmetic on an absent option (NaN) and a timer given NaN
 * (no wait), a response guard a thrown failure never meets, and the call made once more after a
 * loop: withAutomaticRetries as replicate's client writes it, and the look-alikes that stay as they were.
 */
import * as tsParser from '@typescript-eslint/parser';
import type { TSESLint, TSESTree } from '@typescript-eslint/utils';
import { Linter } from 'eslint';
import { describe, expect, it } from 'vitest';
import { RUNNING_ENV } from '../../src/analysis/eval/environment.js';
import { createEvaluator } from '../../src/analysis/eval/evaluator.js';
import { UNKNOWN, type Value } from '../../src/analysis/eval/values.js';
import maxRetryAttempts from '../../src/rules/max-retry-attempts.js';
import { analyse, lint } from '../helpers/model.js';
import { run } from '../helpers/rule-tester.js';

/** The value of `const probe = <expr>` in the running environment (defaults on, randomness a range). */
function probe(expr: string, prelude = ''): Value {
  let out: Value = UNKNOWN;
  const rule: TSESLint.RuleModule<'x'> = {
    meta: { type: 'problem', messages: { x: 'x' }, schema: [] },
    defaultOptions: [],
    create(context) {
      const ev = createEvaluator(context.sourceCode);
      return {
        VariableDeclarator(node: TSESTree.VariableDeclarator) {
          if (node.id.type === 'Identifier' && node.id.name === 'probe') out = ev.evaluateIn(node.init, { ...RUNNING_ENV, flags: { random: false } });
        },
      };
    },
  };
  const linter = new Linter({ configType: 'flat' });
  const messages = linter.verify(`${prelude}\nconst probe = ${expr};`, [
    { files: ['**/*.ts'], plugins: { t: { rules: { r: rule } } as never }, languageOptions: { parser: tsParser as never }, rules: { 't/r': 'error' } },
  ], 'file.ts');
  if (messages.some((m) => m.fatal)) throw new Error(messages[0]!.message);
  return out;
}

describe('Number.isInteger and its neighbours', () => {
  it('decide a known number exactly and any other known kind as false (they do not convert)', () => {
    expect(probe('Number.isInteger(5)')).toBe(true);
    expect(probe('Number.isInteger(2.5)')).toBe(false);
    expect(probe('Number.isInteger("5")')).toBe(false);
    expect(probe('Number.isSafeInteger(2 ** 60)')).toBe(false);
    expect(probe('Number.isFinite(Infinity)')).toBe(false);
    expect(probe('Number.isFinite(opts.max || 5)', 'declare const opts: any;')).toBe(true);
    expect(probe('Number.isNaN(undefined - 1)')).toBe(true);
    expect(probe('Number.isNaN(NaN)')).toBe(true);
    expect(probe('Number.isNaN("x")')).toBe(false);
  });

  it('read a continuous random term as never a whole number, and stay unknown where the range may hold one', () => {
    expect(probe('Number.isInteger(500 * 2 ** 3 + Math.random() * 100)')).toBe(false);
    expect(probe('Number.isInteger(Math.random())')).toBe(false);
    expect(probe('Number.isInteger((Math.random() - 0.5) / 2)')).toBe(false);
    // Rounded, or scaled by zero, or joined from two whole numbers: it may be one.
    expect(probe('Number.isInteger(Math.floor(Math.random() * 100))')).toBe(UNKNOWN);
    expect(probe('Number.isInteger(Math.random() * 0)')).toBe(true);
    expect(probe('Number.isInteger(Math.random() * Math.random())')).toBe(UNKNOWN);
    expect(probe('Number.isInteger(flag ? 1 : 3)', 'declare const flag: boolean;')).toBe(UNKNOWN);
    // Not the built-in: no verdict.
    expect(probe('Number.isInteger(2.5)', 'const Number = { isInteger: (x: number) => true };')).toBe(UNKNOWN);
    // A range is never NaN and finite when both ends are.
    expect(probe('Number.isFinite(100 + Math.random() * 50)')).toBe(true);
    expect(probe('Number.isNaN(Math.random())')).toBe(false);
  });

  it('reads arithmetic on an absent option as NaN, and an unknown operand as unknown', () => {
    expect(probe('500 * 2 ** (options.maxRetries - 5)', 'function f(options = {}) {}\nconst options: { maxRetries?: number } = {};')).toBeNaN();
    expect(probe('x - 5', 'declare const x: number;')).toBe(UNKNOWN);
    expect(probe('undefined + "a"')).toBe('undefineda');
  });
});

/** replicate 1.4.0's withAutomaticRetries, in its shape (lib/util.js). */
const REPLICATE = `
export async function withAutomaticRetries(request, options = {}) {
  const shouldRetry = options.shouldRetry || (() => false);
  const maxRetries = options.maxRetries || 5;
  const interval = options.interval || 500;
  const jitter = options.jitter || 100;
  const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
  let attempts = 0;
  do {
    let delay = interval * 2 ** attempts + Math.random() * jitter;
    try {
      const response = await request();
      if (response.ok || !shouldRetry(response)) {
        return response;
      }
    } catch (error) {
      if (error instanceof ApiError) {
        const retryAfter = error.response.headers.get("Retry-After");
        if (retryAfter) delay = retryAfter * 1000;
      }
    }
    if (Number.isInteger(maxRetries) && maxRetries > 0) {
      if (Number.isInteger(delay) && delay > 0) {
        await sleep(interval * 2 ** (options.maxRetries - maxRetries));
      }
      attempts += 1;
    }
  } while (attempts < maxRetries);
  return request();
}
`;

const handWritten = (code: string, js = true) => analyse(code, { js }).filter((s) => s.library === 'hand-written');

describe('a do-while retry helper as replicate writes it', () => {
  it('counts the loop passes and the call after it (6), and reads the sleep of NaN ms as no wait', () => {
    expect(handWritten(REPLICATE)).toMatchObject([{ label: 'do...while loop', attempts: 6, growth: 'none', jitter: false, attemptsAt: 'maxRetries' }]);
    const rules = lint(REPLICATE, { js: true }).map((f) => f.rule).sort();
    expect(rules).toEqual(expect.arrayContaining(['max-retry-attempts', 'require-exponential-backoff', 'require-jitter']));
  });

  it('keeps a written backoff where the option the sleep reads is a known number', () => {
    const code = REPLICATE.replace('interval * 2 ** (options.maxRetries - maxRetries)', 'interval * 2 ** attempts');
    expect(handWritten(code)).toMatchObject([{ attempts: 6, growth: 'exponential', initialMs: 500 }]);
  });

  it('adds no call for a different call after the loop, nor for one after a loop that already made the first before it', () => {
    expect(handWritten(REPLICATE.replace('return request();\n}', 'return fallback();\n}'))).toMatchObject([{ attempts: 5 }]);
  });

  it('still bounds a loop by a counter tested in the try after the call', () => {
    const code = `
      export async function get(url: string) {
        let n = 0;
        while (true) {
          try {
            const res = await fetch(url);
            if (res.ok || n >= 2) return res;
          } catch (e) {}
          n++;
          await new Promise((r) => setTimeout(r, 1000 * 2 ** n));
        }
      }`;
    expect(handWritten(code, false)).toMatchObject([{ attempts: 3 }]);
  });
});

run('max-retry-attempts (a call made again after the loop)', maxRetryAttempts, {
  valid: [
    // Four passes and the call after the loop: 5 calls, at the bound.
    { code: REPLICATE.replace('options.maxRetries || 5', 'options.maxRetries || 4') },
    // The loop alone: 5 calls.
    { code: REPLICATE.replace('return request();\n}', 'throw new Error("gave up");\n}') },
  ],
  invalid: [
    { code: REPLICATE, errors: [{ messageId: 'tooManyAttempts' }] },
  ],
});

describe('a value between two ends, t * (max - min) + min', () => {
  it('is read as a whole: within the two ends, continuous when t is Math.random() and both ends are numbers', () => {
    expect(probe('Math.random() * (360 - 240) + 240')).toEqual({ lo: 240, hi: 360, continuous: true });
    expect(probe('240 + (360 - 240) * Math.random()')).toEqual({ lo: 240, hi: 360, continuous: true });
    // Ends that are ranges themselves: the hull, not the widened term-by-term reading ([144, 576]).
    expect(probe('Math.random() * ((r + d) - (r - d)) + (r - d)', 'const r = 240 + Math.random() * 120; const d = 60;')).toEqual({ lo: 180, hi: 420 });
    // Not that shape (a different min added, or t outside [0, 1]): term by term.
    expect(probe('Math.random() * (360 - 240) + 100')).toEqual({ lo: 100, hi: 220, continuous: true });
    expect(probe('2 * (360 - 240) + 240')).toBe(480);
  });
});

describe('rounding a continuous random term', () => {
  it('never reaches a whole-number end: Math.floor(Math.random() * 11) + 10 is 10 to 20, Math.ceil starts one above a whole start', () => {
    expect(probe('Math.floor(Math.random() * 11) + 10')).toEqual({ lo: 10, hi: 20 });
    expect(probe('Math.floor(Math.random() * (20 - 10 + 1)) + 10')).toEqual({ lo: 10, hi: 20 });
    expect(probe('Math.ceil(Math.random() * 3)')).toEqual({ lo: 1, hi: 3 });
    expect(probe('Math.floor(Math.random() - 1)')).toBe(-1);
    // Toward zero: Math.trunc stops short of a whole end on either side of zero.
    expect(probe('Math.trunc(Math.random() * 11) + 10')).toEqual({ lo: 10, hi: 20 });
    expect(probe('Math.trunc(Math.random() * -3)')).toEqual({ lo: -2, hi: 0 });
    // Ends that are not whole numbers, and ranges that are not continuous, round as they are.
    expect(probe('Math.floor(Math.random() * 10.5)')).toEqual({ lo: 0, hi: 10 });
    expect(probe('Math.floor(x)', 'const x = Math.max(Math.random() * 4, 2);')).toEqual({ lo: 2, hi: 4 });
  });
});
