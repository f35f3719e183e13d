// The extensions' part of GET /api/health (schema versions, each extension's state and its detail), kept
// as the JSON text that ends the document and rebuilt only when something it shows has changed (so a
// response does not build and serialise its ~6 KB again). The state it shows is written in many
// places (the registry, the supervisor, loading and unloading), so instead of each of them announcing a
// change, every request compares the few fields shown with those the tail was built from: a walk of the
// extension list without an allocation, against building and serialising ~6 KB per request.
import type { Extension } from '../../host/registry.js';

/** A lazy or deferred extension that is not running and has nothing wrong is idle, not stopped: it starts on first use. */
function shownState(e: Extension): string {
  return e.state === 'stopped' && e.manifest.server?.activation !== 'eager' ? 'idle' : e.state;
}

/** The state in words, for a person reading the health document. */
function summaryOf(e: Extension): string {
  switch (shownState(e)) {
    case 'idle':
      return e.manifest.server?.activation === 'deferred' ? 'idle (starts on first use, or a while after the server)' : 'idle (starts on first use)';
    case 'stopped':
      return 'not started yet';
    case 'crashed':
      return `restarting (${e.lastError ?? 'it stopped'})`;
    case 'failed':
      return `failed: ${e.lastError ?? 'crash budget spent'}`;
    default:
      return e.state;
  }
}

/** What the text shows of one extension; it is rebuilt when any of these is not what it was. */
const SHOWN: ReadonlyArray<(e: Extension) => unknown> = [
  (e) => e.manifest, (e) => e.manifest.server?.activation, (e) => e.state, (e) => e.restarts,
  (e) => e.startedAt, (e) => e.lastError, (e) => e.schemaVersion,
];

export class ExtensionHealth {
  private tail: string | undefined;
  /** The shown fields of every extension, in list order, as of the tail. */
  private readonly built: unknown[] = [];

  constructor(private readonly kernelSchemaVersion: number) {}

  /** `,"schemaVersions":{…},"extensions":{…},"extensionDetail":{…}}`, the end of the document, for these extensions as they are now. */
  end(list: Extension[]): string {
    if (!this.tail || this.changed(list)) this.tail = this.build(list);
    return this.tail;
  }

  private changed(list: Extension[]): boolean {
    if (this.built.length !== list.length * SHOWN.length) return true;
    let at = 0;
    for (const e of list) {
      for (const field of SHOWN) if (this.built[at++] !== field(e)) return true;
    }
    return false;
  }

  private build(list: Extension[]): string {
    const extensions = Object.fromEntries(list.map((e) => [e.manifest.name, shownState(e)]));
    const extensionDetail = Object.fromEntries(list.map((e) => [e.manifest.name, {
      state: shownState(e),
      summary: summaryOf(e),
      activation: e.manifest.server?.activation ?? 'eager',
      startedAt: e.startedAt ?? null,
      restarts: e.restarts,
      lastError: e.lastError ?? null,
    }]));
    const schemaVersions = Object.fromEntries([['kernel', this.kernelSchemaVersion], ...list.filter((e) => e.schemaVersion !== null).map((e) => [e.manifest.name, e.schemaVersion])]);
    this.built.length = 0;
    for (const e of list) for (const field of SHOWN) this.built.push(field(e));
    // The opening brace dropped: the route puts these members after its own.
    return `,${JSON.stringify({ schemaVersions, extensions, extensionDetail }).slice(1)}`;
  }
}
