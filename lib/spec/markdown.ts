// The outline of a markdown document: its title and its section headings (code fences skipped).

export interface Outline {
  title: string | null;
  /** Level-2 headings, in order, at most MAX_HEADINGS. */
  headings: string[];
}

const MAX_HEADINGS = 50;

export function outline(text: string): Outline {
  let title: string | null = null;
  const headings: string[] = [];
  let fence: string | null = null;
  for (const line of text.split('\n')) {
    const marker = /^\s*(`{3,}|~{3,})/.exec(line)?.[1];
    if (marker && (fence === null || marker.startsWith(fence))) {
      fence = fence === null ? marker : null;
      continue;
    }
    if (fence !== null) continue;
    const heading = /^(#{1,6})\s+(.*?)\s*#*\s*$/.exec(line);
    if (!heading) continue;
    const level = heading[1]!.length;
    if (level === 1 && title === null) title = heading[2]!;
    else if (level === 2 && headings.length < MAX_HEADINGS) headings.push(heading[2]!);
  }
  return { title, headings };
}
