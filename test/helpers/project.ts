import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll } from 'vitest';

/**
 * Small projects written to temporary folders for tests that follow imports across files; each call
 * returns absolute paths by relative name. The folders go when the test file ends.
 */
export function temporaryProjects(prefix: string): (files: Record<string, string>) => (name: string) => string {
  const roots: string[] = [];
  afterAll(() => {
    for (const r of roots) rmSync(r, { recursive: true, force: true });
  });
  return (files) => {
    const root = mkdtempSync(join(tmpdir(), prefix));
    roots.push(root);
    for (const [name, text] of Object.entries(files)) {
      const file = join(root, name);
      mkdirSync(dirname(file), { recursive: true });
      writeFileSync(file, text);
    }
    return (name) => join(root, name);
  };
}
