// The library of models one can pull. Ollama offers no search API, so a curated catalogue ships with
// the extension; beside it stand the models the runner holds that the catalogue does not name. Each
// entry says which of its tags are installed and which are loaded now.
export interface LibraryModel {
  name: string;
  description: string;
  tags: string[];
  capabilities: string[];
}

export const LIBRARY: LibraryModel[] = [
  { name: 'llama3.2', description: 'Meta Llama 3.2: small, fast general models', tags: ['1b', '3b'], capabilities: ['tools'] },
  { name: 'llama3.1', description: 'Meta Llama 3.1: general purpose with tool use', tags: ['8b', '70b'], capabilities: ['tools'] },
  { name: 'qwen2.5-coder', description: 'Qwen 2.5 Coder: code generation and repair', tags: ['1.5b', '7b', '14b', '32b'], capabilities: ['tools'] },
  { name: 'qwen3', description: 'Qwen 3: reasoning and tool use', tags: ['4b', '8b', '14b', '32b'], capabilities: ['tools', 'thinking'] },
  { name: 'mistral', description: 'Mistral 7B: compact general model', tags: ['7b'], capabilities: ['tools'] },
  { name: 'gemma3', description: 'Google Gemma 3: general and vision', tags: ['1b', '4b', '12b', '27b'], capabilities: ['vision'] },
  { name: 'deepseek-r1', description: 'DeepSeek R1: reasoning model', tags: ['1.5b', '7b', '8b', '14b', '32b'], capabilities: ['thinking'] },
  { name: 'phi4', description: 'Microsoft Phi-4: small reasoning model', tags: ['14b'], capabilities: [] },
  { name: 'nomic-embed-text', description: 'Nomic embeddings for search and retrieval', tags: ['latest'], capabilities: ['embedding'] },
];

/** What the runner holds: installed name:tag pairs, and those loaded in memory now. */
export interface RunnerModels {
  installed: Set<string>;
  running: Set<string>;
}

const split = (full: string) => {
  const at = full.lastIndexOf(':');
  return at < 0 ? { name: full, tag: 'latest' } : { name: full.slice(0, at), tag: full.slice(at + 1) };
};

/**
 * The catalogue, each entry with its tags installed and running on the runner, then the runner's models
 * the catalogue does not name (source `runner`), so a model pulled by hand or by another tool is listed too.
 */
export function searchLibrary(query: string | undefined, runner: RunnerModels) {
  const q = query?.trim().toLowerCase();
  const tagsOf = (name: string, among: Set<string>) => [...among].map(split).filter((m) => m.name === name).map((m) => m.tag).sort();
  const catalogued = LIBRARY.map((m) => ({ ...m, source: 'catalogue' as const }));
  const known = new Set(LIBRARY.map((m) => m.name));
  const uncatalogued = [...new Set([...runner.installed].map((full) => split(full).name))]
    .filter((name) => !known.has(name))
    .sort()
    .map((name) => ({ name, description: 'On the runner; not in the catalogue', tags: tagsOf(name, runner.installed), capabilities: [] as string[], source: 'runner' as const }));
  return [...catalogued, ...uncatalogued]
    .filter((m) => !q || m.name.includes(q) || m.description.toLowerCase().includes(q) || m.capabilities.includes(q))
    .map((m) => ({ ...m, installed: tagsOf(m.name, runner.installed), running: tagsOf(m.name, runner.running) }));
}
