import type { LibraryDescriptor } from '../library.js';

export const SDK_LIBRARIES: readonly LibraryDescriptor[] = [];
