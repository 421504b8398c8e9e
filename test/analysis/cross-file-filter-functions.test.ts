/**
 * A retry helper of another file that calls a function its caller passes (an `onFailedAttempt`
 * that throws on 4xx): functions never cross files, so the helper's filter is unknown at such a
 * call, never "no filter"; a call that passes no function keeps the helper's own reading.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { clearModuleCache } from '../../src/analysis/wrappers/index.js';
import { temporaryProjects } from '../helpers/project.js';
import { lintAt } from '../helpers/lint-at.js';

const project = temporaryProjects('safe-retry-filter-fn-');

const HELPER = `
export async function retrying(input, options = {}) {
  const onFailure = options.onFailedAttempt ?? (() => {});
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      return await input(attempt);
    } catch (error) {
      await onFailure({ error, attempt });
      if (attempt === 2) throw error;
      await new Promise((r) => setTimeout(r, Math.random() * 100 * 2 ** attempt));
    }
  }
}
`;

describe('a function passed to a retry helper of another file', () => {
  beforeEach(() => clearModuleCache());

  it('leaves the filter unknown where it may decide, and unfiltered where none is passed', () => {
    const at = project({ 'lib/retrying.js': HELPER, 'app/load.ts': '' });
    const findings = lintAt(`
      import axios from 'axios';
      import { retrying } from '../lib/retrying.js';
      const stopOn4xx = ({ error }) => { if (error.response?.status < 500) throw error; };
      export const a = () => retrying(() => axios.get('/a'), { onFailedAttempt: ({ error }) => { if (error.response?.status < 500) throw error; } });
      export const b = () => retrying(() => axios.get('/b'), { onFailedAttempt: stopOn4xx });
      export const c = () => retrying(() => axios.get('/c'));
    `, at('app/load.ts')).filter((f) => f.endsWith('no-retry-on-client-error'));
    expect(findings).toEqual(['7 no-retry-on-client-error']);
  });
});
