// Matching one line of text against the rules, with the secret redacted in what is reported. Most lines
// hold no hint of a secret: one cheap test (HINT) spares them the rules. The generic rule weighs what a
// person would: a value written as words and a counting run ("another-secret-123",
// "rk_card_owner_key_0123456789abcdef") is a placeholder, a value followed by "(" is a function called,
// and in test files and fixtures a value must be more random to count.
import { RULES, shannonEntropy } from './rules.js';

export interface LineMatch {
  rule: string;
  match: string;
}

/** A line carrying this marker (in a comment) is a known false positive: a test fixture, an example. */
export const ALLOW_MARKER = 'roost:allow-secret';

/** Lines longer than this are minified or data files: skipped rather than scanned slowly. */
const MAX_LINE = 4096;

/** Something every rule needs in the line: a key prefix, a key header, or a secret-like name. */
const HINT = /AKIA|ASIA|ABIA|ACCA|gh[pousr]_|github_pat_|glpat-|xox[baprs]-|hooks\.slack|PRIVATE KEY|secret|token|passw|api_?key|access_?key|auth|credential|private_?key/i;

/** Test code and fixtures, where made-up credentials are expected. */
const TEST_PATH = /(^|\/)(tests?|spec|__tests__|fixtures?|testdata|__fixtures__|mocks?|examples?)\/|[._-](test|spec)\.[^/]+$|_test\.[^/]+$|(^|\/)test_[^/]+$/i;

/** Extra bits of entropy per character a generic match in a test path needs. */
const TEST_ENTROPY_MARGIN = 0.75;

const COUNTING = '0123456789abcdefghijklmnopqrstuvwxyz';

export function scanLine(line: string, entropy: number, file = ''): LineMatch[] {
  if (line.length > MAX_LINE || !HINT.test(line) || line.includes(ALLOW_MARKER)) return [];
  const found: LineMatch[] = [];
  for (const rule of RULES) {
    const m = rule.pattern.exec(line);
    if (!m) continue;
    const secret = rule.secretGroup === undefined ? undefined : m[rule.secretGroup]!;
    if (secret !== undefined && rule.notSecret?.test(secret)) continue;
    if (secret !== undefined && rule.minEntropy !== undefined) {
      const after = line[m.index + m[0].length];
      if (after === '(' || isPlaceholder(secret)) continue;
      const needed = entropy + (TEST_PATH.test(file) ? TEST_ENTROPY_MARGIN : 0);
      if (shannonEntropy(secret) < needed) continue;
    }
    // The generic rule stays quiet when a specific rule already caught the same line.
    if (rule.id === 'high-entropy-assignment' && found.length > 0) continue;
    found.push({ rule: rule.id, match: secret === undefined ? m[0] : m[0].replace(secret, redact(secret)) });
  }
  return found;
}

/**
 * Words and counting runs joined by separators: what a person types as a stand-in. Random keys have at
 * least one part that is neither a word (letters of one case run, or Capitalised) nor an ordered run.
 */
export function isPlaceholder(value: string): boolean {
  const parts = value.split(/[-_.~+/=]+/).filter(Boolean);
  if (parts.length < 2) return false;
  return parts.every((part) => /^(?:[a-z]+|[A-Z][a-z]+|[A-Z]+)$/.test(part) || /^\d{1,4}$/.test(part) || (part.length >= 4 && COUNTING.includes(part.toLowerCase())));
}

/** Keeps the first four characters, enough to recognise the kind of key, never its length. */
export function redact(secret: string): string {
  return `${secret.slice(0, 4)}********`;
}
