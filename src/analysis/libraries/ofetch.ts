import type { LibraryDescriptor } from '../library.js';

/**
 * ofetch as an HTTP client: `ofetch(url, { method })` rejects on 4xx and 5xx unless
 * `ignoreResponseError: true`. (Its own `retry` option is not read yet.)
 */
export const ofetch: LibraryDescriptor = {
  id: 'ofetch',
  modules: ['ofetch'],
  http: { method: 'members', senders: ['default', 'request'], throwsOnClientError: true, nonThrowingOptions: ['ignoreResponseError'] },
};
