// Light, dark, or the system's choice; remembered in localStorage (nothing secret).
import { useEffect, useState } from 'preact/hooks';

type Theme = 'system' | 'light' | 'dark';
const KEY = 'roost.theme';
const NEXT: Record<Theme, Theme> = { system: 'light', light: 'dark', dark: 'system' };

function stored(): Theme {
  const value = localStorage.getItem(KEY);
  return value === 'light' || value === 'dark' ? value : 'system';
}

export function ThemeToggle() {
  const [theme, setTheme] = useState<Theme>(stored);
  useEffect(() => {
    if (theme === 'system') delete document.documentElement.dataset.theme;
    else document.documentElement.dataset.theme = theme;
    localStorage.setItem(KEY, theme);
  }, [theme]);
  return (
    <button type="button" class="btn btn-plain" onClick={() => setTheme(NEXT[theme])} aria-label={`Theme: ${theme}. Switch to ${NEXT[theme]}`}>
      Theme: {theme}
    </button>
  );
}
