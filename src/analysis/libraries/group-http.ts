import type { LibraryDescriptor } from '../library.js';
import { angularHttp } from './angular-http.js';
import { axios } from './axios.js';
import { axiosRetry } from './axios-retry.js';
import { discordJs } from './discord.js';
import { fetchClient } from './fetch.js';
import { nestjsAxios } from './nestjs-axios.js';
import { nodeHttp } from './node-http.js';
import { ofetch } from './ofetch.js';
import { fetchRetry, fetchRetryTs } from './fetch-retry.js';
import { got } from './got.js';
import { ky } from './ky.js';
import { octokitPluginRetry } from './octokit-plugin-retry.js';
import { retryAxios } from './retry-axios.js';
import { rtkQuery } from './rtk-query.js';
import { rxjsAjax } from './rxjs-ajax.js';
import { superagent } from './superagent.js';
import { undici } from './undici.js';

export const HTTP_LIBRARIES: readonly LibraryDescriptor[] = [
  axiosRetry,
  retryAxios,
  got,
  ky,
  fetchRetry,
  fetchRetryTs,
  octokitPluginRetry,
  undici,
  superagent,
  rtkQuery,
  // HTTP clients that do not retry: known for the method a call sends and whether it throws on 4xx.
  axios,
  ofetch,
  fetchClient,
  rxjsAjax,
  nodeHttp,
  // Clients reached only through a member or parameter of their type.
  angularHttp,
  nestjsAxios,
  discordJs,
];
