import type { LibraryDescriptor } from '../library.js';
import { axiosRetry } from './axios-retry.js';
import { fetchRetry } from './fetch-retry.js';
import { got } from './got.js';
import { ky } from './ky.js';
import { octokitPluginRetry } from './octokit-plugin-retry.js';
import { retryAxios } from './retry-axios.js';
import { superagent } from './superagent.js';
import { undici } from './undici.js';

export const HTTP_LIBRARIES: readonly LibraryDescriptor[] = [
  axiosRetry,
  retryAxios,
  got,
  ky,
  fetchRetry,
  octokitPluginRetry,
  undici,
  superagent,
];
