// The plugin's entry as one file. `eslint .` loads the plugin once per run (and once per worker with
// --concurrency); as the ~210 modules tsc emits, Node spent most of that load resolving, reading and
// linking them one by one (about 0.28 s here); as one file it takes about 0.06 s. Bundled from tsc's own
// output, so the code is exactly what the tests run, and written over dist/index.js, so every import
// of the package (and the CLI, and the tests of the built plugin) loads the bundle. The rest of dist/
// stays as tsc wrote it: the type declarations, the runtime, the CLI and the formatters.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, isAbsolute, resolve } from 'node:path';

/**
 * Each module read with the source map tsc wrote beside it, its TypeScript text included, so that
 * the bundle's map leads to `src/` and carries the sources: the package leaves out tsc's separate
 * modules the bundle is made from, and a map naming them would lead nowhere.
 */
const tscSourceMaps = {
  name: 'tsc-source-maps',
  load(id) {
    if (!id.endsWith('.js') || !existsSync(`${id}.map`)) return null;
    const map = JSON.parse(readFileSync(`${id}.map`, 'utf8'));
    const base = resolve(dirname(id), map.sourceRoot ?? '');
    map.sourcesContent = map.sources.map((source) => readFileSync(resolve(base, source), 'utf8'));
    return { code: readFileSync(id, 'utf8'), map };
  },
};

export default {
  input: 'dist/index.js',
  platform: 'node',
  // Every package stays a package (eslint, typescript-eslint, the optional parsers): only the
  // plugin's own files are joined.
  external: (id) => !id.startsWith('.') && !isAbsolute(id),
  plugins: [tscSourceMaps],
  output: { file: 'dist/index.js', format: 'esm', sourcemap: true, comments: false },
};
