import { Linter } from 'eslint';
import plugin from '/work/wt-perf/dist/index.js';
import tsParser from '@typescript-eslint/parser';
const code = process.argv[2];
const linter = new Linter();
const msgs = linter.verify(code, [{ files: ['**/*.ts'], languageOptions: { parser: tsParser }, plugins: { 'safe-retry': plugin }, rules: { 'safe-retry/no-unsafe-write-retry': 'error' } }], 'x.ts');
for (const m of msgs) { console.log(m.message); for (const s of m.suggestions ?? []) { console.log(' >', s.desc); console.log(code.slice(0, s.fix.range[0]) + s.fix.text + code.slice(s.fix.range[1])); } }
