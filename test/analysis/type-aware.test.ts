/**
 * The type-aware layer resolves calls across files; it only runs with the setting the
 * recommended-type-checked preset carries, so the syntactic preset's results never change.
 */
import { ESLint } from 'eslint';
import tseslint from 'typescript-eslint';
import { describe, expect, it } from 'vitest';
import plugin from '../../src/index.js';
import { createDeclarationReader } from '../../src/analysis/type-aware.js';

const cwd = new URL('../fixtures/typed/', import.meta.url).pathname;

async function lint(preset: 'recommended' | 'recommended-type-checked', typed: boolean) {
  const eslint = new ESLint({
    cwd,
    overrideConfigFile: true,
    overrideConfig: [
      plugin.configs[preset] as never,
      {
        files: ['**/*.ts'],
        languageOptions: {
          parser: tseslint.parser as never,
          // After the preset: recommended-type-checked asks for the project service by itself.
          parserOptions: typed ? { projectService: true, tsconfigRootDir: cwd } : { projectService: false },
        },
      },
      // Only the idempotency rule is under test here.
      { rules: Object.fromEntries(Object.keys(plugin.rules).map((r) => [`safe-retry/${r}`, r === 'no-unsafe-write-retry' ? 'error' : 'off'])) },
    ],
  });
  const [result] = await eslint.lintFiles(['caller.ts']);
  return result!.messages.map((m) => `${m.line}:${m.ruleId}`);
}

describe('type-aware layer', () => {
  it('reads the HTTP method and the @idempotent tag of functions declared in other files', async () => {
    // syncLedger posts (line 6); createOrUpdateOrder is tagged @idempotent; loadLedger is a GET.
    expect(await lint('recommended-type-checked', true)).toEqual(['6:safe-retry/no-unsafe-write-retry']);
  }, 60_000);

  it('leaves the syntactic preset unchanged whether or not type information exists', async () => {
    // Without the checker: "create..." is a write by its verb (its @idempotent tag is read only
    // where the body is followed); "sync..." says nothing, so the imported function's body is
    // read and it posts; "load..." is a read by its verb.
    const expected = ['6:safe-retry/no-unsafe-write-retry', '7:safe-retry/no-unsafe-write-retry'];
    expect(await lint('recommended', false)).toEqual(expected);
    expect(await lint('recommended', true)).toEqual(expected);
  }, 60_000);

  it('falls back to the syntax when the type-checked preset runs without type information', async () => {
    expect(await lint('recommended-type-checked', false)).toEqual(['6:safe-retry/no-unsafe-write-retry', '7:safe-retry/no-unsafe-write-retry']);
  }, 60_000);

  it('treats a checker that throws as unknown instead of crashing the rule', () => {
    const fail = () => {
      throw new TypeError("Cannot read properties of undefined (reading 'includes')");
    };
    const tsNode = { kind: 80 };
    const services = {
      program: { getTypeChecker: () => ({ getSymbolAtLocation: fail, getAliasedSymbol: fail }) },
      esTreeNodeToTSNodeMap: { get: () => tsNode },
    };
    const declarationOf = createDeclarationReader(services as never);
    expect(declarationOf({ type: 'Identifier', name: 'syncLedger' } as never)).toBeUndefined();
  });
});
