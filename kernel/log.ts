// The server's log: one line per record on stderr, as text for a person at a terminal or as JSON lines
// for a log pipeline (ROOST_LOG_FORMAT=json). A record made for an HTTP request — the access record, an
// unexpected error, a line an extension logs while serving it — carries that request's id (`requestId`,
// the X-Request-Id its response names), so every line of one request can be found together. The id is
// handed along explicitly: an AsyncLocalStorage would turn on promise hooks, a cost on every promise the
// kernel makes (about a sixth of a cached read's CPU on Node 20).

export type LogFormat = 'text' | 'json';
export type LogFields = Record<string, string | number | boolean | null | undefined>;
export type Log = (level: string, message: string, fields?: LogFields) => void;

export function createLog(format: LogFormat, write: (text: string) => void = (text) => void process.stderr.write(text)): Log {
  return (level, message, fields = {}) => {
    if (level === 'debug') return;
    write(formatRecord(format, new Date().toISOString(), level, message, fields));
  };
}

export function formatRecord(format: LogFormat, time: string, level: string, message: string, fields: LogFields): string {
  if (format === 'json') {
    // Built field by field: this runs for every access line, and copies through entries cost more than the record.
    const record: Record<string, unknown> = { time, level, msg: message };
    for (const key in fields) if (fields[key] !== undefined) record[key] = fields[key];
    return `${JSON.stringify(record)}\n`;
  }
  // A line for a person: the message says the rest (an extension's lines start with its name).
  return `${time} ${level} ${message}${fields.requestId ? ` requestId=${fields.requestId}` : ''}\n`;
}
