import type { LibraryDescriptor } from '../library.js';

/**
 * Node's `http` and `https`: `request(options | url, options?)` and `get(...)`. They do not retry
 * and never reject on a status; the method is the options' `method`, GET when absent.
 */
export const nodeHttp: LibraryDescriptor = {
  id: 'http',
  modules: ['http', 'https'],
  http: { method: 'node-http', senders: ['request', 'get'], throwsOnClientError: false },
};
