// What a cron expression means, in words (cronstrue) and as its next five runs (croner, the library the
// schedules extension itself reads expressions with, in the schedule's time zone), shown as it is typed.
import { Cron } from 'croner';
import cronstrue from 'cronstrue';

export interface CronReading {
  words: string | null;
  next: Date[];
  problem: string | null;
}

export function readCron(expression: string, timezone: string, count = 5): CronReading {
  const text = expression.trim();
  if (!text) return { words: null, next: [], problem: null };
  try {
    const next = new Cron(text, { timezone: timezone || 'UTC', paused: true }).nextRuns(count);
    let words: string | null = null;
    try {
      words = cronstrue.toString(text, { use24HourTimeFormat: true, throwExceptionOnParseError: true });
    } catch {
      words = null;
    }
    return { words, next, problem: next.length === 0 ? 'this expression never runs' : null };
  } catch (err) {
    return { words: null, next: [], problem: err instanceof Error ? err.message : String(err) };
  }
}

export function CronPreview({ expression, timezone }: { expression: string; timezone: string }) {
  const reading = readCron(expression, timezone);
  if (!expression.trim()) return null;
  return (
    <div class="cron-preview" aria-live="polite">
      {reading.problem ? (
        <p class="bad-text">Not a cron expression the server reads: {reading.problem}</p>
      ) : (
        <>
          {reading.words && <p class="cron-words">{reading.words}{timezone ? ` (${timezone})` : ''}</p>}
          <p class="muted">Next runs, in your local time:</p>
          <ol class="cron-next" aria-label="Next runs">
            {reading.next.map((at) => <li key={at.getTime()}><time dateTime={at.toISOString()}>{at.toLocaleString()}</time></li>)}
          </ol>
        </>
      )}
    </div>
  );
}
