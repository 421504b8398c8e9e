// What loading the plugin costs a project that does not use typescript-eslint: an `eslint .` run
// loads the plugin once, and in a JavaScript project nothing else loads typescript-eslint's
// packages. `@typescript-eslint/utils` from its root pulls in the scope manager and its library
// definitions (about 200 CommonJS modules, some 0.2 s here); the plugin needs only the AST node
// types and the rule creator, which load in a few milliseconds from `@typescript-eslint/types` and
// `@typescript-eslint/utils/eslint-utils`.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { SourceMap } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../', import.meta.url));

/** The CommonJS modules of typescript-eslint's packages that importing `entry` adds, by package, in a fresh process. */
function loadedBy(entry: string): Record<string, number> {
  const script = `
    import { createRequire } from 'node:module';
    const require = createRequire(${JSON.stringify(root)});
    await import('eslint');
    const before = new Set(Object.keys(require.cache));
    await import(${JSON.stringify(new URL(entry, pathToFileURL(root)).href)});
    const by = {};
    for (const k of Object.keys(require.cache)) {
      const m = before.has(k) ? null : /node_modules\\/(@typescript-eslint\\/[^/]+)\\//.exec(k);
      if (m) by[m[1]] = (by[m[1]] ?? 0) + 1;
    }
    process.stdout.write(JSON.stringify(by));
  `;
  return JSON.parse(execFileSync(process.execPath, ['--input-type=module', '-e', script], { cwd: root, encoding: 'utf8' })) as Record<string, number>;
}

describe('loading the plugin', () => {
  it('loads no typescript-eslint package beyond the AST types and the rule creator', () => {
    const loaded = loadedBy('dist/index.js');
    // Both are needed: the rules compare node types and are made with RuleCreator.
    expect(loaded['@typescript-eslint/types']).toBeGreaterThan(0);
    expect(Object.keys(loaded).sort()).toEqual(['@typescript-eslint/types', '@typescript-eslint/utils']);
    expect(loaded['@typescript-eslint/scope-manager']).toBeUndefined();
    // The eslint-utils subpath is a handful of files; the package root is dozens (and the scope manager).
    expect(loaded['@typescript-eslint/utils']).toBeLessThan(15);
  });

  it('is one file: the entry imports packages only, none of the plugin\'s own modules', () => {
    // As ~210 modules, Node spent most of the load resolving and linking them one by one.
    const entry = readFileSync(new URL('dist/index.js', pathToFileURL(root)), 'utf8');
    const specifiers = [...entry.matchAll(/^import\b[^'"]*['"]([^'"]+)['"]/gm)].map((m) => m[1]!);
    expect(specifiers.length).toBeGreaterThan(0);
    expect(specifiers.filter((s) => s.startsWith('.'))).toEqual([]);
    expect(entry).not.toMatch(/\bimport\(\s*['"]\./);
  });

  it('has a source map that leads to the TypeScript sources and carries their text', () => {
    // The package leaves out tsc's separate modules the bundle is made from: a map naming them
    // would lead a stack trace nowhere.
    const map = JSON.parse(readFileSync(new URL('dist/index.js.map', pathToFileURL(root)), 'utf8')) as { sources: string[]; sourcesContent?: (string | null)[] };
    expect(map.sources.length).toBeGreaterThan(100);
    expect(map.sources.filter((s) => !/^\.\.\/src\/.+\.ts$/.test(s))).toEqual([]);
    const at = map.sources.indexOf('../src/analysis/index.ts');
    expect(map.sourcesContent?.[at]).toBe(readFileSync(new URL('src/analysis/index.ts', pathToFileURL(root)), 'utf8'));
    // A place in the bundle maps back to where it is written.
    const lines = readFileSync(new URL('dist/index.js', pathToFileURL(root)), 'utf8').split('\n');
    const line = lines.findIndex((l) => l.startsWith('function buildModel('));
    const written = readFileSync(new URL('src/analysis/index.ts', pathToFileURL(root)), 'utf8').split('\n').findIndex((l) => l.startsWith('export function buildModel('));
    const entry = new SourceMap(map as ConstructorParameters<typeof SourceMap>[0]).findEntry(line, 9) as { originalSource?: string; originalLine?: number };
    expect([entry.originalSource, entry.originalLine]).toEqual(['../src/analysis/index.ts', written]);
  });
});
