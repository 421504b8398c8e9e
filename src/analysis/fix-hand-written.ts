/** Fix vocabulary of hand-written retry loops: edits on the loop's own source, not on options. */
import type { LibraryFixes } from './fix-plan.js';

export const handWrittenFixes: LibraryFixes = {};
