/**
 * The file types the documents service converts, by name: the embedded backend converts them and
 * folder sync picks files by them, so both read the same lists.
 */
import path from 'node:path';

/** The document kinds recognised by extension alone (see BY_EXTENSION). */
export type DocumentKind =
  'doc' | 'xlsx' | 'xls' | 'ods' | 'pptx' | 'odp' | 'odt' | 'rtf' | 'epub' | 'msg' | 'eml' | 'ipynb' | 'json' | 'xml' | 'zip' | 'image';

/** Formats recognised by extension (the converter checks ZIP packages and OLE files by their first bytes). */
export const BY_EXTENSION: Record<string, DocumentKind> = {
  '.doc': 'doc',
  '.dot': 'doc',
  '.xlsx': 'xlsx',
  '.xlsm': 'xlsx',
  '.xls': 'xls',
  '.ods': 'ods',
  '.pptx': 'pptx',
  '.pptm': 'pptx',
  '.odp': 'odp',
  '.odt': 'odt',
  '.rtf': 'rtf',
  '.epub': 'epub',
  '.msg': 'msg',
  '.eml': 'eml',
  '.ipynb': 'ipynb',
  '.json': 'json',
  '.geojson': 'json',
  '.xml': 'xml',
  '.rss': 'xml',
  '.atom': 'xml',
  '.zip': 'zip',
  '.png': 'image',
  '.jpg': 'image',
  '.jpeg': 'image',
  '.tif': 'image',
  '.tiff': 'image',
  '.webp': 'image',
  '.bmp': 'image',
  '.gif': 'image',
};

/** File extension (or whole name) -> fence language. */
export const CODE_LANGUAGES: Record<string, string> = {
  '.ts': 'ts',
  '.tsx': 'tsx',
  '.mts': 'ts',
  '.cts': 'ts',
  '.js': 'js',
  '.jsx': 'jsx',
  '.mjs': 'js',
  '.cjs': 'js',
  '.py': 'python',
  '.pyi': 'python',
  '.java': 'java',
  '.kt': 'kotlin',
  '.kts': 'kotlin',
  '.scala': 'scala',
  '.go': 'go',
  '.rs': 'rust',
  '.c': 'c',
  '.h': 'c',
  '.cc': 'cpp',
  '.cpp': 'cpp',
  '.cxx': 'cpp',
  '.hpp': 'cpp',
  '.hh': 'cpp',
  '.cs': 'csharp',
  '.fs': 'fsharp',
  '.rb': 'ruby',
  '.php': 'php',
  '.swift': 'swift',
  '.m': 'objectivec',
  '.lua': 'lua',
  '.pl': 'perl',
  '.r': 'r',
  '.jl': 'julia',
  '.dart': 'dart',
  '.ex': 'elixir',
  '.exs': 'elixir',
  '.erl': 'erlang',
  '.hs': 'haskell',
  '.clj': 'clojure',
  '.groovy': 'groovy',
  '.vb': 'vbnet',
  '.ps1': 'powershell',
  '.sh': 'bash',
  '.bash': 'bash',
  '.zsh': 'bash',
  '.fish': 'fish',
  '.bat': 'bat',
  '.cmd': 'bat',
  '.sql': 'sql',
  '.css': 'css',
  '.scss': 'scss',
  '.sass': 'sass',
  '.less': 'less',
  '.vue': 'vue',
  '.svelte': 'svelte',
  '.jsonc': 'jsonc',
  '.json5': 'json5',
  '.yaml': 'yaml',
  '.yml': 'yaml',
  '.toml': 'toml',
  '.ini': 'ini',
  '.cfg': 'ini',
  '.conf': 'ini',
  '.properties': 'properties',
  '.xsd': 'xml',
  '.xsl': 'xml',
  '.xslt': 'xml',
  '.gradle': 'groovy',
  '.proto': 'protobuf',
  '.graphql': 'graphql',
  '.gql': 'graphql',
  '.tf': 'hcl',
  '.hcl': 'hcl',
  '.cmake': 'cmake',
  '.mk': 'makefile',
  '.diff': 'diff',
  '.patch': 'diff',
  '.zig': 'zig',
  '.nim': 'nim',
  '.ml': 'ocaml',
  '.elm': 'elm',
  '.sol': 'solidity',
  dockerfile: 'dockerfile',
  makefile: 'makefile',
  cmakelists: 'cmake',
  jenkinsfile: 'groovy',
  gemfile: 'ruby',
};

export const MARKDOWN = new Set(['.md', '.markdown', '.mdown', '.mkd', '.mdx']);
export const TEXT = new Set(['.txt', '.text', '.log', '.rst', '.adoc', '.asciidoc', '.org', '.tex', '.me', '']);
export const HTML = new Set(['.html', '.htm', '.xhtml', '.shtml']);

/** Whether a file name has an extension the documents service converts (used to pick files from folders). */
export function isConvertibleName(filename: string): boolean {
  const base = path.basename(filename).toLowerCase();
  const ext = path.extname(base);
  if (!ext) return base in CODE_LANGUAGES;
  return (
    MARKDOWN.has(ext) ||
    HTML.has(ext) ||
    (TEXT.has(ext) && ext !== '') ||
    ext in CODE_LANGUAGES ||
    ext in BY_EXTENSION ||
    ['.pdf', '.docx', '.csv', '.tsv', '.tab'].includes(ext)
  );
}
