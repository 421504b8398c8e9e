import type { LibraryDescriptor } from '../library.js';

export const HTTP_LIBRARIES: readonly LibraryDescriptor[] = [];
