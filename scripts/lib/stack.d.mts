// Types of stack.mjs, for the TypeScript tests and the benchmark that use it.
import type { ChildProcess } from "node:child_process";

export interface ServiceEntry {
  name: string;
  database: string;
  bootstrap?: boolean;
  dataDir?: boolean;
}
export const SERVICES: readonly ServiceEntry[];
export const GATEWAY: { name: string };
export const READER: { name: string };
export const ENTRYPOINT: string;
export type Hosting = "one-process" | "split";
export const HOSTINGS: readonly Hosting[];
export const ONE_PROCESS_NAME: string;
export function resolveHosting(env?: Record<string, string | undefined>): Hosting;
export const FORCE_KILL_AFTER_MS: number;
export function envName(service: { name: string }, suffix: string): string;
export function stackJsonKey(service: { name: string }): string;

export function generateTokenSecret(): string;
export function resolveBootstrapToken(dataDir: string, env?: Record<string, string | undefined>): Promise<{ token: string; source: string }>;
export function resolvePageTokenSecret(dataDir: string, env?: Record<string, string | undefined>): Promise<string>;
export function prepareDataDir(dataDir: string, options?: { embeddedPostgres?: boolean }): Promise<void>;
export function ensureNatsServer(options?: { log?: (message: string) => void }): Promise<void>;
export function ensureChromium(options?: { log?: (message: string) => void }): Promise<void>;

export interface Infrastructure {
  databaseUrls: Record<string, string>;
  natsUrl: string;
  stop(): Promise<void>;
}
export function startInfrastructure(options: {
  dataDir: string;
  persistent: boolean;
  natsUrl?: string;
  databaseUrls?: Record<string, string>;
  postgresPort?: number;
  onLog?: (source: string, line: string) => void;
}): Promise<Infrastructure>;

export interface StackProcess {
  name: string;
  child: ChildProcess;
  readonly pid: number | undefined;
  readonly running: boolean;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  lastLines(): string[];
  stop(graceMs?: number): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  kill(): void;
}
export function spawnNodeProcess(options: {
  name: string;
  entry: string;
  env: Record<string, string | undefined>;
  onLine?: (line: string) => void;
}): StackProcess;

export function isGatewayReady(gatewayUrl: string): Promise<boolean>;
export function isReaderReady(readerUrl: string): Promise<boolean>;

export class StackStartError extends Error {
  processName: string | undefined;
  lastLines: string[];
}

export interface Stack {
  hosting: Hosting;
  gatewayUrl: string;
  readerUrl: string;
  grpcAddresses: Record<string, string>;
  processes: StackProcess[];
  infra: Infrastructure;
  onUnexpectedExit(callback: (error: StackStartError) => void): void;
  stop(): Promise<void>;
}
export function startStack(options: {
  dataDir: string;
  persistent: boolean;
  env?: Record<string, string | undefined>;
  hosting?: Hosting;
  gatewayPort?: number;
  readerPort?: number;
  gatewayHost?: string;
  servicePorts?: Record<string, number>;
  natsUrl?: string;
  databaseUrls?: Record<string, string>;
  postgresPort?: number;
  bootstrap?: { token: string; email?: string; orgTitle?: string };
  pageTokenSecret?: string;
  onLog?: (source: string, line: string) => void;
  readyTimeoutMs?: number;
}): Promise<Stack>;

export function stackDescription(stack: Stack, pid?: number): Record<string, string | number>;
export function writeStackJson(dataDir: string, stack: Stack): Promise<string>;
export function removeStackJson(dataDir: string): Promise<void>;
