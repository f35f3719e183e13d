// The library of models one can pull. Ollama offers no search API, so a curated catalogue ships with
// the extension; entries already installed are marked.
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

export function searchLibrary(query: string | undefined, installed: Set<string>) {
  const q = query?.trim().toLowerCase();
  return LIBRARY.filter((m) => !q || m.name.includes(q) || m.description.toLowerCase().includes(q) || m.capabilities.includes(q)).map((m) => ({
    ...m,
    installed: m.tags.filter((tag) => installed.has(`${m.name}:${tag}`)).concat(installed.has(`${m.name}:latest`) ? ['latest'] : []),
  }));
}
