// The state of one call inside a sandbox worker: its budgets, its log lines, the timers and host
// fetches it has pending, and how it ends. The script runtime drives the guest; this decides.
import type { QuickJSDeferredPromise } from "quickjs-emscripten-core";
import type { SandboxFailure, SandboxHttpRequest, SandboxHttpResponse, SandboxLimits, SandboxLogLevel, SandboxLogLine, SandboxOutcome } from "./types.js";

const LOG_MESSAGE_CHARS = 4096;
const LOG_LINES = 200;
const TIMERS_PER_CALL = 1000;
// Cloudflare's limit of subrequests per invocation on its free plan.
const FETCHES_PER_CALL = 50;

export type CallFailure = Exclude<SandboxFailure, "busy">;

export interface FetchSettlement {
  fetchId: number;
  response?: SandboxHttpResponse;
  error?: string;
}

/** The main thread's side of host fetches. */
export interface FetchChannel {
  start(fetchId: number, request: SandboxHttpRequest): void;
  abort(fetchId: number): void;
}

export class SandboxCall {
  readonly limits: SandboxLimits;
  readonly logs: SandboxLogLine[] = [];
  failure: { failure: CallFailure; reason: string } | undefined;
  /** Set when the runtime must not serve another call even though the call succeeded. */
  discardRuntime = false;
  /** Pending guest timers: id → due time (performance.now()). */
  readonly timers = new Map<number, number>();
  /** Host fetches in flight: id → the guest promise they settle. */
  readonly fetches = new Map<number, QuickJSDeferredPromise>();
  private readonly channel: FetchChannel;
  private readonly startedAt = performance.now();
  private cpuMicros = 0;
  private sliceStart: NodeJS.CpuUsage | undefined;
  private sliceDepth = 0;
  private droppedLogLines = 0;
  private fetchCount = 0;
  private settledFetches: FetchSettlement[] = [];
  private wake: (() => void) | undefined;

  constructor(limits: SandboxLimits, channel: FetchChannel) {
    this.limits = limits;
    this.channel = channel;
  }

  // CPU is counted only while the guest runs (a slice, which may nest), with the thread's own clock:
  // time waiting for fetches and timers, or other threads' work, is not the script's.
  beginSlice(): void {
    if (this.sliceDepth++ === 0) this.sliceStart = process.threadCpuUsage();
  }

  endSlice(): void {
    if (this.sliceDepth === 0 || --this.sliceDepth > 0 || this.sliceStart === undefined) return;
    const spent = process.threadCpuUsage(this.sliceStart);
    this.cpuMicros += spent.user + spent.system;
    this.sliceStart = undefined;
  }

  cpuMs(): number {
    let micros = this.cpuMicros;
    if (this.sliceStart !== undefined) {
      const spent = process.threadCpuUsage(this.sliceStart);
      micros += spent.user + spent.system;
    }
    return micros / 1000;
  }

  wallMs(): number {
    return performance.now() - this.startedAt;
  }

  /** QuickJS's interrupt handler: true stops the guest (it cannot catch that). */
  shouldInterrupt(memoryRefused: boolean): boolean {
    if (this.failure) return true;
    if (memoryRefused) this.failMemory();
    else if (this.cpuMs() > this.limits.cpuMs) this.fail("cpu_limit", `the script used more than its ${this.limits.cpuMs} ms of CPU time`);
    else this.checkWall();
    return this.failure !== undefined;
  }

  /** Records the wall limit as the failure once it is passed. */
  checkWall(): boolean {
    if (!this.failure && this.wallMs() > this.limits.wallMs) {
      this.fail("wall_limit", `the call did not finish within its ${this.limits.wallMs} ms wall time`);
    }
    return this.failure !== undefined;
  }

  failMemory(): void {
    this.fail("memory_limit", `the script needed more than its ${formatBytes(this.limits.memoryBytes)} of memory`);
  }

  /** The first failure is the call's. */
  fail(failure: CallFailure, reason: string): void {
    this.failure ??= { failure, reason };
  }

  /**
   * A failure after the response was ready (in ctx.waitUntil work) does not take the response
   * back, as in Workers: it becomes a log line, and the runtime is discarded all the same.
   */
  failedAfterResponse(): void {
    if (!this.failure) return;
    this.log("error", `ctx.waitUntil work was stopped: ${this.failure.reason}`);
    this.failure = undefined;
    this.discardRuntime = true;
  }

  log(level: SandboxLogLevel, message: string): void {
    if (this.logs.length >= LOG_LINES) {
      this.droppedLogLines++;
      return;
    }
    const text = message.length > LOG_MESSAGE_CHARS ? `${message.slice(0, LOG_MESSAGE_CHARS)}… (cut at ${LOG_MESSAGE_CHARS} characters)` : message;
    this.logs.push({ level, message: text, timestamp: new Date() });
  }

  startTimer(id: number, delayMs: number): void {
    if (!this.timers.has(id) && this.timers.size >= TIMERS_PER_CALL) {
      throw new RangeError(`A call may have at most ${TIMERS_PER_CALL} pending timers`);
    }
    this.timers.set(id, performance.now() + delayMs);
  }

  cancelTimer(id: number): void {
    this.timers.delete(id);
  }

  /** The timers due now, earliest first. */
  takeDueTimers(): number[] {
    const now = performance.now();
    const due = [...this.timers].filter(([, dueAt]) => dueAt <= now).sort((a, b) => a[1] - b[1] || a[0] - b[0]);
    for (const [id] of due) this.timers.delete(id);
    return due.map(([id]) => id);
  }

  startFetch(fetchId: number, request: SandboxHttpRequest, settle: QuickJSDeferredPromise): void {
    if (this.fetchCount >= FETCHES_PER_CALL) {
      throw new RangeError(`A call may make at most ${FETCHES_PER_CALL} fetches`);
    }
    this.fetchCount++;
    this.fetches.set(fetchId, settle);
    this.channel.start(fetchId, request);
  }

  abortFetch(fetchId: number): void {
    const settle = this.fetches.get(fetchId);
    if (!settle) return;
    this.fetches.delete(fetchId);
    settle.dispose();
    this.channel.abort(fetchId);
  }

  /** A host fetch answered (from the main thread); applied to the guest by the runtime's loop. */
  fetchSettled(settlement: FetchSettlement): void {
    if (!this.fetches.has(settlement.fetchId)) return;
    this.settledFetches.push(settlement);
    this.wake?.();
  }

  takeSettledFetches(): FetchSettlement[] {
    return this.settledFetches.splice(0);
  }

  /**
   * How long the loop may wait for a timer or a fetch: 0 when work is ready, the time to the next
   * timer or to the wall limit, or undefined when nothing pending could ever wake the guest.
   */
  nextWaitMs(): number | undefined {
    if (this.settledFetches.length > 0) return 0;
    const untilWall = Math.max(0, this.limits.wallMs - this.wallMs());
    let wait: number | undefined = this.fetches.size > 0 ? untilWall : undefined;
    const now = performance.now();
    for (const dueAt of this.timers.values()) wait = Math.min(wait ?? untilWall, Math.max(0, dueAt - now), untilWall);
    return wait;
  }

  waitForWork(ms: number): Promise<void> {
    return new Promise((resolve) => {
      // A zero wait still yields to the worker's event loop, where fetch answers arrive.
      const timer = ms > 0 ? setTimeout(() => done(), ms) : undefined;
      const immediate = ms > 0 ? undefined : setImmediate(() => done());
      const done = (): void => {
        clearTimeout(timer);
        clearImmediate(immediate);
        this.wake = undefined;
        resolve();
      };
      this.wake = done;
    });
  }

  /** Ends the call: host fetches still in flight are aborted, pending timers forgotten. */
  finish(): void {
    for (const fetchId of [...this.fetches.keys()]) this.abortFetch(fetchId);
    this.timers.clear();
    this.settledFetches = [];
  }

  outcome(response: SandboxHttpResponse | undefined): SandboxOutcome {
    if (this.droppedLogLines > 0) {
      this.logs.push({ level: "warn", message: `${this.droppedLogLines} more log lines were dropped (at most ${LOG_LINES} per call)`, timestamp: new Date() });
    }
    const cpuMs = round(this.cpuMs());
    const wallMs = round(this.wallMs());
    if (this.failure || !response) {
      const { failure, reason } = this.failure ?? { failure: "script_error" as const, reason: "the call ended without a response" };
      // The failure is part of the event's trace shown to the integration's developer.
      this.logs.push({ level: "error", message: reason, timestamp: new Date() });
      return { ok: false, failure, reason, logs: this.logs, cpuMs, wallMs };
    }
    return { ok: true, response, logs: this.logs, cpuMs, wallMs };
  }
}

function round(ms: number): number {
  return Math.round(ms * 1000) / 1000;
}

export function formatBytes(bytes: number): string {
  return bytes % (1024 * 1024) === 0 ? `${bytes / (1024 * 1024)} MiB` : `${bytes} bytes`;
}
