import type { LibraryDescriptor } from '../library.js';

export const GENERIC_LIBRARIES: readonly LibraryDescriptor[] = [];
