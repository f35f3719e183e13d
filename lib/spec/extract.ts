// Exported symbols of a source file, found line by line with each language's declaration syntax.
// Regular expressions, not parsers: fast, dependency-free, and right for the usual layouts.
import type { Language } from './languages.js';

export interface ExportedSymbol {
  name: string;
  kind: string;
  line: number;
}

/** A pattern whose first group is the kind (or a fixed kind) and whose last group is the name. */
interface Rule {
  re: RegExp;
  kind?: string;
}

const ID = '([A-Za-z_$][\\w$]*)';
const TS_DECL = '^\\s*export\\s+(?:declare\\s+)?(?:default\\s+)?';

const RULES: Record<Language, Rule[]> = {
  typescript: [
    { re: new RegExp(`${TS_DECL}(?:async\\s+)?function\\s*\\*?\\s*${ID}`), kind: 'function' },
    { re: new RegExp(`${TS_DECL}(?:abstract\\s+)?class\\s+${ID}`), kind: 'class' },
    { re: new RegExp(`${TS_DECL}(?:const\\s+)?enum\\s+${ID}`), kind: 'enum' },
    { re: new RegExp(`${TS_DECL}(const|let|var)\\s+${ID}`) },
    { re: new RegExp(`${TS_DECL}(interface|type|namespace|module)\\s+${ID}`) },
    { re: new RegExp(`^\\s*export\\s+\\*\\s+as\\s+${ID}`), kind: 'namespace' },
    { re: /^\s*(?:module\.)?exports\.([A-Za-z_$][\w$]*)\s*=/, kind: 'value' },
    // Anonymous defaults (`export default function () {}`, `export default {…}`, `export default app`).
    { re: /^\s*export\s+default\s+(?!(?:async\s+)?function\s*\*?\s*[A-Za-z_$]|(?:abstract\s+)?class\s+[A-Za-z_$])()/, kind: 'default' },
  ],
  javascript: [],
  python: [
    { re: /^(?:async\s+)?def\s+([A-Za-z]\w*)/, kind: 'function' },
    { re: /^class\s+([A-Za-z]\w*)/, kind: 'class' },
  ],
  go: [
    { re: /^func\s+([A-Z]\w*)/, kind: 'function' },
    { re: /^type\s+([A-Z]\w*)(?:\[[^\]]*\])?\s+(?:struct|interface)\b/, kind: 'type' },
    { re: /^type\s+([A-Z]\w*)/, kind: 'type' },
    { re: /^(var|const)\s+([A-Z]\w*)/ },
  ],
  rust: [
    { re: /^\s*pub\s+(?:(?:async|const|unsafe|extern\s+"[^"]*")\s+)*fn\s+(\w+)/, kind: 'function' },
    { re: /^\s*pub\s+(struct|enum|trait|type|mod|union)\s+(\w+)/ },
    { re: /^\s*pub\s+(const|static)\s+(?:mut\s+)?(\w+)/ },
  ],
  java: [
    {
      re: /^\s*public\s+(?:(?:abstract|final|static|sealed|non-sealed|strictfp)\s+)*(class|interface|enum|record|@interface)\s+(\w+)/,
    },
  ],
  kotlin: [
    {
      re: /^(?:(?:public|open|abstract|sealed|data|enum|annotation|inline|value|final|expect|actual|fun)\s+)*(class|interface|object)\s+(\w+)/,
    },
    { re: /^(?:(?:public|inline|suspend|operator|infix|tailrec|expect|actual)\s+)*fun\s+(?:<[^>]*>\s*)?(?:[\w.<>?]+\.)?(\w+)\s*\(/, kind: 'function' },
    { re: /^(?:public\s+)?const\s+val\s+(\w+)/, kind: 'const' },
  ],
  csharp: [{ re: /^\s*public\s+(?:(?:static|abstract|sealed|partial|readonly|ref|unsafe)\s+)*(class|interface|struct|enum|record)\s+(\w+)/ }],
  ruby: [
    { re: /^(class|module)\s+([A-Z][\w:]*)/ },
    { re: /^def\s+(?:self\.)?([a-z_]\w*[?!=]?)/, kind: 'function' },
  ],
  swift: [
    { re: /^\s*(?:public|open)\s+(?:(?:final|static|class|indirect)\s+)*(class|struct|enum|protocol|actor|typealias)\s+(\w+)/ },
    { re: /^\s*(?:public|open)\s+(?:(?:final|static|class|mutating)\s+)*func\s+(\w+)/, kind: 'function' },
  ],
};
RULES.javascript = RULES.typescript;

export function extractSymbols(language: Language, text: string): ExportedSymbol[] {
  const lines = text.split('\n');
  const found: ExportedSymbol[] = [];
  const add = (name: string, kind: string, line: number) => {
    if (!found.some((s) => s.name === name && s.kind === kind)) found.push({ name, kind, line });
  };
  let block: { kind: string } | null = null;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (language === 'go' && (block = goBlock(block, line, i + 1, add))) continue;
    if ((language === 'typescript' || language === 'javascript') && /^\s*export\s+(?:type\s+)?\{/.test(line)) {
      i = exportList(lines, i, add);
      continue;
    }
    if (language === 'go') {
      const method = /^func\s+\(\s*\w*\s*\*?\s*([A-Z]\w*)(?:\[[^\]]*\])?\s*\)\s*([A-Z]\w*)/.exec(line);
      if (method) {
        add(`${method[1]}.${method[2]}`, 'method', i + 1);
        continue;
      }
    }
    for (const rule of RULES[language]) {
      const m = rule.re.exec(line);
      if (!m) continue;
      const kind = rule.kind ?? m[1]!;
      add(kind === 'default' ? 'default' : m[m.length - 1]!, kind, i + 1);
      break;
    }
  }
  return found.sort((a, b) => a.line - b.line || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/** Go's grouped declarations: `const (` … `)`; returns the open block, or null once outside one. */
function goBlock(block: { kind: string } | null, line: string, lineNo: number, add: (n: string, k: string, l: number) => void) {
  if (!block) {
    const open = /^(var|const|type)\s*\(\s*$/.exec(line);
    return open ? { kind: open[1]! } : null;
  }
  if (/^\)/.test(line)) return null;
  const member = /^\s+([A-Z]\w*)\b/.exec(line);
  if (member) add(member[1]!, block.kind, lineNo);
  return block;
}

/** `export { a, b as c }` (possibly over several lines): the exported names. Returns the last line read. */
function exportList(lines: string[], start: number, add: (n: string, k: string, l: number) => void): number {
  let text = '';
  let end = start;
  for (; end < lines.length; end++) {
    text += `${lines[end]} `;
    if (lines[end]!.includes('}')) break;
  }
  const inner = text.slice(text.indexOf('{') + 1, text.indexOf('}') >= 0 ? text.indexOf('}') : undefined);
  for (const part of inner.split(',')) {
    const words = part.trim().replace(/^type\s+/, '').split(/\s+as\s+/);
    const name = words[words.length - 1]!.trim();
    if (/^[A-Za-z_$][\w$]*$/.test(name)) add(name, 'reexport', start + 1);
  }
  return Math.min(end, lines.length - 1);
}
