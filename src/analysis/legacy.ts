/**
 * Legacy retry helpers (R-RES-RE-X4), gathered from the descriptors' `legacy` facets: standalone
 * helpers and retry decorators that do not compose with a circuit breaker.
 */
import type { LibraryDescriptor } from './library.js';
import { LIBRARIES } from './libraries/index.js';

export interface LegacyExport {
  readonly names: readonly string[];
  /** Added to the message: where the library's own replacement is. */
  readonly hint: string;
}

export interface LegacyCatalogue {
  /** Modules whose every import is a legacy helper. */
  readonly modules: readonly string[];
  /** Legacy entry points inside otherwise fine modules, by module. */
  readonly exports: ReadonlyMap<string, LegacyExport>;
}

export function legacyCatalogue(libraries: readonly LibraryDescriptor[]): LegacyCatalogue {
  const modules: string[] = [];
  const exports = new Map<string, LegacyExport>();
  for (const { legacy } of libraries) {
    if (!legacy) continue;
    modules.push(...(legacy.modules ?? []));
    for (const [module, names] of Object.entries(legacy.exports ?? {})) exports.set(module, { names, hint: legacy.hint ?? '' });
  }
  return { modules, exports };
}

/** The built-in catalogue's legacy helpers. */
export const LEGACY: LegacyCatalogue = legacyCatalogue(LIBRARIES);
