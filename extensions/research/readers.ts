// What svc_browser (and svc_deep_research) read from a loaded page: its visible text, its links, or a
// screenshot of the viewport — each bounded. The scripts run in the page, as source text (this code is
// compiled without the DOM's types).
import type { Page } from 'playwright-core';

export const MAX_TEXT_CHARS = 100_000;
export const MAX_LINKS = 500;

export async function pageText(page: Page, limit = MAX_TEXT_CHARS): Promise<{ text: string; truncated: boolean }> {
  const text = (await page.evaluate<string>("document.body ? document.body.innerText : ''")).replace(/\n{3,}/g, '\n\n').trim();
  return text.length > limit ? { text: text.slice(0, limit), truncated: true } : { text, truncated: false };
}

export async function pageLinks(page: Page): Promise<{ links: Array<{ text: string; href: string }>; truncated: boolean }> {
  const all = await page.evaluate<Array<{ text: string; href: string }>>(
    "Array.from(document.querySelectorAll('a[href]'), (a) => ({ text: (a.innerText || a.getAttribute('title') || '').trim(), href: a.href }))",
  );
  const seen = new Set<string>();
  const links = all.filter((l) => /^https?:/i.test(l.href) && !seen.has(l.href) && seen.add(l.href)).map((l) => ({ text: l.text.slice(0, 300), href: l.href }));
  return { links: links.slice(0, MAX_LINKS), truncated: links.length > MAX_LINKS };
}

/** PNG of the viewport (1280×800): bounded in size whatever the page's length. */
export async function pageScreenshot(page: Page): Promise<Buffer> {
  return page.screenshot({ type: 'png', fullPage: false });
}
