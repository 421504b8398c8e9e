/**
 * SQL in string and template literals: the row-locking clauses of queries that claim work from a
 * table (R-RES-RE-5). Pure text analysis, separate from the retry-site model.
 */

/** Cheap test so files without a locking clause skip the literal scan entirely. */
export const LOCK_HINT = /\bfor\s+(?:no\s+key\s+update|update|key\s+share|share)\b/i;

const LOCK_CLAUSE = /\bFOR\s+(NO\s+KEY\s+UPDATE|UPDATE|KEY\s+SHARE|SHARE)((?:\s+OF\s+[\w$".]+(?:\s*,\s*[\w$".]+)*)?)(\s+(?:SKIP\s+LOCKED|NOWAIT))?/gi;

/**
 * A claim picks some rows out of a set (a batch of due tasks), so a worker waiting on another
 * worker's lock is pure waste; a query that locks one known row (`WHERE id = $1 FOR UPDATE`) must
 * wait, and is left alone.
 */
const CLAIM_SHAPE = /\bLIMIT\b|\bFETCH\s+(?:FIRST|NEXT)\b|\bORDER\s+BY\b|\bstatus\b|\bpending\b|\bnext_attempt|\brun_at\b|\bdue\b|\bscheduled/i;

export interface LockClause {
  /** Offset of the clause in the text, and its end (before any SKIP LOCKED / NOWAIT). */
  readonly start: number;
  readonly end: number;
  readonly clause: string;
}

/** Locking clauses of claim-shaped SELECTs that neither skip locked rows nor fail fast. */
export function blockingClaimLocks(sql: string): LockClause[] {
  if (!/\bSELECT\b/i.test(sql) || !CLAIM_SHAPE.test(sql)) return [];
  const out: LockClause[] = [];
  for (const m of sql.matchAll(LOCK_CLAUSE)) {
    if (m[3]) continue;
    const start = m.index!;
    const end = start + m[0].length;
    out.push({ start, end, clause: m[0].replace(/\s+/g, ' ') });
  }
  return out;
}
