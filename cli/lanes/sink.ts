// Where step output goes. Sequential steps stream chunks through untouched; parallel steps are
// line-buffered and each line prefixed with the step name ("[name] line") so they stay readable.

export interface Sink {
  out(chunk: string | Buffer): void;
  err(chunk: string | Buffer): void;
  /** Writes a partial last line, if any. */
  flush(): void;
}

/** stdout/stderr as they are; under --json everything goes to stderr so stdout stays one document. */
export function rootSink(json: boolean): Sink {
  const out = json ? process.stderr : process.stdout;
  return { out: (c) => out.write(c), err: (c) => process.stderr.write(c), flush: () => {} };
}

export function prefixedSink(parent: Sink, name: string): Sink {
  const pending = { out: '', err: '' };
  const write = (stream: 'out' | 'err', chunk: string | Buffer) => {
    const lines = (pending[stream] + chunk.toString()).split('\n');
    pending[stream] = lines.pop()!;
    if (lines.length > 0) parent[stream](lines.map((l) => `[${name}] ${l}\n`).join(''));
  };
  return {
    out: (c) => write('out', c),
    err: (c) => write('err', c),
    flush: () => {
      for (const stream of ['out', 'err'] as const) {
        if (pending[stream] !== '') parent[stream](`[${name}] ${pending[stream]}\n`);
        pending[stream] = '';
      }
      parent.flush();
    },
  };
}
