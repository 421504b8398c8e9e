// Small helpers shared by the benchmarks: medians, formatting, and the A/B rotation.

export function median(values) {
  const sorted = values.filter((v) => Number.isFinite(v)).sort((a, b) => a - b);
  if (sorted.length === 0) return NaN;
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

export const ms = (v) => (Number.isFinite(v) ? (v >= 100 ? v.toFixed(0) : v.toFixed(1)) : 'n/a');
export const pct = (v) => (Number.isFinite(v) ? `${(v * 100).toFixed(1)}%` : 'n/a');
export const ratio = (v) => (Number.isFinite(v) ? `${v.toFixed(2)}x` : 'n/a');
export const mb = (bytes) => (Number.isFinite(bytes) ? (bytes / 2 ** 20).toFixed(0) : 'n/a');

/** Round `r` runs the variants in a rotated order, so warm-up, GC debt and machine noise fall on each alike. */
export function rotation(names, round) {
  const k = round % names.length;
  return [...names.slice(k), ...names.slice(0, k)];
}

export function table(header, rows) {
  const align = header.map((h) => (h.startsWith('<') ? '---' : '---:'));
  const clean = header.map((h) => h.replace(/^</, ''));
  return [`| ${clean.join(' | ')} |`, `| ${align.join(' | ')} |`, ...rows.map((r) => `| ${r.join(' | ')} |`)].join('\n');
}
