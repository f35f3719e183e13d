// Keeps the last few kilobytes of a process's output for --json reports, without holding all of it.
const ANSI = /\u001b\[[0-9;?]*[ -/]*[@-~]/g;

export class OutputTail {
  private text = '';

  constructor(private readonly maxChars = 8192, private readonly maxLines = 50) {}

  push(chunk: string | Buffer): void {
    this.text += typeof chunk === 'string' ? chunk : chunk.toString('utf8');
    if (this.text.length > this.maxChars * 2) this.text = this.text.slice(-this.maxChars);
  }

  /** The last lines (at most maxLines, maxChars), colour codes removed. */
  value(): string {
    const lines = this.text.slice(-this.maxChars).replace(ANSI, '').split('\n');
    if (lines.at(-1) === '') lines.pop();
    return lines.slice(-this.maxLines).join('\n');
  }
}
