import { describe, expect, it } from 'vitest';
import { analyse } from '../helpers/model.js';
import { sameForFailures, STATUSES } from '../../src/analysis/hand-written/filter.js';
import { statusReads } from '../../src/analysis/eval/environment.js';

// A loop that retries a response when `retry` (an expression of `res`) holds.
const LOOP = (retry: string, before = '') => `${before}
export async function load(url: string): Promise<Response> {
  for (let i = 0; i < 3; i++) {
    const res = await fetch(url);
    if (res.ok) return res;
    if (!(${retry})) throw new Error(String(res.status));
    await new Promise((r) => setTimeout(r, 200 * 2 ** i * Math.random()));
  }
  throw new Error('gave up');
}
`;

const errorsOf = (retry: string, before?: string) => analyse(LOOP(retry, before))[0]?.clientErrors;

describe('failure statuses answered by class', () => {
  it('asks a filter once per class of statuses when each read of the status meets only numbers', () => {
    const asked: number[] = [];
    // A stand-in for a filter that reads the status twice, each read compared with a number.
    const retried = (s: number) => {
      asked.push(s);
      statusReads.count += 2;
      statusReads.classified += 2;
      statusReads.constants.push(409, 500);
      return s === 409 || s >= 500;
    };
    const ask = sameForFailures(retried);
    const answers = STATUSES.filter((s) => s >= 400).map((s) => [s, ask(s)] as const);
    expect(answers.filter(([, r]) => r).map(([s]) => s)).toEqual([409, ...Array.from({ length: 100 }, (_, i) => 500 + i)]);
    // 400-408, 409, 410-499, 500, 501-599: five classes, five questions.
    expect(asked).toEqual([400, 409, 410, 500, 501]);
  });

  it('asks status by status when a read is not classified (the value used otherwise)', () => {
    let calls = 0;
    const ask = sameForFailures((s: number) => {
      calls++;
      statusReads.count++;
      return Math.floor(s / 100) === 4;
    });
    for (const s of STATUSES.filter((x) => x >= 400)) ask(s);
    expect(calls).toBe(200);
  });

  it('gives the same statuses as a status-by-status reading for comparisons, lists, sets and arithmetic', () => {
    expect(errorsOf('res.status === 409 || res.status >= 500')).toEqual(['409']);
    expect(errorsOf('res.status > 407 && res.status < 410 || res.status >= 500')).toEqual(['409']);
    expect(errorsOf('[404, 409, 503].includes(res.status)')).toEqual(['404', '409']);
    expect(errorsOf('RETRY.has(res.status)', 'const RETRY = new Set([418, 503]);')).toEqual(['418']);
    expect(errorsOf('RETRY.includes(res.status)', 'const RETRY = [410, 502];')).toEqual(['410']);
    // Arithmetic on the status is no comparison with a number: read status by status, same answer.
    expect(errorsOf('Math.floor(res.status / 100) === 5 || res.status === 423')).toEqual(['423']);
  });

  it('classifies the reads the evaluator makes: comparisons with numbers yes, arithmetic no', () => {
    // Counters only ever grow: what analysing one snippet adds to them.
    const reads = (retry: string, before?: string) => {
      const count = statusReads.count;
      const classified = statusReads.classified;
      analyse(LOOP(retry, before));
      return { count: statusReads.count - count, classified: statusReads.classified - classified };
    };
    for (const [retry, before] of [
      ['res.status === 409 || res.status >= 500'],
      ['[404, 409, 503].includes(res.status)'],
      ['RETRY.has(res.status)', 'const RETRY = new Set([418, 503]);'],
    ] as const) {
      const r = reads(retry, before);
      expect(r.count).toBeGreaterThan(0);
      expect(r.classified).toBe(r.count);
    }
    const arithmetic = reads('Math.floor(res.status / 100) === 5');
    expect(arithmetic.count).toBeGreaterThan(0);
    expect(arithmetic.classified).toBe(0);
    // A list the code may change is no constant.
    const changed = reads('RETRY.includes(res.status)', 'const RETRY = [502]; RETRY.push(503);');
    expect(changed.classified).toBeLessThan(changed.count);
  });
});

