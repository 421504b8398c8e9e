/**
 * TanStack Query's QueryClient defaults across files (query-defaults.ts): defaults that retry every
 * error are judged by what the hooks taking them (in other files) send, and a hook that writes
 * `retry` but no `retryDelay` waits as the project's one QueryClient says.
 */
import { readFileSync } from 'node:fs';
import { Linter } from 'eslint';
import * as tsParser from '@typescript-eslint/parser';
import { beforeEach, describe, expect, it } from 'vitest';
import plugin from '../../src/index.js';
import { clearModuleCache, moduleCacheStats } from '../../src/analysis/wrappers/index.js';
import { clearQueryProjects, queryProjectWalks } from '../../src/analysis/query-defaults.js';
import { temporaryProjects } from '../helpers/project.js';
import { lintAt } from '../helpers/lint-at.js';

const project = temporaryProjects('safe-retry-query-defaults-');
const MANIFEST = JSON.stringify({ name: 'app', dependencies: { '@tanstack/react-query': '^5.0.0', axios: '^1.0.0', ky: '^1.0.0' } });

const API = `
import axios from 'axios';
export const api = axios.create({ baseURL: '/api' });
`;
const SERVICE = `
import { api } from './api';
class UserService {
  async list() { return api.get('/users'); }
  async ban(id: string, key: string) { return api.post('/users/' + id + '/ban', null, { headers: { 'Idempotency-Key': key } }); }
}
export default new UserService();
`;
const HOOKS = `
import { useMutation, useQuery } from '@tanstack/react-query';
import users from './service';
export function useUsers() {
  const list = useQuery({ queryKey: ['users'], queryFn: () => users.list() });
  const ban = useMutation({ mutationFn: (v: { id: string; key: string }) => users.ban(v.id, v.key) });
  return { list, ban };
}
`;
const CLIENT = `import { QueryClient } from '@tanstack/react-query';
export const queryClient = new QueryClient({
  defaultOptions: {
    queries: { retry: 2 },
    mutations: { retry: 1, retryDelay: (n) => Math.random() * 1000 * 2 ** n },
  },
});
`;
const APP = { 'src/api.ts': API, 'src/service.ts': SERVICE, 'src/hooks.ts': HOOKS, 'src/client.ts': CLIENT };

/** Every finding of the recommended preset as `line rule: message`. */
function findings(code: string, filename: string): string[] {
  const linter = new Linter({ configType: 'flat', cwd: '/' });
  return linter.verify(code, [{
    files: ['**/*.{ts,tsx,js}'],
    plugins: { 'safe-retry': plugin as never },
    languageOptions: { parser: tsParser as never, parserOptions: { ecmaFeatures: { jsx: true } } },
    rules: plugin.configs.recommended.rules as never,
  }], filename).map((m) => `${m.line} ${(m.ruleId ?? '').replace('safe-retry/', '')}: ${m.message}`);
}

const setUp = (files: Record<string, string>, manifest = MANIFEST) => project({ 'package.json': manifest, ...files });
const lint = (at: (name: string) => string, name: string) => lintAt(readFileSync(at(name), 'utf8'), at(name));
const clientErrors = (at: (name: string) => string, name: string) => lint(at, name).filter((f) => f.endsWith('no-retry-on-client-error'));

describe('QueryClient defaults judged by the hooks that take them', () => {
  beforeEach(() => { clearModuleCache(); clearQueryProjects(); });

  it('reports defaults that retry every error where a hook of another file sends a request rejecting on 4xx', () => {
    const at = setUp(APP);
    const messages = findings(CLIENT, at('src/client.ts')).filter((f) => f.includes('no-retry-on-client-error'));
    expect(messages).toHaveLength(2);
    expect(messages[0]).toContain('4 no-retry-on-client-error: QueryClient() queries retries every error of the code that takes these defaults');
    expect(messages[0]).toContain('useQuery() at src/hooks.ts:5 sends users.list(), which rejects on 4xx');
    expect(messages[1]).toContain('5 no-retry-on-client-error: QueryClient() mutations');
    expect(messages[1]).toContain('useMutation() at src/hooks.ts:6 sends users.ban(), which rejects on 4xx');
  });

  it('judges the library default of queries (no retry written) the same way, through a query function imported from a third file', () => {
    const at = setUp({
      'src/http/client.ts': `import ky from 'ky';\nexport const api = ky.create({ prefixUrl: '/api', retry: 0 });\n`,
      'src/http/fetch-links.ts': `import { api } from './client';\nexport async function fetchLinks() { return api.get('links').json(); }\n`,
      'src/links.tsx': `import { useQuery } from '@tanstack/react-query';\nimport { fetchLinks } from './http/fetch-links';\nexport function Links() {\n  const { data } = useQuery({ queryKey: ['links'], queryFn: fetchLinks });\n  return data;\n}\n`,
      'src/main.tsx': `import { QueryClient } from '@tanstack/react-query';\nexport const queryClient = new QueryClient({ defaultOptions: { queries: { staleTime: 60_000 } } });\n`,
    });
    expect(clientErrors(at, 'src/main.tsx')).toEqual(['2 no-retry-on-client-error']);
  });

  it('stays silent where the defaults stop on 4xx, or every hook writes its own retry', () => {
    const filtered = setUp({ ...APP, 'src/client.ts': `import { QueryClient } from '@tanstack/react-query';
import { isAxiosError } from 'axios';
const retry = (n: number, error: unknown) => n < 2 && !(isAxiosError(error) && (error.response?.status ?? 500) < 500);
export const queryClient = new QueryClient({ defaultOptions: { queries: { retry }, mutations: { retry } } });
` });
    expect(clientErrors(filtered, 'src/client.ts')).toEqual([]);
    const own = setUp({ ...APP, 'src/hooks.ts': `
import { useMutation, useQuery } from '@tanstack/react-query';
import users from './service';
export function useUsers() {
  const list = useQuery({ queryKey: ['users'], queryFn: () => users.list(), retry: false });
  const ban = useMutation({ mutationFn: (v: { id: string; key: string }) => users.ban(v.id, v.key), retry: 0 });
  return { list, ban };
}
` });
    expect(clientErrors(own, 'src/client.ts')).toEqual([]);
  });

  it('stays silent where the hooks send requests that resolve on 4xx (fetch without a check of res.ok)', () => {
    const at = setUp({ ...APP, 'src/hooks.ts': `
import { useQuery } from '@tanstack/react-query';
export const useUsers = () => useQuery({ queryKey: ['users'], queryFn: () => fetch('/api/users').then((r) => r.json()) });
` });
    expect(clientErrors(at, 'src/client.ts')).toEqual([]);
  });

  it('does not know which defaults apply with a second QueryClient, or defaults changed at run time', () => {
    const two = setUp({ ...APP, 'src/admin/client.ts': `import { QueryClient } from '@tanstack/react-query';\nexport const adminClient = new QueryClient();\n` });
    expect(clientErrors(two, 'src/client.ts')).toEqual([]);
    const changed = setUp({ ...APP, 'src/setup.ts': `import { queryClient } from './client';\nqueryClient.setQueryDefaults(['users'], { retry: false });\n` });
    expect(clientErrors(changed, 'src/client.ts')).toEqual([]);
  });

  it('leaves out the QueryClients of tests and of nested packages', () => {
    const at = setUp({
      ...APP,
      'src/__tests__/render.tsx': `import { QueryClient } from '@tanstack/react-query';\nexport const testClient = new QueryClient({ defaultOptions: { queries: { retry: false } } });\n`,
      'src/users.test.ts': `import { QueryClient } from '@tanstack/react-query';\nconst c = new QueryClient();\n`,
      'packages/other/package.json': MANIFEST,
      'packages/other/client.ts': `import { QueryClient } from '@tanstack/react-query';\nexport const other = new QueryClient();\n`,
    });
    expect(clientErrors(at, 'src/client.ts')).toEqual(['4 no-retry-on-client-error', '5 no-retry-on-client-error']);
  });

  it('reads the hooks of a client built in the same file as them', () => {
    const code = `import axios from 'axios';
import { QueryClient, useQuery } from '@tanstack/react-query';
export const queryClient = new QueryClient();
export const useOrders = () => useQuery({ queryKey: ['orders'], queryFn: () => axios.get('/orders') });
`;
    const at = setUp({ 'src/app.ts': code });
    expect(clientErrors(at, 'src/app.ts')).toEqual(['3 no-retry-on-client-error']);
  });

  it('parses the hook files once while the client file is edited', () => {
    const at = setUp(APP);
    expect(clientErrors(at, 'src/client.ts')).toHaveLength(2);
    const parses = moduleCacheStats().parses;
    const edited = CLIENT.replace('retry: 2', 'retry: 3');
    expect(lintAt(edited, at('src/client.ts')).filter((f) => f.endsWith('no-retry-on-client-error'))).toHaveLength(2);
    expect(moduleCacheStats().parses).toBe(parses);
  });

  it('reads nothing of a project whose package.json does not depend on TanStack Query', () => {
    const at = setUp(APP, JSON.stringify({ name: 'app', dependencies: { axios: '^1.0.0' } }));
    const before = queryProjectWalks();
    expect(clientErrors(at, 'src/client.ts')).toEqual([]);
    expect(queryProjectWalks()).toBe(before);
  });
});

describe('a hook that writes retry but no retryDelay', () => {
  beforeEach(() => { clearModuleCache(); clearQueryProjects(); });

  const HOOK = `import { useMutation } from '@tanstack/react-query';
import users from './service';
export const useBan = () => useMutation({
  mutationFn: (v: { id: string; key: string }) => users.ban(v.id, v.key),
  retry: 3,
});
`;

  it('waits as the QueryClient defaults say, and the message says where they come from', () => {
    const at = setUp({ ...APP, 'src/ban.ts': HOOK, 'src/client.ts': `import { QueryClient } from '@tanstack/react-query';
export const queryClient = new QueryClient({ defaultOptions: { mutations: { retryDelay: () => 1000 } } });
` });
    const messages = findings(HOOK, at('src/ban.ts')).filter((f) => /backoff|jitter/.test(f));
    expect(messages).toHaveLength(2);
    expect(messages[0]).toContain('3 require-exponential-backoff: useMutation() (its retryDelay from the QueryClient defaults in src/client.ts)');
    expect(messages[1]).toContain('3 require-jitter');
  });

  it('stays silent where the defaults wait with jitter', () => {
    const at = setUp({ ...APP, 'src/ban.ts': HOOK });
    expect(lint(at, 'src/ban.ts').filter((f) => /backoff|jitter/.test(f))).toEqual([]);
  });

  it('keeps the library default shape where the project cannot be read', () => {
    const at = setUp({ ...APP, 'src/ban.ts': HOOK, 'src/second.ts': `import { QueryClient } from '@tanstack/react-query';\nexport const second = new QueryClient();\n` });
    expect(lint(at, 'src/ban.ts').filter((f) => /backoff|jitter/.test(f))).toEqual(['3 require-jitter']);
  });

  it('keeps the library default shape in a test that builds its own QueryClient', () => {
    const test = `import { QueryClient, useMutation } from '@tanstack/react-query';
import users from './service';
export const testClient = new QueryClient({ defaultOptions: { mutations: { retryDelay: 10 } } });
export const useBan = () => useMutation({ mutationFn: (v: { id: string; key: string }) => users.ban(v.id, v.key), retry: 3 });
`;
    // The app's defaults jitter; the test's own client does not, and its hook is read by the library's default shape.
    const at = setUp({ ...APP, 'src/ban.test.ts': test });
    expect(lint(at, 'src/ban.test.ts').filter((f) => /backoff|jitter/.test(f))).toEqual(['3 require-jitter', '4 require-jitter']);
  });

  it('walks the project once for the files of one run', () => {
    const at = setUp({ ...APP, 'src/ban.ts': HOOK });
    const before = queryProjectWalks();
    lint(at, 'src/ban.ts');
    lint(at, 'src/client.ts');
    lint(at, 'src/hooks.ts');
    expect(queryProjectWalks()).toBe(before + 1);
  });
});

describe('QueryClient defaults around a client that retries on its own (no-nested-retry)', () => {
  beforeEach(() => { clearModuleCache(); clearQueryProjects(); });

  /** A hook file, the query function in a second file, the ky client in a third. */
  const chain = (client: string, fetcher = `import { api } from './client';\nexport async function fetchLinks() { return api.get('links').json(); }\n`, hook = `queryFn: fetchLinks`) => setUp({
    'src/http/client.ts': `import ky from 'ky';\nexport const api = ky.create({ prefixUrl: '/api', ${client} });\n`,
    'src/http/fetch-links.ts': fetcher,
    'src/links.tsx': `import { useQuery } from '@tanstack/react-query';\nimport { fetchLinks } from './http/fetch-links';\nexport function Links() {\n  const { data } = useQuery({ queryKey: ['links'], ${hook} });\n  return data;\n}\n`,
    'src/main.tsx': `import { QueryClient } from '@tanstack/react-query';\nexport const queryClient = new QueryClient({ defaultOptions: { queries: { staleTime: 60_000 } } });\n`,
  });
  const nested = (at: (name: string) => string) => {
    const code = readFileSync(at('src/main.tsx'), 'utf8');
    return findings(code, at('src/main.tsx')).filter((f) => f.includes('no-nested-retry'));
  };

  it('reports the defaults (4 calls) where a hook\'s imported query function sends through a ky client of a third file that retries', () => {
    const found = nested(chain('retry: { limit: 2 }'));
    expect(found).toHaveLength(1);
    expect(found[0]).toContain('2 no-nested-retry: QueryClient() queries retries api.get() (ky.create() in client.ts) of useQuery() at src/links.tsx:4');
    expect(found[0]).toContain('4 x 3 = 12 calls');
  });

  it('stays silent where the client does not retry, the hook writes its own retry, or the client retries reads only and the function writes', () => {
    expect(nested(chain('retry: 0'))).toEqual([]);
    expect(nested(chain('retry: { limit: 2 }', undefined, 'queryFn: fetchLinks, retry: false'))).toEqual([]);
    const post = `import { api } from './client';\nexport async function fetchLinks() { return api.post('links', { json: {} }).json(); }\n`;
    expect(nested(chain("retry: { limit: 2, methods: ['get'] }", post))).toEqual([]);
  });
});
