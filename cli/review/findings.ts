// Turns a model's answer into findings. Models asked for JSON still wrap it in prose or fences, name
// severities their own way or write line numbers as strings; all of that is accepted. An answer with
// no findings list in it is kept as plain text.

export type Severity = 'error' | 'warning' | 'info';

export interface Finding {
  file: string;
  line: number | null;
  severity: Severity;
  message: string;
}

export type ParsedReview = { format: 'findings'; findings: Finding[] } | { format: 'text'; findings: Finding[]; text: string };

const SEVERITY_WORDS: Record<string, Severity> = {
  error: 'error',
  critical: 'error',
  blocker: 'error',
  high: 'error',
  major: 'error',
  bug: 'error',
  warning: 'warning',
  warn: 'warning',
  medium: 'warning',
  moderate: 'warning',
  info: 'info',
  low: 'info',
  minor: 'info',
  note: 'info',
  nit: 'info',
  suggestion: 'info',
};

export function parseFindings(answer: string, defaultFile = ''): ParsedReview {
  for (const candidate of jsonCandidates(answer)) {
    const items = findingsList(candidate);
    if (items) {
      return { format: 'findings', findings: items.flatMap((item) => normalize(item, defaultFile)) };
    }
  }
  return { format: 'text', findings: [], text: answer.trim() };
}

/** The whole answer, each fenced block, and the widest {…} and […] spans, in that order. */
function* jsonCandidates(answer: string): Generator<unknown> {
  const spans = [answer.trim()];
  for (const fence of answer.matchAll(/```[a-zA-Z]*\s*\n([\s\S]*?)```/g)) spans.push(fence[1]!);
  for (const [open, close] of [['{', '}'], ['[', ']']] as const) {
    const start = answer.indexOf(open);
    const end = answer.lastIndexOf(close);
    if (start >= 0 && end > start) spans.push(answer.slice(start, end + 1));
  }
  for (const span of spans) {
    try {
      yield JSON.parse(span);
    } catch {
      // not JSON: try the next span
    }
  }
}

function findingsList(value: unknown): unknown[] | null {
  if (Array.isArray(value)) return value;
  if (value && typeof value === 'object') {
    const list = (value as Record<string, unknown>).findings;
    if (Array.isArray(list)) return list;
  }
  return null;
}

function normalize(item: unknown, defaultFile: string): Finding[] {
  if (!item || typeof item !== 'object') return [];
  const raw = item as Record<string, unknown>;
  const message = firstString(raw.message, raw.description, raw.comment, raw.issue);
  if (!message) return [];
  const severityWord = firstString(raw.severity, raw.level)?.toLowerCase() ?? '';
  return [
    {
      file: firstString(raw.file, raw.path, raw.filename) ?? defaultFile,
      line: lineNumber(raw.line),
      severity: SEVERITY_WORDS[severityWord] ?? 'warning',
      message,
    },
  ];
}

function firstString(...values: unknown[]): string | undefined {
  for (const value of values) {
    if (typeof value === 'string' && value.trim() !== '') return value.trim();
  }
  return undefined;
}

function lineNumber(value: unknown): number | null {
  const n = typeof value === 'string' ? Number.parseInt(value, 10) : value;
  return typeof n === 'number' && Number.isInteger(n) && n > 0 ? n : null;
}
