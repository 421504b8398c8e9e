// Bare imports of a monorepo's own packages, found from the workspace declaration rather than a
// node_modules link (wrappers/workspaces.ts, used by resolveImport).
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { clearModuleCache, resolveImport } from '../../src/analysis/wrappers/modules.js';

const root = mkdtempSync(join(tmpdir(), 'safe-retry-workspaces-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

function write(path: string, text: string) {
  mkdirSync(join(root, path, '..'), { recursive: true });
  writeFileSync(join(root, path), text);
}

describe('workspace packages', () => {
  it('resolves a package the root package.json declares in workspaces, with no node_modules link', () => {
    write('npm/package.json', JSON.stringify({ name: 'mono', workspaces: ['libs/*', 'tools/cli'] }));
    write('npm/libs/http/package.json', JSON.stringify({ name: '@mono/http', main: './dist/index.js' }));
    write('npm/libs/http/src/index.ts', 'export const send = () => 1;\n');
    write('npm/tools/cli/package.json', JSON.stringify({ name: 'mono-cli' }));
    write('npm/tools/cli/index.ts', 'export {};\n');
    write('npm/apps/web/src/page.ts', '');
    clearModuleCache();
    const from = join(root, 'npm/apps/web/src/page.ts');
    expect(resolveImport('@mono/http', from)).toBe(join(root, 'npm/libs/http/src/index.ts'));
    expect(resolveImport('mono-cli', from)).toBe(join(root, 'npm/tools/cli/index.ts'));
    // Not declared: an installed package, not followed.
    expect(resolveImport('@mono/other', from)).toBeUndefined();
  });

  it('reads the packages list of pnpm-workspace.yaml and nothing after it', () => {
    write('pnpm/pnpm-workspace.yaml', "packages:\n  # the libraries\n  - 'packages/*'\n\nonlyBuiltDependencies:\n  - esbuild\n");
    write('pnpm/packages/shared/package.json', JSON.stringify({ name: '@p/shared', exports: { '.': { import: './dist/index.js' } } }));
    write('pnpm/packages/shared/src/index.ts', 'export {};\n');
    clearModuleCache();
    expect(resolveImport('@p/shared', join(root, 'pnpm/packages/app/src/a.ts'))).toBe(join(root, 'pnpm/packages/shared/src/index.ts'));
    expect(resolveImport('esbuild', join(root, 'pnpm/packages/app/src/a.ts'))).toBeUndefined();
  });
});
