import type { Site } from './harness.js';

export const SITES: readonly Site[];
