// Where to get the tool a task needs, for the "command not found" error.
const HINTS: Record<string, string> = {
  cargo: 'install Rust with rustup: https://rustup.rs',
  go: 'install Go: https://go.dev/dl/',
  uv: 'install uv: https://docs.astral.sh/uv/getting-started/installation/',
  poetry: 'install Poetry: https://python-poetry.org/docs/#installation',
  python3: 'install Python 3: https://www.python.org/downloads/',
  bundle: 'install Bundler: gem install bundler',
  mvn: 'install Maven: https://maven.apache.org/install.html',
  gradle: 'install Gradle (https://gradle.org/install/), or add the wrapper: gradle wrapper',
  swift: 'install Swift: https://www.swift.org/install/',
  npm: 'install Node.js (npm comes with it): https://nodejs.org/',
  pnpm: 'install pnpm: corepack enable pnpm',
  yarn: 'install Yarn: corepack enable yarn',
  bun: 'install Bun: https://bun.sh/',
  just: 'install just: https://just.systems/man/en/packages.html',
  task: 'install Task: https://taskfile.dev/installation/',
  make: 'install make (Debian/Ubuntu: apt-get install make)',
};

/** `; <hint>` for a tool roost knows, or nothing. */
export function installHint(tool: string): string {
  const hint = HINTS[tool];
  return hint ? `; ${hint}` : '';
}
