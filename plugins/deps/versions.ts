// Version ordering good enough for semver (Cargo, npm) and PEP 440 (Python) release versions:
// numeric parts compare as numbers, a trailing pre-release tag (1.0.0-rc.1, 1.0rc1) sorts before the
// release, a post-release (1.0.post1) after it.

function tokens(version: string): string[] {
  return version.trim().replace(/^[vV=]/, '').split('+')[0]!.toLowerCase().match(/\d+|[a-z]+/g) ?? [];
}

const isNumber = (t: string) => /^\d+$/.test(t);

export function compareVersions(a: string, b: string): number {
  const x = tokens(a);
  const y = tokens(b);
  for (let i = 0; i < Math.max(x.length, y.length); i++) {
    const p = x[i];
    const q = y[i];
    if (p === undefined) return extraSign(q!) * -1;
    if (q === undefined) return extraSign(p);
    if (isNumber(p) && isNumber(q)) {
      const diff = Number(p) - Number(q);
      if (diff !== 0) return Math.sign(diff);
    } else if (isNumber(p) !== isNumber(q)) {
      return isNumber(p) ? 1 : -1;
    } else if (p !== q) {
      return p === 'post' ? 1 : q === 'post' ? -1 : p < q ? -1 : 1;
    }
  }
  return 0;
}

/** The sign a version gets from carrying one token more than an otherwise equal version. */
function extraSign(token: string): number {
  return isNumber(token) || token === 'post' ? 1 : -1;
}

export interface OsvEvent {
  introduced?: string;
  fixed?: string;
  last_affected?: string;
}

/** Whether `version` falls inside an OSV range (events: introduced / fixed / last_affected). */
export function inRange(version: string, events: OsvEvent[]): boolean {
  const point = (e: OsvEvent) => e.introduced ?? e.fixed ?? e.last_affected ?? '0';
  const ordered = [...events].sort((a, b) => compareVersions(point(a), point(b)));
  let affected = false;
  for (const event of ordered) {
    if (event.introduced !== undefined && (event.introduced === '0' || compareVersions(version, event.introduced) >= 0)) affected = true;
    if (event.fixed !== undefined && compareVersions(version, event.fixed) >= 0) affected = false;
    if (event.last_affected !== undefined && compareVersions(version, event.last_affected) > 0) affected = false;
  }
  return affected;
}

/** The lowest fixed version above `version` in these events, if any. */
export function fixedAbove(version: string, events: OsvEvent[]): string | undefined {
  return events
    .map((e) => e.fixed)
    .filter((f): f is string => f !== undefined && compareVersions(f, version) > 0)
    .sort(compareVersions)[0];
}
