import type { LibraryDescriptor } from '../library.js';

/**
 * axios, as an HTTP client (its retries come from axios-retry or retry-axios): `axios.post(url)`,
 * `axios({ method })`, `axios.request(config)`, and instances from `axios.create()`. The promise
 * rejects on any status outside 2xx unless `validateStatus` says otherwise.
 */
export const axios: LibraryDescriptor = {
  id: 'axios',
  modules: ['axios'],
  http: { method: 'members', bodyArgument: 1, senders: ['default', 'request'], throwsOnClientError: true, nonThrowingOptions: ['validateStatus'], statusAcceptedOption: 'validateStatus', timeoutOption: 'timeout', types: ['AxiosInstance', 'AxiosStatic', 'Axios'] },
};
