// An extension process's V8 heap flags. V8 refuses a code cache made under other V8 flags, so the
// build makes the extensions' caches under these, for the default memory limit
// (scripts/code-caches.mjs); a server with another ROOST_SANDBOX_MEMORY_MB compiles from source.

/** `memoryMb`: the sandbox's memory limit (RLIMIT_DATA); the old generation gets half of it. */
export function extensionHeapFlags(memoryMb: number): string[] {
  // A small young generation: an extension's garbage is many small messages, and V8's default (up to
  // 16 MiB a semi-space) kept ~12 MiB more per busy process for no CPU saved (docs/performance.md).
  return [`--max-old-space-size=${Math.max(64, Math.floor(memoryMb / 2))}`, '--max-semi-space-size=2'];
}
