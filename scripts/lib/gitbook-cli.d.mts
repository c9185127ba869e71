export declare const GITBOOK_CLI_VERSION: string;
export declare function gitbookCliPrefix(): string;
export declare function ensureGitbookCli(options?: { log?: (line: string) => void }): string;
import type { BuildOptions } from "esbuild";
export declare function gitbookBuildOptions(entry: string): BuildOptions & { write: false };
