// The score of an agent from its events, as a pure function of the events and the time: each event's
// impact halves every `halfLifeDays` of age, the decayed impacts are summed, and the sum is mapped onto
// 0–100 by a logistic curve (no history: 50; +5: 73.1; −5: 26.9), so no run of events can pass the ends.
export const EVENT_KINDS = {
  session_completed: 1,
  session_failed: -1,
  work_task_completed: 2,
  work_task_merged: 4,
  work_task_failed: -2,
  council_vote: 0.5,
  council_no_vote: -0.5,
  /** Impact rating − 3 (a 1-star review −2, a 5-star one +2). */
  review: 0,
  use_succeeded: 1,
  reported_failure: -2,
} as const;

export type EventKind = keyof typeof EVENT_KINDS;

export const SCALE = 5;

export interface ScoredEvent {
  kind: string;
  impact: number;
  occurredAt: string;
}

export interface Components {
  /** The sum of the decayed impacts. */
  decayedTotal: number;
  positive: number;
  negative: number;
  byKind: Record<string, number>;
  halfLifeDays: number;
}

export function scoreOf(events: ScoredEvent[], now: Date, halfLifeDays: number): { score: number; components: Components } {
  let positive = 0;
  let negative = 0;
  const byKind: Record<string, number> = {};
  for (const e of events) {
    const ageDays = Math.max(0, now.getTime() - Date.parse(e.occurredAt)) / 86_400_000;
    const decayed = e.impact * 0.5 ** (ageDays / halfLifeDays);
    if (decayed >= 0) positive += decayed;
    else negative += decayed;
    byKind[e.kind] = (byKind[e.kind] ?? 0) + 1;
  }
  const total = positive + negative;
  const score = 100 / (1 + Math.exp(-total / SCALE));
  return { score: round(score, 2), components: { decayedTotal: round(total, 4), positive: round(positive, 4), negative: round(negative, 4), byKind, halfLifeDays } };
}

const round = (n: number, digits: number) => Math.round(n * 10 ** digits) / 10 ** digits;
