export declare const GITBOOK_CLI_VERSION: string;
export declare function gitbookCliPrefix(): string;
export declare function ensureGitbookCli(options?: { log?: (line: string) => void }): string;
export declare function bundleIntegration(directory: string): Promise<string>;
