/** The plugin's own invariants: files, exports, docs, tests, presets and schemas stay in step. */
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { Linter } from 'eslint';
import { describe, expect, it } from 'vitest';
import plugin from '../src/index.js';
import { REPO_URL } from '../src/util/create-rule.js';

const root = new URL('..', import.meta.url);
const names = (dir: string, suffix: string) =>
  readdirSync(new URL(dir, root)).filter((f) => f.endsWith(suffix)).map((f) => f.slice(0, -suffix.length)).sort();

const ruleNames = Object.keys(plugin.rules).sort();
const rules = plugin.rules as Record<string, (typeof plugin.rules)[keyof typeof plugin.rules]>;

describe('rule inventory', () => {
  it('every rule file is exported, documented and tested', () => {
    const files = names('src/rules/', '.ts').filter((n) => n !== 'index');
    expect(files).toEqual(ruleNames);
    expect(names('rules-docs/', '.md')).toEqual(ruleNames);
    expect(names('test/rules/', '.test.ts')).toEqual(ruleNames);
  });

  it('exports plugin meta with the namespace', () => {
    const pkg = JSON.parse(readFileSync(new URL('package.json', root), 'utf8')) as { name: string; version: string };
    expect(plugin.meta).toEqual({ name: pkg.name, version: pkg.version, namespace: 'safe-retry' });
  });
});

describe.each(ruleNames)('rule %s', (name) => {
  const rule = rules[name]!;
  const docs = rule.meta.docs!;

  it('points its docs URL at rules-docs/<name>.md', () => {
    expect(docs.url).toBe(`${REPO_URL}/blob/main/rules-docs/${name}.md`);
  });

  it('describes itself the house way', () => {
    expect(docs.description).toMatch(/^(Enforce|Require|Disallow) /);
    expect(docs.description).not.toMatch(/\.$/);
    expect(docs.guideRules.length).toBeGreaterThan(0);
  });

  it('names the guide rule in every problem message and ends sentences with a period', () => {
    // Suggestion messages are the short menu entries; only problem messages must cite the guide.
    const suggestionIds = suggestionMessageIds(readFileSync(new URL(`src/rules/${name}.ts`, root), 'utf8'));
    for (const [id, text] of Object.entries(rule.meta.messages as Record<string, string>)) {
      expect(text, id).toMatch(/\.$/);
      if (!suggestionIds.has(id)) expect(text, id).toMatch(/\(R-RES-[A-Z]+-\w+(, R-RES-[A-Z]+-\w+)*\)/);
    }
  });

  it('has a schema whose objects forbid unknown properties and describe each property', () => {
    for (const schema of rule.meta.schema as unknown as Array<Record<string, unknown>>) {
      expect(schema['additionalProperties']).toBe(false);
      for (const prop of Object.values(schema['properties'] as Record<string, { description?: string }>)) {
        expect(prop.description).toBeTruthy();
      }
    }
  });

  it('accepts its default options under its own schema', () => {
    const linter = new Linter({ configType: 'flat' });
    const run = () => linter.verify('', [{
      plugins: { 'safe-retry': plugin as never },
      rules: { [`safe-retry/${name}`]: ['error', ...(rule.defaultOptions as unknown[])] },
    }]);
    expect(run).not.toThrow();
  });
});

describe('presets', () => {
  const expectLevels = (filter: (d: { recommended?: string }) => boolean, strict: boolean) =>
    Object.fromEntries(ruleNames.filter((n) => filter(rules[n]!.meta.docs!)).map((n) => {
      const opts = strict ? rules[n]!.meta.docs!.strictOptions : undefined;
      return [`safe-retry/${n}`, opts ? ['error', ...opts] : 'error'];
    }));

  it('derive recommended, strict and all from rule meta', () => {
    expect(plugin.configs.recommended.rules).toEqual(expectLevels((d) => d.recommended === 'recommended', false));
    expect(plugin.configs.strict.rules).toEqual(expectLevels((d) => d.recommended === 'recommended' || d.recommended === 'strict', true));
    expect(plugin.configs.all.rules).toEqual(expectLevels(() => true, true));
    // The type-checked preset is recommended plus the setting that turns the type-aware layer on.
    expect(plugin.configs['recommended-type-checked'].rules).toEqual(plugin.configs.recommended.rules);
    expect(plugin.configs['recommended-type-checked'].settings).toEqual({ 'safe-retry': { typeAware: true } });
  });

  it('carry the plugin and a name', () => {
    for (const [name, config] of Object.entries(plugin.configs) as Array<[string, { name: string; plugins: Record<string, unknown> }]>) {
      expect(config.name).toBe(`safe-retry/${name}`);
      expect(config.plugins['safe-retry']).toBe(plugin);
    }
  });
});

describe('generated docs', () => {
  it('doc headers and the README rules table match rule meta (eslint-doc-generator --check)', () => {
    // Needs the built package (npm test builds first); prints the diff when out of date.
    const out = execFileSync(process.execPath, [new URL('node_modules/eslint-doc-generator/dist/bin/eslint-doc-generator.js', root).pathname, '--check'], {
      cwd: new URL('.', root).pathname,
      encoding: 'utf8',
      stdio: 'pipe',
    });
    expect(out).not.toMatch(/out of date|does not match/i);
  });
});

/** Message ids used inside `suggest: [...]` arrays of a rule's source. */
function suggestionMessageIds(source: string): Set<string> {
  const ids = new Set<string>();
  for (const match of source.matchAll(/suggest:/g)) {
    let depth = 0;
    let i = match.index! + 'suggest:'.length;
    let started = false;
    for (; i < source.length; i++) {
      const c = source[i];
      if (c === '[') { depth++; started = true; }
      else if (c === ']') { depth--; if (started && depth === 0) break; }
      else if (!started && (c === ',' || c === '}')) break;
    }
    for (const m of source.slice(match.index, i).matchAll(/messageId: '(\w+)'/g)) ids.add(m[1]!);
  }
  return ids;
}
