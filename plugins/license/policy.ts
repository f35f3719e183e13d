// The license policy and its verdict on an SPDX license expression. A license is acceptable when it is
// not denied and, if an allow list is given, allowed. "A OR B" needs one acceptable side, "A AND B" both;
// "X WITH exception" is judged by X. Identifiers compare case-insensitively.
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { parse as parseToml } from 'smol-toml';
import { RoostError } from '../../protocol/errors.js';

export interface Policy {
  allow: string[];
  deny: string[];
  /** A dependency whose license is unknown passes (`allow_unknown = true`, `--allow-unknown`); by default it fails the check. */
  allowUnknown: boolean;
}

/** The [license] table of a TOML file (roost.toml at the project root unless --config names one). */
export async function readPolicy(path: string, required: boolean): Promise<Policy> {
  if (!existsSync(path)) {
    if (required) throw new RoostError('USAGE', `config file ${path} does not exist`);
    return { allow: [], deny: [], allowUnknown: false };
  }
  let table: unknown;
  try {
    table = (parseToml(await readFile(path, 'utf8')) as { license?: unknown }).license;
  } catch (err) {
    throw new RoostError('VALIDATION_ERROR', `${path} is not valid TOML: ${(err as Error).message.split('\n')[0]}`);
  }
  if (table === undefined) return { allow: [], deny: [], allowUnknown: false };
  if (typeof table !== 'object' || table === null || Array.isArray(table)) throw new RoostError('VALIDATION_ERROR', `${path}: [license] must be a table`);
  const list = (key: 'allow' | 'deny'): string[] => {
    const value = (table as Record<string, unknown>)[key];
    if (value === undefined) return [];
    if (!Array.isArray(value) || !value.every((v) => typeof v === 'string')) {
      throw new RoostError('VALIDATION_ERROR', `${path}: [license] ${key} must be a list of SPDX identifiers`);
    }
    return value;
  };
  const allowUnknown = (table as Record<string, unknown>).allow_unknown ?? false;
  if (typeof allowUnknown !== 'boolean') throw new RoostError('VALIDATION_ERROR', `${path}: [license] allow_unknown must be true or false`);
  return { allow: list('allow'), deny: list('deny'), allowUnknown };
}

/** The license identifiers an SPDX expression names (its operators, parentheses and exceptions left out). */
export function identifiers(expression: string): string[] {
  const list = tokens(expression);
  return list.filter((token, i) => !['(', ')'].includes(token) && !['AND', 'OR', 'WITH'].includes(token.toUpperCase()) && list[i - 1]?.toUpperCase() !== 'WITH');
}

export function acceptable(expression: string, policy: Policy): boolean {
  const allow = new Set(policy.allow.map((l) => l.toLowerCase()));
  const deny = new Set(policy.deny.map((l) => l.toLowerCase()));
  const ok = (id: string) => !deny.has(id.toLowerCase()) && (allow.size === 0 || allow.has(id.toLowerCase()));
  return evaluate(tokens(expression), ok);
}

function tokens(expression: string): string[] {
  return expression.replace(/[()]/g, ' $& ').split(/\s+/).filter(Boolean);
}

/** Recursive descent over: or := and ("OR" and)*; and := atom ("AND" atom)*; atom := "(" or ")" | id ["WITH" id]. */
function evaluate(list: string[], ok: (id: string) => boolean): boolean {
  let i = 0;
  const atom = (): boolean => {
    const token = list[i++];
    if (token === '(') {
      const value = or();
      i++; // ")"
      return value;
    }
    if (list[i]?.toUpperCase() === 'WITH') i += 2;
    return token !== undefined && ok(token);
  };
  const and = (): boolean => {
    let value = atom();
    while (list[i]?.toUpperCase() === 'AND') {
      i++;
      value = atom() && value;
    }
    return value;
  };
  const or = (): boolean => {
    let value = and();
    while (list[i]?.toUpperCase() === 'OR') {
      i++;
      value = and() || value;
    }
    return value;
  };
  return or();
}
