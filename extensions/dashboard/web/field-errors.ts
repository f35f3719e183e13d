// The API names the field it refuses ("body.cron is not a valid cron expression: …; body.action.prompt
// is required"): split its message into complaints by field, so a form shows each beside its field.
// A schedule's single `action` and the i-th of an `actions` list are both kept under `actions.<i>`.

export interface FieldErrors {
  /** Complaints by field key (`cron`, `actions.0.prompt`). */
  byField: Record<string, string>;
  /** Complaints the form shows no field for, and messages naming no field. */
  rest(shown: Iterable<string>): string | null;
}

const fieldKey = (path: string): string =>
  path.replace(/^action(?=\.|$)/, 'actions.0').replace(/\[(\d+)\]/g, '.$1');

export function fieldErrors(message: string | null | undefined): FieldErrors {
  const byField: Record<string, string> = {};
  const general: string[] = [];
  // ajv's complaints each start with "body."; a part that does not continues the one before (a single
  // message may hold "; " itself: 'body.cron "* * * * *" runs 60 s apart; the minimum interval is 300 s').
  const parts: string[] = [];
  for (const part of (message ?? '').split('; ').filter(Boolean)) {
    if (parts.length && !part.startsWith('body.')) parts[parts.length - 1] += `; ${part}`;
    else parts.push(part);
  }
  // ajv's if/then schemas add "must match "then" schema" beside the real complaint: noise when it has company.
  const useful = parts.length > 1 ? parts.filter((p) => !/must match "(then|else)" schema/.test(p)) : parts;
  for (const part of useful) {
    const named = /^body\.([A-Za-z0-9_.[\]]+?)(?=[\s:]|$)/.exec(part);
    if (!named) {
      general.push(part);
      continue;
    }
    const key = fieldKey(named[1]!);
    byField[key] = byField[key] ? `${byField[key]}; ${part}` : part;
  }
  return {
    byField,
    rest(shown) {
      const known = new Set(shown);
      const left = [...general, ...Object.entries(byField).filter(([key]) => !known.has(key)).map(([, text]) => text)];
      return left.length ? left.join('; ') : null;
    },
  };
}
