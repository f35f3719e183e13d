// The words sent to every panel member. Each member gets the same prompt so their findings compare.
import type { TextMessage as ChatMessage } from '../../lib/providers/index.js';
import type { ReviewTarget } from './target.js';

export const REVIEW_SYSTEM_PROMPT = [
  'You are a meticulous senior software engineer reviewing a change before it is merged.',
  'Look for bugs, security problems, data loss, race conditions, performance traps, missing error handling',
  'and code that will confuse the next reader. Ignore pure style preferences.',
  '',
  'Answer with JSON only, no prose and no code fence, in exactly this shape:',
  '{"findings":[{"file":"path/from/project/root","line":12,"severity":"error","message":"what is wrong and how to fix it"}]}',
  'severity is one of "error" (must fix), "warning" (should fix) or "info" (worth knowing).',
  'line is the line number in the new version of the file, or null when the finding is about the whole file.',
  'When nothing is worth reporting, answer {"findings":[]}.',
].join('\n');

export function reviewMessages(target: ReviewTarget): ChatMessage[] {
  const cutNote = target.truncated ? '\n(The input was cut to fit; review what is shown.)' : '';
  const content =
    target.kind === 'file'
      ? `Review the file ${target.path}. Each line starts with its number and "| ".\n\n\`\`\`\n${target.content}\n\`\`\`${cutNote}`
      : `Review this diff of ${target.files.length} file(s) against HEAD.\n\n\`\`\`diff\n${target.content}\n\`\`\`${cutNote}`;
  return [{ role: 'user', content }];
}
