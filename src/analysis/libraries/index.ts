/** The catalogue: one descriptor per library. Adding a library is adding a line here. */
import type { LibraryDescriptor } from '../library.js';
import { asyncRetry } from './async-retry.js';
import { nodeRetry } from './node-retry.js';
import { pRetry } from './p-retry.js';
import { promiseRetry } from './promise-retry.js';

export const LIBRARIES: readonly LibraryDescriptor[] = [pRetry, asyncRetry, nodeRetry, promiseRetry];
