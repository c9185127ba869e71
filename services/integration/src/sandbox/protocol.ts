// Messages between the pool (main thread) and a sandbox worker. The worker runs one call at a time;
// the host fetches of that call go through the main thread, where the caller's SandboxFetch lives.
import type { SandboxHttpRequest, SandboxHttpResponse, SandboxLimits, SandboxOutcome } from "./types.js";

export interface WorkerSettings {
  warmScripts: number;
}

/** Runs one call. `script` is null when the pool knows the worker holds `scriptKey` warm. */
export interface RunMessage {
  type: "run";
  callId: number;
  scriptKey: string;
  script: string | null;
  request: SandboxHttpRequest;
  env: Record<string, string>;
  limits: SandboxLimits;
}

export interface FetchSettledMessage {
  type: "fetch-settled";
  callId: number;
  fetchId: number;
  response?: SandboxHttpResponse;
  error?: string;
}

export type ToWorkerMessage = RunMessage | FetchSettledMessage;

export interface ReadyMessage {
  type: "ready";
}

/** The worker no longer holds the script warm: the pool sends the run again with the script. */
export interface NeedScriptMessage {
  type: "need-script";
  callId: number;
}

export interface FetchMessage {
  type: "fetch";
  callId: number;
  fetchId: number;
  request: SandboxHttpRequest;
}

export interface FetchAbortMessage {
  type: "fetch-abort";
  callId: number;
  fetchId: number;
}

export interface DoneMessage {
  type: "done";
  callId: number;
  outcome: SandboxOutcome;
  /** The scripts the worker holds warm after this call, for the pool's routing. */
  warmScriptKeys: string[];
}

export type FromWorkerMessage = ReadyMessage | NeedScriptMessage | FetchMessage | FetchAbortMessage | DoneMessage;
