import type { LibraryDescriptor } from '../library.js';

/**
 * requestretry: `request` (deprecated since 2020) with `maxAttempts`/`retryDelay` options. Its
 * sites are not read; it is known as a legacy helper (R-RES-RE-X4).
 */
export const requestretry: LibraryDescriptor = {
  id: 'requestretry',
  modules: ['requestretry'],
  legacy: { modules: ['requestretry'] },
};
