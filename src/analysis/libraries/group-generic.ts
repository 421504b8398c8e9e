import type { LibraryDescriptor } from '../library.js';
import { cockatiel } from './cockatiel.js';
import { exponentialBackoff } from './exponential-backoff.js';
import { rxjs } from './rxjs.js';

export const GENERIC_LIBRARIES: readonly LibraryDescriptor[] = [
  exponentialBackoff,
  cockatiel,
  rxjs,
];
