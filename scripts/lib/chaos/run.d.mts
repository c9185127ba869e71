// Types of the chaos suite (run.mjs), for its test.
import type { SupervisionEvent } from "../stack.mjs";

export interface ChaosRow {
  figure: string;
  value: string;
  target: string;
  passed: boolean;
}
export interface ChaosAudit {
  lost: number;
  waiting: number;
  appliedTwice: number;
  diverged: number;
  deadLetters: number;
  outbox: { service: string; rows: number; unpublished: number; missingFromStream: number; missingIds: string[] }[];
  duplicatedInStreams: number;
  consumers: { consumer: string; stream: string; owner: string | null; expected: number; processed: number; deadLettered: number; lost: number; waiting: number; lostIds: string[]; appliedTwice: number; deadButProcessed: number; unknown: number; pending: number; unacknowledged: number; ackWaitMs: number }[];
  projections: { name: string; rows: number; diverged: { key: string; source: unknown; projection: unknown }[] }[];
  writes: { checked: number; committed: number; committedButError: { kind: string }[]; killedBeforeAnswering?: { kind: string }[]; duplicated: { kind: string }[]; lostAfterSuccess: { kind: string }[] };
}
/** One experiment and what was measured during it (fields by kind). */
export interface ChaosExperiment {
  name: string;
  /** outage, pause, crash-in-flight, supervised; with replicas copy-kill, copy-pause, rolling-restart. */
  kind: string;
  /** The process it acted on (e.g. "content", "content#2"). */
  unit?: string;
  [measured: string]: unknown;
}
export interface ChaosReport {
  short: boolean;
  /** Two copies of every target (replicas.mjs). */
  replicas: boolean;
  passed: boolean;
  rows: ChaosRow[];
  audit: ChaosAudit;
  experiments: ChaosExperiment[];
  settled: boolean;
  settleMs: number;
  requests: number;
  writes: number;
  durationMs: number;
  /** Answers 500 during outages, by "experiment: route". */
  fiveHundredsBy: Record<string, number>;
  supervision: SupervisionEvent[];
  /** Replicas: each service copy's gRPC calls over the run, by service. */
  calls: Record<string, { address: string; calls: number; processes: number }[]> | null;
}
export const PLANS: Record<"full" | "short", { outages: Record<string, number>; pause: { target: string; ms: number }; supervised: string[]; loops: number; pace: number; calm: number; settle: number; writeGrace: number }>;
export const REPLICA_PLANS: Record<"full" | "short", { kills: string[]; copyDown: number; pause: { unit: string; ms: number }; convergeWithinMs: number; loops: number; pace: number; calm: number; settle: number; writeGrace: number }>;
export function runChaos(options?: { short?: boolean; replicas?: boolean; log?: (line: string) => void }): Promise<ChaosReport>;
export function formatReport(report: ChaosReport): string;
