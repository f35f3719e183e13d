// An extension process's memory settings: its V8 heap flags and its malloc arenas. V8 refuses a code
// cache made under other V8 flags, so the build makes the extensions' caches under these, for the
// default memory limit (scripts/code-caches.mjs); a server with another ROOST_SANDBOX_MEMORY_MB compiles
// from source.

/**
 * glibc's malloc gives threads that allocate at once arenas of their own (up to eight a core), each
 * keeping the memory freed in it; an extension's few threads (its main thread, libuv's pool, V8's
 * helpers) share two: ~2–4 MB less PSS in each extension busy under a write load (docs/performance.md).
 */
export const EXTENSION_MALLOC_ENV = { MALLOC_ARENA_MAX: '2' };

/** `memoryMb`: the sandbox's memory limit (RLIMIT_DATA); the old generation gets half of it. */
export function extensionHeapFlags(memoryMb: number): string[] {
  // A small young generation: an extension's garbage is many small messages, and V8's default (up to
  // 16 MiB a semi-space) kept ~12 MiB more per busy process for no CPU saved (docs/performance.md).
  return [`--max-old-space-size=${Math.max(64, Math.floor(memoryMb / 2))}`, '--max-semi-space-size=2'];
}
