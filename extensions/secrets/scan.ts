// Matching one line of text against the rules, with the secret redacted in what is reported.
import { RULES, shannonEntropy } from './rules.js';

export interface LineMatch {
  rule: string;
  match: string;
}

/** A line carrying this marker (in a comment) is a known false positive: a test fixture, an example. */
export const ALLOW_MARKER = 'roost:allow-secret';

/** Lines longer than this are minified or data files: skipped rather than scanned slowly. */
const MAX_LINE = 4096;

export function scanLine(line: string, entropy: number): LineMatch[] {
  if (line.length > MAX_LINE || line.includes(ALLOW_MARKER)) return [];
  const found: LineMatch[] = [];
  for (const rule of RULES) {
    const m = rule.pattern.exec(line);
    if (!m) continue;
    const secret = rule.secretGroup === undefined ? undefined : m[rule.secretGroup]!;
    if (secret !== undefined && rule.notSecret?.test(secret)) continue;
    if (secret !== undefined && rule.minEntropy !== undefined && shannonEntropy(secret) < entropy) continue;
    // The generic rule stays quiet when a specific rule already caught the same line.
    if (rule.id === 'high-entropy-assignment' && found.length > 0) continue;
    found.push({ rule: rule.id, match: secret === undefined ? m[0] : m[0].replace(secret, redact(secret)) });
  }
  return found;
}

/** Keeps the first four characters, enough to recognise the kind of key, never its length. */
export function redact(secret: string): string {
  return `${secret.slice(0, 4)}********`;
}
