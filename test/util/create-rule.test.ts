import { describe, expect, it } from 'vitest';
import { createRule } from '../../src/util/create-rule.js';

type Options = [{ limit?: number; nested?: { on?: boolean } }];

function probe() {
  const seen: unknown[] = [];
  const rule = createRule<Options, 'x'>({
    name: 'probe',
    meta: { type: 'problem', docs: { description: 'probe', guideRules: [] }, messages: { x: 'x' }, schema: [{ type: 'object' }] },
    defaultOptions: [{ limit: 3, nested: { on: true } }],
    create(_context, options) {
      seen.push(options);
      return {};
    },
  });
  const create = (options: unknown[]) => rule.create({ options } as never);
  return { seen, create };
}

describe('createRule', () => {
  it('merges options with the defaults once per distinct value and shares the frozen result', () => {
    const { seen, create } = probe();
    create([]);
    create([]);
    create([{ limit: 5 }]);
    create([{ limit: 5 }]);
    expect(seen[0]).toEqual([{ limit: 3, nested: { on: true } }]);
    expect(seen[1]).toBe(seen[0]);
    expect(seen[2]).toEqual([{ limit: 5, nested: { on: true } }]);
    expect(seen[3]).toBe(seen[2]);
    expect(seen[2]).not.toBe(seen[0]);
    // Shared between files, so no rule can change them for the next one.
    expect(Object.isFrozen(seen[0])).toBe(true);
    expect(Object.isFrozen((seen[0] as Options)[0].nested)).toBe(true);
  });

  it('still merges options that are not plain data, without caching them', () => {
    const { seen, create } = probe();
    const cyclic: Record<string, unknown> = { limit: 7 };
    cyclic['self'] = cyclic;
    create([cyclic]);
    expect((seen[0] as Options)[0]).toMatchObject({ limit: 7, nested: { on: true } });
  });
});
