import type { LibraryDescriptor } from '../library.js';
import { asyncLib } from './async.js';
import { bluebirdRetry } from './bluebird-retry.js';
import { cockatiel } from './cockatiel.js';
import { exponentialBackoff } from './exponential-backoff.js';
import { lifeomicAttempt } from './lifeomic-attempt.js';
import { nestjs } from './nestjs.js';
import { opossum } from './opossum.js';
import { requestretry } from './requestretry.js';
import { rxjs } from './rxjs.js';
import { tsRetryPromise } from './ts-retry-promise.js';
import { typescriptRetryDecorator } from './typescript-retry-decorator.js';

export const GENERIC_LIBRARIES: readonly LibraryDescriptor[] = [
  exponentialBackoff,
  cockatiel,
  tsRetryPromise,
  typescriptRetryDecorator,
  bluebirdRetry,
  asyncLib,
  rxjs,
  nestjs,
  lifeomicAttempt,
  // Known for one facet only: a circuit breaker, a legacy helper.
  opossum,
  requestretry,
];
