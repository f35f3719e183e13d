// The agent's file system: everything resolves inside the project's working directory with symlinks
// followed (no escape through a link, `..` or an absolute path), and protected files — matched by
// basename, case-insensitively, on the name asked for and on the file a link points at — are never
// written, whatever the permission mode.
import { lstat, realpath, stat } from 'node:fs/promises';
import { basename, dirname, isAbsolute, relative, resolve, sep } from 'node:path';
import { RoostError } from '../../../protocol/errors.js';

export const toolError = (message: string) => new RoostError('TOOL_ERROR', message, { status: 400 });

export class Workspace {
  private readonly protectedNames: Set<string>;

  private constructor(readonly root: string, protectedFiles: string[]) {
    this.protectedNames = new Set(protectedFiles.map((name) => name.toLowerCase()));
  }

  /** Opens a workspace on the real path of `dir`. */
  static async open(dir: string, protectedFiles: string[]): Promise<Workspace> {
    return new Workspace(await realpath(dir), protectedFiles);
  }

  isProtected(path: string): boolean {
    return this.protectedNames.has(basename(path).toLowerCase());
  }

  /** The path as the agent should see it: relative to the root. */
  display(path: string): string {
    return relative(this.root, path) || '.';
  }

  /** The real path of an existing file or directory inside the workspace. */
  async resolveExisting(path: unknown): Promise<string> {
    const absolute = this.lexical(path);
    const real = await realpath(absolute).catch(() => {
      throw toolError(`${String(path)} does not exist`);
    });
    this.mustContain(real, path);
    return real;
  }

  /**
   * The path to write for `path`: checked for protection on the name asked for and, through any
   * symlink, on the real target; the target and its nearest existing ancestor must be inside the root.
   */
  async resolveWritable(path: unknown): Promise<string> {
    const absolute = this.lexical(path);
    this.refuseProtected(absolute, path);
    const info = await lstat(absolute).catch(() => undefined);
    if (info?.isSymbolicLink()) {
      const target = await realpath(absolute).catch(() => {
        throw toolError(`${String(path)} is a symlink to nothing: refusing to write through it`);
      });
      this.mustContain(target, path);
      this.refuseProtected(target, path);
      return this.checkTarget(target, path);
    }
    const ancestor = await this.nearestExisting(dirname(absolute));
    this.mustContain(ancestor.real, path);
    const target = resolve(ancestor.real, relative(ancestor.lexical, absolute));
    this.refuseProtected(target, path);
    return this.checkTarget(target, path);
  }

  private async checkTarget(target: string, asked: unknown): Promise<string> {
    const info = await stat(target).catch(() => undefined);
    if (info?.isDirectory()) throw toolError(`${String(asked)} is a directory`);
    // A hard link shares its content with another name, possibly a protected one.
    if (info && info.nlink > 1) throw toolError(`${String(asked)} has other hard links: refusing to write it`);
    return target;
  }

  private lexical(path: unknown): string {
    if (typeof path !== 'string' || path === '') throw toolError('path must be a non-empty string');
    if (path.includes('\0')) throw toolError('path must not contain NUL bytes');
    const absolute = isAbsolute(path) ? resolve(path) : resolve(this.root, path);
    this.mustContain(absolute, path);
    return absolute;
  }

  private mustContain(path: string, asked: unknown): void {
    if (path !== this.root && !path.startsWith(this.root.endsWith(sep) ? this.root : this.root + sep)) {
      throw toolError(`${String(asked)} is outside the working directory`);
    }
  }

  private refuseProtected(path: string, asked: unknown): void {
    if (this.isProtected(path)) {
      throw toolError(`${String(asked)} is a protected file (${basename(path)}): agents may never write it`);
    }
  }

  /** The deepest ancestor of `dir` that exists, as named and as its real path. */
  private async nearestExisting(dir: string): Promise<{ lexical: string; real: string }> {
    let current = dir;
    for (;;) {
      const real = await realpath(current).catch(() => undefined);
      if (real) return { lexical: current, real };
      const parent = dirname(current);
      if (parent === current) throw toolError(`no existing ancestor of ${dir}`);
      current = parent;
    }
  }
}
