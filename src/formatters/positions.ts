/**
 * Converts ESLint's locations into the positions other tools expect.
 *
 * ESLint counts columns in UTF-16 code units and breaks lines at \r\n, \r, \n, U+2028 and
 * U+2029. Git, GitHub and reviewdog break lines at \n only, and reviewdog's rdjson counts
 * columns in UTF-8 bytes (reviewdog.rdf.Position: "Column number, starting at 1 (byte count
 * in UTF-8)"). A file with a non-ASCII character before the finding, or a U+2028 inside a
 * string literal, would otherwise put the comment or the suggested change in the wrong place.
 */

const ESLINT_LINE_BREAK = /\r\n|[\r\n\u2028\u2029]/gu;

export interface TextPosition {
  /** 1-based line, lines separated by \n only. */
  readonly line: number;
  /** 1-based column in UTF-16 code units within that line. */
  readonly utf16Column: number;
  /** 1-based column in UTF-8 bytes within that line. */
  readonly utf8Column: number;
}

export class TextIndex {
  private readonly eslintLineStarts: number[] = [0];
  private readonly lineStarts: number[] = [0];

  constructor(readonly text: string) {
    for (const m of text.matchAll(ESLINT_LINE_BREAK)) this.eslintLineStarts.push(m.index + m[0].length);
    for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) this.lineStarts.push(i + 1);
  }

  /** The UTF-16 offset of an ESLint (line, column) pair, both 1-based; clamped to the text. */
  offsetOfEslint(line: number, column: number): number {
    const start = this.eslintLineStarts[Math.min(Math.max(line, 1), this.eslintLineStarts.length) - 1] ?? 0;
    return Math.min(Math.max(start + column - 1, 0), this.text.length);
  }

  /** The position of a UTF-16 offset in \n-separated lines, with both column units. */
  positionAt(offset: number): TextPosition {
    const clamped = Math.min(Math.max(offset, 0), this.text.length);
    const lineIndex = upperBound(this.lineStarts, clamped) - 1;
    const lineStart = this.lineStarts[lineIndex] ?? 0;
    const before = this.text.slice(lineStart, clamped);
    return { line: lineIndex + 1, utf16Column: before.length + 1, utf8Column: utf8Length(before) + 1 };
  }

  /** The offset where a \n-separated line (1-based) starts. */
  lineStart(line: number): number {
    return this.lineStarts[Math.min(Math.max(line, 1), this.lineStarts.length) - 1] ?? 0;
  }

  /** The offset of the \n that ends a line (1-based), or the end of the text on the last line. */
  lineEnd(line: number): number {
    const next = this.lineStarts[Math.max(line, 1)];
    return next === undefined ? this.text.length : next - 1;
  }

  /** ESLint's (line, column) re-expressed in \n-separated lines. */
  fromEslint(line: number, column: number): TextPosition {
    return this.positionAt(this.offsetOfEslint(line, column));
  }
}

/** Index of the first element greater than `value` in an ascending array. */
function upperBound(sorted: readonly number[], value: number): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (sorted[mid]! <= value) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * UTF-8 byte length of a UTF-16 string. A lone surrogate (a column that splits a pair, which
 * ESLint never reports but a fix range could) counts as the 3 bytes of U+FFFD, as an encoder
 * would write it.
 */
export function utf8Length(s: string): number {
  let bytes = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) bytes += 1;
    else if (c < 0x800) bytes += 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length && (s.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      bytes += 4;
      i++;
    } else bytes += 3;
  }
  return bytes;
}
