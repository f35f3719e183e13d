// The secret patterns. Each rule names the capture group holding the secret itself (redacted in reports);
// rules without one report the whole match (a private key header is not itself secret).
export interface Rule {
  id: string;
  description: string;
  pattern: RegExp;
  secretGroup?: number;
  /** Minimum Shannon entropy (bits per character) of the secret; filters placeholders like "changeme". */
  minEntropy?: number;
  /** Values that are code, not secrets (`process.env.DB_PASSWORD`, `settings.auth_token`). */
  notSecret?: RegExp;
}

export const DEFAULT_ENTROPY = 3.5;

export const RULES: Rule[] = [
  { id: 'aws-access-key-id', description: 'AWS access key ID', pattern: /\b((?:AKIA|ASIA|ABIA|ACCA)[0-9A-Z]{16})\b/, secretGroup: 1 },
  {
    id: 'aws-secret-access-key',
    description: 'AWS secret access key',
    pattern: /aws_?secret_?access_?key["']?\s*[:=]\s*["']?([A-Za-z0-9/+=]{40})(?![A-Za-z0-9/+=])/i,
    secretGroup: 1,
  },
  { id: 'github-token', description: 'GitHub token', pattern: /\b((?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{36})\b/, secretGroup: 1 },
  { id: 'github-fine-grained-token', description: 'GitHub fine-grained token', pattern: /\b(github_pat_[A-Za-z0-9_]{82})\b/, secretGroup: 1 },
  { id: 'gitlab-token', description: 'GitLab personal access token', pattern: /\b(glpat-[A-Za-z0-9_-]{20})(?![A-Za-z0-9_-])/, secretGroup: 1 },
  // Numeric workspace and user ids, then the random part: xoxb-1234…-5678…-AbCd….
  { id: 'slack-token', description: 'Slack token', pattern: /\b(xox[baprs]-(?:\d+-)+[A-Za-z0-9]{10,})/, secretGroup: 1 },
  {
    id: 'slack-webhook',
    description: 'Slack incoming webhook',
    pattern: /(https:\/\/hooks\.slack\.com\/services\/T[A-Z0-9]+\/B[A-Z0-9]+\/[A-Za-z0-9]{20,})/,
    secretGroup: 1,
  },
  { id: 'private-key', description: 'Private key block', pattern: /-----BEGIN (?:RSA |EC |DSA |OPENSSH |PGP |ENCRYPTED )?PRIVATE KEY(?: BLOCK)?-----/ },
  {
    id: 'high-entropy-assignment',
    description: 'High-entropy value assigned to a secret-like name',
    pattern: /\b[\w.-]*(?:secret|token|passw(?:or)?d|api_?key|access_?key|auth|credential|private_?key)[\w.-]*["']?\s*[:=]\s*["']?([A-Za-z0-9+/=_.~-]{16,})/i,
    secretGroup: 1,
    minEntropy: DEFAULT_ENTROPY,
    // Random strings of 16+ characters nearly always mix letters and digits; dotted names are references.
    notSecret: /^(?:[^0-9]*|[^A-Za-z]*|[A-Za-z_$][\w$]*(?:\.[\w$]+)+)$/,
  },
];

/** Shannon entropy in bits per character. */
export function shannonEntropy(text: string): number {
  const counts = new Map<string, number>();
  for (const ch of text) counts.set(ch, (counts.get(ch) ?? 0) + 1);
  let bits = 0;
  for (const n of counts.values()) {
    const p = n / text.length;
    bits -= p * Math.log2(p);
  }
  return bits;
}
