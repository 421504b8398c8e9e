// Scoring findings against labels. A finding of rule R belongs to the smallest labelled range (a
// site's own range or one of its `also` ranges) that contains its line in that file; on a tie, to
// every site that expects R, else to the first: two sites sharing a range (two calls of one helper
// whose defect is reported once, in the helper, as the rules do) are both answered by that report,
// and a right report is never turned into a false alarm.
//
// Per rule:
//   TP  a site that expects R and got at least one finding of R;
//   FN  a site that expects R and got none;
//   FP  a site that does not expect R and got a finding of R (counted once per site, like TP),
//       and every finding of R in a labelled file outside all labelled ranges (each one counts);
//   duplicates: findings of R on a site beyond the first (one site should get one report per rule),
//       listed apart and left out of precision, so a double report does not hide a miss elsewhere.

/** Ranges of every site, indexed by repo and path. */
export function rangeIndex(sites) {
  const index = new Map();
  for (const site of sites) {
    const ranges = [{ path: site.path, line: site.line, endLine: site.endLine }, ...site.also];
    for (const r of ranges) {
      const key = `${site.repo}\0${r.path}`;
      if (!index.has(key)) index.set(key, []);
      index.get(key).push({ site, line: r.line, endLine: r.endLine });
    }
  }
  return index;
}

/** Every file the labels name, per repository: a file named anywhere is labelled whole. */
export function labelledFiles(sites) {
  const byRepo = new Map();
  for (const s of sites) {
    const set = byRepo.get(s.repo) ?? new Set();
    set.add(s.path);
    for (const a of s.also) set.add(a.path);
    byRepo.set(s.repo, set);
  }
  return byRepo;
}

function owners(index, finding) {
  const candidates = (index.get(`${finding.repo}\0${finding.path}`) ?? []).filter((r) => r.line <= finding.line && finding.line <= r.endLine);
  if (candidates.length === 0) return [];
  const size = (r) => r.endLine - r.line;
  const smallest = Math.min(...candidates.map(size));
  const tied = candidates.filter((r) => size(r) === smallest);
  const expecting = tied.filter((r) => r.site.rules.includes(finding.rule));
  return [...new Set((expecting.length ? expecting : [tied[0]]).map((r) => r.site))];
}

/**
 * `findings`: { repo, path, line, column, rule, message } for every report of a scored rule in a
 * labelled file. `sites`: the scored sites. `rules`: the rules scored. Returns the per-rule counts and
 * the lists a reader works from.
 */
export function score({ sites, findings, rules }) {
  const index = rangeIndex(sites);
  const hits = new Map(); // site id -> rule -> findings
  const outside = [];
  for (const f of findings) {
    if (!rules.includes(f.rule)) continue;
    const owning = owners(index, f);
    if (owning.length === 0) outside.push(f);
    for (const site of owning) {
      const byRule = hits.get(site.id) ?? new Map();
      byRule.set(f.rule, [...(byRule.get(f.rule) ?? []), f]);
      hits.set(site.id, byRule);
    }
  }

  const perRule = Object.fromEntries(rules.map((r) => [r, { expected: 0, tp: 0, fn: 0, fp: 0, duplicates: 0 }]));
  const misses = [];
  const falseAlarms = [];
  const duplicates = [];
  for (const site of sites) {
    for (const rule of rules) {
      const got = hits.get(site.id)?.get(rule) ?? [];
      const expects = site.rules.includes(rule);
      const c = perRule[rule];
      if (expects) {
        c.expected++;
        if (got.length) c.tp++;
        else {
          c.fn++;
          misses.push({ site, rule });
        }
      } else if (got.length) {
        c.fp++;
        falseAlarms.push({ site, rule, finding: got[0] });
      }
      if (got.length > 1) {
        c.duplicates += got.length - 1;
        duplicates.push({ site, rule, findings: got, expected: expects });
      }
    }
  }
  for (const f of outside) {
    perRule[f.rule].fp++;
    falseAlarms.push({ site: undefined, rule: f.rule, finding: f });
  }
  const overall = { expected: 0, tp: 0, fn: 0, fp: 0, duplicates: 0 };
  for (const c of Object.values(perRule)) for (const k of Object.keys(overall)) overall[k] += c[k];
  for (const c of [...Object.values(perRule), overall]) {
    c.precision = c.tp + c.fp ? c.tp / (c.tp + c.fp) : NaN;
    c.recall = c.tp + c.fn ? c.tp / (c.tp + c.fn) : NaN;
  }
  return { perRule, overall, misses, falseAlarms, duplicates };
}

/** The key a hand-written note is filed under: the site id, or the finding's own location outside every site. */
export const noteKey = (entry) => entry.site?.id ?? `${entry.finding.repo}:${entry.finding.path}:${entry.finding.line}`;
