// Every rule file in this folder, exported by name; test/meta.test.ts keeps this list and the folder equal.
import maxRetryAttempts from './max-retry-attempts.js';
import maxRetryDuration from './max-retry-duration.js';
import noLegacyRetry from './no-legacy-retry.js';
import noNestedRetry from './no-nested-retry.js';
import noRetryOnClientError from './no-retry-on-client-error.js';
import noUnsafeWriteRetry from './no-unsafe-write-retry.js';
import requireCircuitBreaker from './require-circuit-breaker.js';
import requireExponentialBackoff from './require-exponential-backoff.js';
import requireJitter from './require-jitter.js';
import requireSkipLocked from './require-skip-locked.js';
import stableIdempotencyKey from './stable-idempotency-key.js';
import validResilience4jConfig from './valid-resilience4j-config.js';

export const rules = {
  'max-retry-attempts': maxRetryAttempts,
  'max-retry-duration': maxRetryDuration,
  'no-legacy-retry': noLegacyRetry,
  'no-nested-retry': noNestedRetry,
  'no-retry-on-client-error': noRetryOnClientError,
  'no-unsafe-write-retry': noUnsafeWriteRetry,
  'require-circuit-breaker': requireCircuitBreaker,
  'require-exponential-backoff': requireExponentialBackoff,
  'require-jitter': requireJitter,
  'require-skip-locked': requireSkipLocked,
  'stable-idempotency-key': stableIdempotencyKey,
  'valid-resilience4j-config': validResilience4jConfig,
};
