// The real-world corpus's labels: every part named by bench/realworld/manifest.json, read and checked.
// A bad label stops the run before anything is linted: a score computed on a label that points at
// the wrong line or names a rule that does not exist is worse than no score. Every problem found is
// reported at once, each naming its part, the site id and the field.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { basename, isAbsolute, join, relative } from 'node:path';

export const KINDS = ['application', 'library'];
const LINTED = /\.(?:ts|tsx|mts|cts|js|jsx|mjs|cjs)$/;
const SPRING = /(?:^|\/)application[^/]*\.ya?ml$/;
const HASH = /^[0-9a-f]{40}$/;
const REPO = /^[A-Za-z0-9][A-Za-z0-9_.-]*\/[A-Za-z0-9][A-Za-z0-9_.-]*$/;

export class LabelError extends Error {
  constructor(problems) {
    super(`${problems.length} problem(s) in the labels:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.problems = problems;
  }
}

/**
 * The part files the manifest names. `"parts": "parts/*.json"` means every .json file in that
 * directory (parts are added by several people at once, so nobody has to edit a shared list); an
 * explicit array of paths is read as given. `partsDir` replaces the manifest's directory (a scratch
 * set of labels outside the project).
 */
export function partFiles(manifestPath, partsDir) {
  const base = join(manifestPath, '..');
  if (partsDir) return jsonFilesIn(partsDir);
  const manifest = JSON.parse(readFileSync(manifestPath, 'utf8'));
  const { parts } = manifest;
  if (typeof parts === 'string') {
    const m = /^(.*)\/\*\.json$/.exec(parts);
    if (!m) throw new LabelError([`${basename(manifestPath)}: parts: "${parts}" is neither a list of files nor "<dir>/*.json"`]);
    return jsonFilesIn(join(base, m[1]));
  }
  if (!Array.isArray(parts)) throw new LabelError([`${basename(manifestPath)}: parts: expected "<dir>/*.json" or a list of paths`]);
  return parts.map((p) => join(base, p));
}

function jsonFilesIn(dir) {
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .sort()
    .map((f) => join(dir, f));
}

const isPositiveInt = (v) => Number.isInteger(v) && v > 0;

/**
 * Reads and checks every part without the snapshots: shapes, kinds, rule names, line order, ids
 * unique across parts, one commit per repository. Returns { repos: Map, sites: [] } with each site
 * knowing its part; throws LabelError listing every problem.
 */
export function loadLabels(files, { ruleNames, presetRules, displayBase }) {
  const problems = [];
  const repos = new Map();
  const sites = [];
  const ids = new Map();
  for (const file of files) {
    const part = displayBase ? relative(displayBase, file) : file;
    let data;
    try {
      data = JSON.parse(readFileSync(file, 'utf8'));
    } catch (error) {
      problems.push(`${part}: not readable as JSON: ${String(error?.message ?? error).split('\n')[0]}`);
      continue;
    }
    if (!Array.isArray(data?.repos)) problems.push(`${part}: repos: expected an array`);
    if (!Array.isArray(data?.sites)) problems.push(`${part}: sites: expected an array`);
    for (const [i, r] of (Array.isArray(data?.repos) ? data.repos : []).entries()) {
      const where = `${part}: repos[${i}]${typeof r?.repo === 'string' ? ` "${r.repo}"` : ''}`;
      if (typeof r?.repo !== 'string' || !REPO.test(r.repo)) {
        problems.push(`${where}: repo: expected "owner/name"`);
        continue;
      }
      if (r.commit === undefined) problems.push(`${where}: commit: missing`);
      else if (typeof r.commit !== 'string' || !HASH.test(r.commit)) problems.push(`${where}: commit: expected the full 40-hex hash, got ${JSON.stringify(r.commit)}`);
      if (!KINDS.includes(r.kind)) problems.push(`${where}: kind: expected ${KINDS.join(' or ')}, got ${JSON.stringify(r.kind)}`);
      const seen = repos.get(r.repo);
      if (seen && seen.commit !== r.commit) problems.push(`${where}: commit: ${r.commit} differs from ${seen.commit} in ${seen.part} (one commit per repository)`);
      if (!seen) repos.set(r.repo, { repo: r.repo, commit: r.commit, kind: r.kind, about: r.about ?? '', part });
    }
    for (const [i, s] of (Array.isArray(data?.sites) ? data.sites : []).entries()) {
      const id = typeof s?.id === 'string' && s.id ? s.id : undefined;
      const where = `${part}: site ${id ? `"${id}"` : `sites[${i}]`}`;
      const bad = (field, what) => problems.push(`${where}: ${field}: ${what}`);
      if (!id) bad('id', 'missing');
      else if (ids.has(id)) bad('id', `duplicate (also in ${ids.get(id)})`);
      else ids.set(id, part);
      if (typeof s?.repo !== 'string' || !REPO.test(s.repo)) bad('repo', 'expected "owner/name"');
      checkRange(s, bad, '');
      if (!KINDS.includes(s?.kind)) bad('kind', `expected ${KINDS.join(' or ')}, got ${JSON.stringify(s?.kind)}`);
      if (!Array.isArray(s?.rules)) bad('rules', 'expected an array of rule names ([] for a clean look-alike)');
      else {
        for (const rule of s.rules) {
          if (!ruleNames.includes(rule)) bad('rules', `unknown rule name ${JSON.stringify(rule)} (the plugin's rules: ${ruleNames.join(', ')})`);
          else if (!presetRules.includes(rule)) bad('rules', `${rule} is not in the recommended preset, which is what the corpus is scored with`);
        }
        const dup = s.rules.find((r, k) => s.rules.indexOf(r) !== k);
        if (dup) bad('rules', `${dup} is listed twice`);
      }
      if (s?.guide !== undefined && !(Array.isArray(s.guide) && s.guide.every((g) => typeof g === 'string'))) bad('guide', 'expected an array of guide rule ids');
      if (s?.pattern !== undefined && typeof s.pattern !== 'string') bad('pattern', 'expected a string');
      if (typeof s?.why !== 'string' || !s.why.trim()) bad('why', 'missing (one line a reader can check against the code)');
      if (s?.also !== undefined && !Array.isArray(s.also)) bad('also', 'expected an array of ranges');
      for (const [k, a] of (Array.isArray(s?.also) ? s.also : []).entries()) checkRange({ path: s?.path, ...a }, bad, `also[${k}].`);
      if (id) sites.push({ ...s, endLine: s.endLine ?? s.line, also: (s.also ?? []).map((a) => ({ path: a.path ?? s.path, line: a.line, endLine: a.endLine ?? a.line })), part });
    }
  }
  for (const s of sites) {
    if (typeof s.repo === 'string' && REPO.test(s.repo) && !repos.has(s.repo)) problems.push(`${s.part}: site "${s.id}": repo: ${s.repo} is in no part's repos list (its commit is unknown)`);
  }
  if (problems.length) throw new LabelError(problems);
  return { repos, sites };
}

function checkRange(r, bad, prefix) {
  if (typeof r?.path !== 'string' || !r.path) bad(`${prefix}path`, 'missing');
  else if (isAbsolute(r.path) || r.path.split('/').includes('..')) bad(`${prefix}path`, `${r.path} is not a path inside the repository`);
  else if (!LINTED.test(r.path) && !SPRING.test(r.path)) bad(`${prefix}path`, `${r.path}: only .ts/.tsx/.mts/.cts/.js/.jsx/.mjs/.cjs and Spring application*.yml files are labelled`);
  if (!isPositiveInt(r?.line)) bad(`${prefix}line`, `expected a line number (1 or more), got ${JSON.stringify(r?.line)}`);
  if (r?.endLine !== undefined && !isPositiveInt(r.endLine)) bad(`${prefix}endLine`, `expected a line number, got ${JSON.stringify(r.endLine)}`);
  else if (isPositiveInt(r?.line) && r.endLine !== undefined && r.line > r.endLine) bad(`${prefix}line`, `line ${r.line} > endLine ${r.endLine}`);
}

/**
 * Checks that need the repository: every labelled file exists at the pinned commit and every range
 * ends within it. `fileLines(repo, path)` gives the file's line count at the repo's commit, or
 * undefined when there is no such file.
 */
export function checkAgainstSnapshots(sites, fileLines) {
  const problems = [];
  for (const s of sites) {
    const ranges = [{ field: '', path: s.path, line: s.line, endLine: s.endLine }, ...s.also.map((a, k) => ({ field: `also[${k}].`, ...a }))];
    for (const r of ranges) {
      const lines = fileLines(s.repo, r.path);
      if (lines === null) continue; // the repository is not in the mirror: reported once, elsewhere
      if (lines === undefined) problems.push(`${s.part}: site "${s.id}": ${r.field}path: ${r.path} not found in ${s.repo} at the pinned commit (or too large to be in the snapshot)`);
      else if (r.endLine > lines) problems.push(`${s.part}: site "${s.id}": ${r.field}${r.line > lines ? 'line' : 'endLine'}: ${r.line > lines ? r.line : r.endLine} is past the end of ${r.path} (${lines} lines)`);
    }
  }
  if (problems.length) throw new LabelError(problems);
}
