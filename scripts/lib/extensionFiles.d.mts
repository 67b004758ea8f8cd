export function packagedFiles(root?: string): Promise<string[]>;
export function installPackagedFiles(extensionsDir: string, root?: string): Promise<{ id: string; dir: string; files: string[] }>;
