/**
 * No rule may throw on any syntactically valid file: lint the JavaScript shipped in the project's
 * own dependencies with every rule. Files that do not parse are not the rules' business and are
 * counted separately.
 */
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { Linter } from 'eslint';
import { expect, it } from 'vitest';
import plugin from '../src/index.js';

const root = new URL('../node_modules/', import.meta.url).pathname;

function* jsFiles(dir: string): Generator<string> {
  let entries: string[];
  try { entries = readdirSync(dir); } catch { return; }
  for (const name of entries) {
    const path = join(dir, name);
    let st;
    try { st = statSync(path); } catch { continue; }
    if (st.isDirectory()) yield* jsFiles(path);
    else if (/\.(c|m)?js$/.test(name) && st.size < 12_000_000) yield path;
  }
}

it('lints the JavaScript in node_modules with every rule and never crashes', () => {
  const linter = new Linter({ configType: 'flat' });
  const config = (sourceType: 'module' | 'commonjs') => [{
    files: ['**/*.{js,mjs,cjs}'],
    plugins: { 'safe-retry': plugin as never },
    languageOptions: { ecmaVersion: 'latest' as const, sourceType },
    // The corpus's own directive comments are not ours to judge.
    linterOptions: { noInlineConfig: true, reportUnusedDisableDirectives: 'off' as const },
    rules: plugin.configs.all.rules as never,
  }];
  const crashes: string[] = [];
  let linted = 0;
  let unparsable = 0;
  let findings = 0;
  const started = Date.now();
  for (const file of jsFiles(root)) {
    const code = readFileSync(file, 'utf8');
    const sourceType = file.endsWith('.mjs') || /^\s*(import|export)\s/m.test(code) ? 'module' : 'commonjs';
    try {
      // node_modules is ignored by flat config by default: lint under a neutral name instead.
      const name = `corpus/${file.slice(root.length).replaceAll('node_modules', 'deps')}`;
      const messages = linter.verify(code, config(sourceType), name);
      if (messages.some((m) => m.fatal)) unparsable++;
      else linted++;
      const unconfigured = messages.find((m) => !m.fatal && !m.ruleId && /No matching configuration/.test(m.message));
      if (unconfigured) crashes.push(`${file}: not linted: ${unconfigured.message}`);
      findings += messages.filter((m) => m.ruleId).length;
    } catch (error) {
      crashes.push(`${file}: ${(error as Error).message.split('\n')[0]}`);
    }
  }
  console.log(`crash test: ${linted} files linted, ${unparsable} unparsable skipped, ${findings} findings, ${crashes.length} crashes, ${((Date.now() - started) / 1000).toFixed(1)} s`);
  if (crashes.length) console.log(crashes.slice(0, 40).join("\n"));
  expect(crashes).toEqual([]);
  expect(linted).toBeGreaterThan(1000);
}, 600_000);
