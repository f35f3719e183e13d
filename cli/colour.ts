// Colour for a person at a terminal, never for a pipe: on when the stream is a TTY (and TERM is not
// "dumb"), or FORCE_COLOR says so; off whenever NO_COLOR or ROOST_NO_COLOR is set, whatever else.
type Paint = (text: string) => string;

export interface Palette {
  red: Paint;
  green: Paint;
  yellow: Paint;
  dim: Paint;
  bold: Paint;
}

const set = (name: string) => (process.env[name] ?? '') !== '';

export function colourEnabled(stream: NodeJS.WriteStream): boolean {
  if (set('NO_COLOR') || set('ROOST_NO_COLOR')) return false;
  if (set('FORCE_COLOR')) return process.env.FORCE_COLOR !== '0';
  return stream.isTTY === true && process.env.TERM !== 'dumb';
}

const sgr = (open: number, close: number): Paint => (text) => `\u001b[${open}m${text}\u001b[${close}m`;
const plain: Paint = (text) => text;

export function palette(stream: NodeJS.WriteStream): Palette {
  if (!colourEnabled(stream)) return { red: plain, green: plain, yellow: plain, dim: plain, bold: plain };
  return { red: sgr(31, 39), green: sgr(32, 39), yellow: sgr(33, 39), dim: sgr(2, 22), bold: sgr(1, 22) };
}
