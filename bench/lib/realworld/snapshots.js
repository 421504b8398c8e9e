// Fetched repository snapshots (read-only git directories, <mirror>/<owner>+<name>/repo) and their
// extraction at a pinned commit into a working directory outside the project. The mirror is never
// written to: extraction reads the commit's tree into a throwaway index file and checks it out from
// there, so nothing but object reads touches the snapshot.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

export const MARKER = '.safe-retry-realworld-commit';

export const dirName = (repo) => repo.replace('/', '+');

function git(gitDir, args, options = {}) {
  const r = spawnSync('git', ['--git-dir', gitDir, ...args], { encoding: 'utf8', maxBuffer: 256 << 20, ...options });
  if (r.error) throw new Error(`git ${args[0]}: ${r.error.message}`);
  return r;
}

/** The mirror directory: `--mirror PATH`, else $SAFE_RETRY_MIRROR; no machine path is assumed. */
export function mirrorDir(flag) {
  const dir = flag ?? process.env['SAFE_RETRY_MIRROR'];
  if (!dir) throw new Error('no mirror directory: pass --mirror PATH or set SAFE_RETRY_MIRROR (the directory holding <owner>+<name>/repo snapshots)');
  if (!existsSync(dir)) throw new Error(`mirror directory ${dir} does not exist`);
  return resolve(dir);
}

/**
 * What the mirror holds for a repository at a commit: { ok: true, gitDir } or { ok: false, reason }.
 * A snapshot fetched after the labels were written may lack the pinned commit, which is reported
 * as such rather than as a missing file.
 */
export function locate(mirror, repo, commit) {
  const gitDir = join(mirror, dirName(repo), 'repo');
  if (!existsSync(gitDir)) return { ok: false, reason: `not in the mirror (no ${join(dirName(repo), 'repo')}); fetch github:${repo}` };
  const r = git(gitDir, ['cat-file', '-e', `${commit}^{commit}`]);
  if (r.status !== 0) {
    const head = git(gitDir, ['rev-parse', 'HEAD']).stdout.trim();
    return { ok: false, reason: `the snapshot has no commit ${commit} (its HEAD is ${head || 'unknown'}); fetch github:${repo} again or re-pin the labels` };
  }
  return { ok: true, gitDir };
}

/** Line count of each file at the commit (undefined: no such file), read with one `git cat-file --batch`. */
export function lineCounts(gitDir, commit, paths) {
  const unique = [...new Set(paths)];
  const r = git(gitDir, ['cat-file', '--batch'], { input: Buffer.from(unique.map((p) => `${commit}:${p}\n`).join('')), encoding: 'buffer' });
  if (r.status !== 0) throw new Error(`git cat-file --batch in ${gitDir}: ${r.stderr.toString()}`);
  const out = r.stdout;
  const counts = new Map();
  let at = 0;
  for (const path of unique) {
    const nl = out.indexOf(10, at);
    const header = out.subarray(at, nl).toString();
    at = nl + 1;
    const m = /^[0-9a-f]+ (\w+) (\d+)$/.exec(header);
    if (!m) continue; // "<spec> missing"
    const size = Number(m[2]);
    const body = out.subarray(at, at + size);
    at += size + 1;
    if (m[1] !== 'blob') continue;
    // Lines as an editor numbers them: a final newline does not start another line.
    let lines = 0;
    for (const byte of body) if (byte === 10) lines++;
    if (size > 0 && body[size - 1] !== 10) lines++;
    counts.set(path, lines);
  }
  return counts;
}

/**
 * The repository's tree at `commit` in DIR/<owner>+<name>, extracted only when missing or at another
 * commit. The marker file is written last, so an interrupted extraction is redone, not trusted.
 * `git archive` is not used: it drops `export-ignore` paths, and labelled files or the files they
 * import can be among them; and it stops at the first blob the snapshot lacks (snapshots leave out
 * files of several MiB: binaries, bundles, images), where this skips such files and counts them.
 */
export function extract(gitDir, commit, workDir, repo) {
  const target = join(workDir, dirName(repo));
  const marker = join(target, MARKER);
  if (existsSync(marker) && readFileSync(marker, 'utf8').trim() === commit) return { dir: target, extracted: false, absent: [] };
  const partial = `${target}.part`;
  rmSync(partial, { recursive: true, force: true });
  mkdirSync(partial, { recursive: true });
  const scratch = mkdtempSync(join(tmpdir(), 'safe-retry-index-'));
  let absent;
  try {
    const env = { ...process.env, GIT_INDEX_FILE: join(scratch, 'index') };
    const read = git(gitDir, ['read-tree', commit], { env });
    if (read.status !== 0) throw new Error(`git read-tree ${commit} for ${repo}: ${read.stderr.trim()}`);
    const { present, missing } = blobsPresent(gitDir, commit);
    absent = missing;
    // core.autocrlf off: the bytes of the commit, so line numbers are the labels' lines.
    const out = git(gitDir, ['-c', 'core.autocrlf=false', '-c', 'core.symlinks=true', `--work-tree=${partial}`, 'checkout-index', '--force', '-z', '--stdin'], { env, input: present.map((p) => `${p}\0`).join('') });
    if (out.status !== 0) throw new Error(`git checkout-index for ${repo}: ${out.stderr.trim()}`);
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
  rmSync(target, { recursive: true, force: true });
  renameSync(partial, target);
  writeFileSync(marker, `${commit}\n`);
  return { dir: target, extracted: true, absent };
}

/** Paths of the commit's files whose content the snapshot holds, and those it lacks (submodules are neither). */
function blobsPresent(gitDir, commit) {
  const tree = git(gitDir, ['ls-tree', '-r', '-z', '--full-tree', commit]);
  if (tree.status !== 0) throw new Error(`git ls-tree ${commit}: ${tree.stderr.trim()}`);
  const entries = tree.stdout
    .split('\0')
    .filter(Boolean)
    .map((line) => {
      const tab = line.indexOf('\t');
      const [, type, sha] = line.slice(0, tab).split(' ');
      return { type, sha, path: line.slice(tab + 1) };
    })
    .filter((e) => e.type === 'blob');
  const check = git(gitDir, ['cat-file', '--batch-check=%(objectname)'], { input: entries.map((e) => `${e.sha}\n`).join('') });
  const answers = check.stdout.split('\n');
  const present = [];
  const missing = [];
  entries.forEach((e, i) => (answers[i] === e.sha ? present : missing).push(e.path));
  return { present, missing };
}
