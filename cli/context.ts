// What a command handler gets besides its arguments: where it runs, how it may talk to the person.
// process.stdin is not touched until a question is asked: creating it costs start-up time and can
// change the mode of an inherited stdin that a task roost runs shares.
import { isatty } from 'node:tty';
import { usageError } from './output.js';

export interface CliContext {
  cwd: string;
  json: boolean;
  /** False with --non-interactive or when stdin is not a terminal: questions take their default or fail. */
  interactive: boolean;
  log(message: string): void;
  ask(question: Question): Promise<string>;
  confirm(message: string, options: { default?: boolean; flag: string }): Promise<boolean>;
}

export interface Question {
  message: string;
  default?: string;
  /** The flag that answers this question without a terminal, named in the error. */
  flag?: string;
}

export function createContext(options: { json: boolean; nonInteractive: boolean; cwd?: string }): CliContext {
  const interactive = !options.nonInteractive && isatty(0);
  const log = (message: string) => {
    process.stderr.write(message.endsWith('\n') ? message : `${message}\n`);
  };
  const ask = async (question: Question): Promise<string> => {
    if (!interactive) {
      if (question.default !== undefined) return question.default;
      throw usageError(`${question.message}: no terminal to ask${question.flag ? `; pass ${question.flag}` : ''}`);
    }
    // Loaded only when a question is really asked: it is a noticeable part of the cold start.
    const { createInterface } = await import('node:readline/promises');
    const rl = createInterface({ input: process.stdin, output: process.stderr });
    try {
      const suffix = question.default !== undefined ? ` [${question.default}]` : '';
      const answer = (await rl.question(`${question.message}${suffix} `)).trim();
      return answer === '' && question.default !== undefined ? question.default : answer;
    } finally {
      rl.close();
    }
  };
  const confirm = async (message: string, opts: { default?: boolean; flag: string }): Promise<boolean> => {
    const def = opts.default === undefined ? undefined : opts.default ? 'y' : 'n';
    const answer = await ask({ message: `${message} (y/n)`, default: def, flag: opts.flag });
    return /^y(es)?$/i.test(answer);
  };
  return { cwd: options.cwd ?? process.cwd(), json: options.json, interactive, log, ask, confirm };
}
