// The stacks roost recognises without any configuration, each from the marker files at the project
// root, and the command each built-in task runs. Node's tasks come from package.json (see node.ts).
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { detectNode } from './node.js';
import { TASK_FILE_DETECTORS, TASK_FILES } from './task-files.js';

export interface TaskCommand {
  argv: string[];
  /** Put between the command and the caller's extra arguments (npm needs "--" to hand them to a script). */
  argsSeparator?: string;
}

export interface DetectedStack {
  /** rust, node, go, python, ruby, java, swift; or a task file: fledge, just, task, make */
  id: string;
  /** The tool that runs the tasks: cargo, npm, pnpm, uv, mvn, ./gradlew … */
  tool: string;
  /** The file that revealed the stack. */
  marker: string;
  tasks: Record<string, TaskCommand>;
}

/** Files whose presence makes a directory a project root (besides .git). */
export const ROOT_MARKERS = [
  'Cargo.toml', 'package.json', 'go.mod', 'pyproject.toml', 'setup.py', 'Gemfile',
  'pom.xml', 'build.gradle', 'build.gradle.kts', 'Package.swift', 'lanes.toml', ...TASK_FILES,
];

type Detector = (root: string, has: (file: string) => boolean) => DetectedStack | undefined;

const cmd = (...argv: string[]): TaskCommand => ({ argv });

const rust: Detector = (_root, has) =>
  has('Cargo.toml')
    ? { id: 'rust', tool: 'cargo', marker: 'Cargo.toml', tasks: {
        test: cmd('cargo', 'test'), build: cmd('cargo', 'build'),
        // Strict, as CI wants them: warnings fail the lint, and fmt checks rather than rewrites.
        lint: cmd('cargo', 'clippy', '--all-targets', '--', '-D', 'warnings'), fmt: cmd('cargo', 'fmt', '--check'), check: cmd('cargo', 'check'),
      } }
    : undefined;

const go: Detector = (_root, has) =>
  has('go.mod')
    ? { id: 'go', tool: 'go', marker: 'go.mod', tasks: {
        test: cmd('go', 'test', './...'), build: cmd('go', 'build', './...'),
        lint: cmd('go', 'vet', './...'), fmt: cmd('go', 'fmt', './...'),
      } }
    : undefined;

const python: Detector = (_root, has) => {
  const marker = ['pyproject.toml', 'setup.py'].find(has);
  if (!marker) return undefined;
  // A lockfile names the environment manager; without one the interpreter on PATH runs the tools.
  const tool = has('uv.lock') ? 'uv' : has('poetry.lock') ? 'poetry' : 'python3';
  const inEnv = (...argv: string[]) => (tool === 'python3' ? cmd(...argv) : cmd(tool, 'run', ...argv));
  return { id: 'python', tool, marker, tasks: {
    test: tool === 'python3' ? cmd('python3', '-m', 'pytest') : inEnv('pytest'),
    build: tool === 'python3' ? cmd('python3', '-m', 'build') : cmd(tool, 'build'),
    lint: inEnv('ruff', 'check', '.'), fmt: inEnv('ruff', 'format', '.'),
  } };
};

const ruby: Detector = (root, has) => {
  if (!has('Gemfile')) return undefined;
  const rspec = has('.rspec') || existsSync(join(root, 'spec'));
  return { id: 'ruby', tool: 'bundle', marker: 'Gemfile', tasks: {
    test: rspec ? cmd('bundle', 'exec', 'rspec') : cmd('bundle', 'exec', 'rake', 'test'),
    build: cmd('bundle', 'exec', 'rake', 'build'),
    lint: cmd('bundle', 'exec', 'rubocop'), fmt: cmd('bundle', 'exec', 'rubocop', '-a'),
  } };
};

const maven: Detector = (_root, has) => {
  if (!has('pom.xml')) return undefined;
  const tool = has('mvnw') ? './mvnw' : 'mvn';
  return { id: 'java', tool, marker: 'pom.xml', tasks: {
    test: cmd(tool, 'test'), build: cmd(tool, 'package'),
    lint: cmd(tool, 'checkstyle:check'), fmt: cmd(tool, 'spotless:apply'),
  } };
};

const gradle: Detector = (_root, has) => {
  const marker = ['build.gradle.kts', 'build.gradle'].find(has);
  if (!marker) return undefined;
  const tool = has('gradlew') ? './gradlew' : 'gradle';
  return { id: 'java', tool, marker, tasks: {
    test: cmd(tool, 'test'), build: cmd(tool, 'build'), lint: cmd(tool, 'check'), fmt: cmd(tool, 'spotlessApply'),
  } };
};

const swift: Detector = (_root, has) =>
  has('Package.swift')
    ? { id: 'swift', tool: 'swift', marker: 'Package.swift', tasks: {
        test: cmd('swift', 'test'), build: cmd('swift', 'build'),
        lint: cmd('swift', 'format', 'lint', '--recursive', '.'),
        fmt: cmd('swift', 'format', '--in-place', '--recursive', '.'),
      } }
    : undefined;

/**
 * Priority order when several stacks share a root: package.json often sits beside another stack for
 * tooling only, so it comes last; a task is taken from the first stack that has it.
 */
const DETECTORS: Detector[] = [...TASK_FILE_DETECTORS, rust, go, python, ruby, maven, gradle, swift, detectNode];

export function detectStacks(root: string, has: (file: string) => boolean): DetectedStack[] {
  return DETECTORS.map((detect) => detect(root, has)).filter((s): s is DetectedStack => s !== undefined);
}
