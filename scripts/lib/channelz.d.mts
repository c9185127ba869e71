// Types of channelz.mjs, for the TypeScript tests.
export function callsStarted(address: string, timeoutMs?: number): Promise<number>;
export function callsPerCopy(addresses: string[], work: () => Promise<unknown>): Promise<number[]>;
export function watchCallsPerCopy(
  copies: Record<string, { address: string; pid: () => number | undefined }[]>,
  options?: { intervalMs?: number },
): {
  sample(): Promise<void>;
  stop(): Promise<Record<string, { address: string; calls: number; processes: number }[]>>;
};
