// Types of restart.mjs, for the TypeScript tests that read a launcher's rolling restarts.
export const RESTART_FILE: string;

export interface RestartStep {
  name: string;
  oldPid: number | undefined;
  newPid: number | undefined;
  /** When its replacement began (epoch ms). */
  startedAt: number;
  ms: number;
}

/** What `<data>/restart.json` holds while and after the launcher restarts its processes. */
export interface RestartStatus {
  pid: number;
  id: number;
  state: "running" | "done" | "failed";
  startedAt: number;
  finishedAt: number | null;
  names: string[];
  current: string | null;
  steps: RestartStep[];
  queued: boolean;
  error: string | null;
}

export function writeRestartStatus(dataDir: string, status: RestartStatus): Promise<void>;
export function readRestartStatus(dataDir: string): Promise<RestartStatus | null>;
export function removeRestartStatus(dataDir: string): Promise<void>;
export function describeStep(step: RestartStep): string;
export function describeRestartEnd(status: RestartStatus): string;
export function requestRestart(options: {
  dataDir: string;
  out?: (line: string) => void;
  err?: (line: string) => void;
  timeoutMs?: number;
  pollMs?: number;
}): Promise<number>;
