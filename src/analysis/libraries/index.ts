/**
 * The catalogue: one descriptor per library, gathered by family. Adding a library is adding
 * its descriptor file and one entry in its family's list.
 */
import type { LibraryDescriptor } from '../library.js';
import { asyncRetry } from './async-retry.js';
import { GENERIC_LIBRARIES } from './group-generic.js';
import { HTTP_LIBRARIES } from './group-http.js';
import { nodeRetry } from './node-retry.js';
import { pRetry } from './p-retry.js';
import { promiseRetry } from './promise-retry.js';
import { safeRetryRuntime } from './safe-retry-runtime.js';
import { SDK_LIBRARIES } from './group-sdk.js';

export const LIBRARIES: readonly LibraryDescriptor[] = [
  pRetry,
  asyncRetry,
  nodeRetry,
  promiseRetry,
  safeRetryRuntime,
  ...GENERIC_LIBRARIES,
  ...HTTP_LIBRARIES,
  ...SDK_LIBRARIES,
];
