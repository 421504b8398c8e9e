import type { LibraryDescriptor } from '../library.js';

/**
 * `fetch`, the global and its ponyfills (node-fetch, cross-fetch, isomorphic-fetch). It does not
 * retry; the model knows it as an HTTP client: the method is the init's `method` (GET when
 * absent) and a 4xx resolves like any response, so only code that throws on `!res.ok` fails on it.
 * rxjs's `fromFetch(input, init)` (`rxjs/fetch`) is the same request as an observable.
 */
export const fetchClient: LibraryDescriptor = {
  id: 'fetch',
  modules: ['node-fetch', 'cross-fetch', 'isomorphic-fetch', 'rxjs/fetch'],
  http: { method: 'fetch', senders: ['fetch', 'default', 'fromFetch'], global: 'fetch', throwsOnClientError: false },
};
