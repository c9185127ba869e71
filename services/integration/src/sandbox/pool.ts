// The main thread's side of the sandbox: a pool of worker threads each running one call at a time
// (one at first, more while calls wait, back to one when idle), a bounded queue in front of them,
// the caller's SandboxFetch for the scripts' fetches, and a watchdog that replaces a worker that
// stops answering.
import { existsSync } from "node:fs";
import { Worker } from "node:worker_threads";
import { sandboxKills, sandboxRunDuration, sandboxRuns, type CounterChild } from "@imprint/runtime/core";
import { formatBytes } from "./call.js";
import type { FromWorkerMessage, RunMessage, WorkerSettings } from "./protocol.js";
import type {
  SandboxFailure,
  SandboxHttpRequest,
  SandboxHttpResponse,
  SandboxLimits,
  SandboxOutcome,
  SandboxPool,
  SandboxPoolOptions,
  SandboxRunInput,
} from "./types.js";

const DEFAULT_MAX_QUEUED_CALLS = 256;
const DEFAULT_WARM_SCRIPTS = 8;
// A worker costs ~35 MB under load (its isolate, heap and compiled code), and on a small machine one
// keeps up with the load. Another starts while a call waits and either every worker has been on its
// call this long (held by a slow call: fetches, timers, a loop)...
const DEFAULT_SPARE_AFTER_MS = 250;
// ...or the call has waited this long (the load outgrows the workers; a burst of 32 short deliveries
// clears sooner).
const BACKLOG_FACTOR = 8;
const DEFAULT_SPARE_IDLE_MS = 30_000;
// How long past its wall limit a worker may take to answer before it is deemed wedged.
const WATCHDOG_GRACE_MS = 2000;
// QuickJS recursion runs on the thread's stack too (script-runtime.ts sizes QuickJS's own stack).
const WORKER_STACK_MB = 8;
const RESTART_DELAY_MS = 1000;
const STARTS_FAILED_BEFORE_REFUSING = 3;

interface WaitingCall {
  input: SandboxRunInput;
  answer: (outcome: SandboxOutcome) => void;
  queuedAt: number;
}

interface ActiveCall extends WaitingCall {
  callId: number;
  startedAt: number;
  watchdog: NodeJS.Timeout;
  fetches: Map<number, AbortController>;
}

interface WorkerSlot {
  worker: Worker;
  ready: boolean;
  active: ActiveCall | undefined;
  /** What the worker last said it holds warm: calls of these scripts go to it first. */
  warmScriptKeys: Set<string>;
  lastError: Error | undefined;
  /** Stops the worker once it has been idle for spareIdleMs, while another is left. */
  idleTimer: NodeJS.Timeout | undefined;
}

/** Cancels a worker's stop for idleness (it took a call, is replaced, or the pool closes). */
function cancelIdleStop(slot: WorkerSlot): void {
  clearTimeout(slot.idleTimer);
  slot.idleTimer = undefined;
}

/** The failures of a script stopped at one of its limits: each is a kill (imprint_sandbox_kills_total). */
const LIMITS = new Set<string>(["cpu_limit", "wall_limit", "memory_limit", "output_limit"]);
const runDuration = sandboxRunDuration.child();
/** Children by outcome and reason (bounded: "ok", the SandboxFailure names, "worker_stuck"), made once. */
const runsByOutcome = childrenBy((outcome) => sandboxRuns.child(outcome));
const killsByReason = childrenBy((reason) => sandboxKills.child(reason));

function childrenBy(make: (label: string) => CounterChild): (label: string) => CounterChild {
  const made = new Map<string, CounterChild>();
  return (label) => {
    let child = made.get(label);
    if (!child) made.set(label, (child = make(label)));
    return child;
  };
}

export function createSandboxPool(options: SandboxPoolOptions): SandboxPool {
  return new WorkerPool(options);
}

class WorkerPool implements SandboxPool {
  private readonly limits: SandboxLimits;
  private readonly logger: SandboxPoolOptions["logger"];
  private readonly maxQueuedCalls: number;
  private readonly settings: WorkerSettings;
  private readonly slots: WorkerSlot[] = [];
  private readonly queue: WaitingCall[] = [];
  private callSequence = 0;
  private failedStarts = 0;
  private closing: { resolve: () => void; done: Promise<void> } | undefined;
  private readonly workers: number;
  private readonly spareAfterMs: number;
  private readonly spareIdleMs: number;
  private spareCheck: NodeJS.Timeout | undefined;
  private started = false;

  constructor(options: SandboxPoolOptions) {
    if (!Number.isInteger(options.workers) || options.workers < 1) throw new RangeError("createSandboxPool: workers must be a positive integer");
    this.limits = options.limits;
    this.logger = options.logger;
    this.maxQueuedCalls = options.maxQueuedCalls ?? DEFAULT_MAX_QUEUED_CALLS;
    this.settings = { warmScripts: options.warmScriptsPerWorker ?? DEFAULT_WARM_SCRIPTS };
    this.workers = options.workers;
    this.spareAfterMs = options.spareAfterMs ?? DEFAULT_SPARE_AFTER_MS;
    this.spareIdleMs = options.spareIdleMs ?? DEFAULT_SPARE_IDLE_MS;
  }

  /** The first worker starts with the first call: a deployment (or a test) that runs no script pays nothing for it. */
  private startWorkers(): void {
    if (this.started) return;
    this.started = true;
    this.slots.push(this.spawn());
  }

  threads(): number {
    return this.slots.length;
  }

  run(input: SandboxRunInput): Promise<SandboxOutcome> {
    if (this.closing) return Promise.resolve(refused("busy", "the sandbox pool is closed"));
    if (this.failedStarts >= STARTS_FAILED_BEFORE_REFUSING) {
      return Promise.resolve(refused("busy", "the sandbox workers fail to start; see the service's log"));
    }
    if (this.queue.length >= this.maxQueuedCalls) {
      return Promise.resolve(refused("busy", `all ${this.slots.length} sandbox workers are busy and ${this.queue.length} calls are waiting`));
    }
    this.startWorkers();
    return new Promise((answer) => {
      this.queue.push({ input, answer, queuedAt: performance.now() });
      this.dispatch();
    });
  }

  async close(): Promise<void> {
    if (!this.closing) {
      let resolve = (): void => {};
      const done = new Promise<void>((settle) => (resolve = settle));
      this.closing = { resolve, done };
      for (const waiting of this.queue.splice(0)) waiting.answer(refused("busy", "the sandbox pool closed before the call started"));
      this.stopWhenIdle();
    }
    return this.closing.done;
  }

  private spawn(): WorkerSlot {
    const worker = startWorker(this.settings);
    // Idle workers do not keep the process alive; a running call's watchdog timer does.
    worker.unref();
    const slot: WorkerSlot = { worker, ready: false, active: undefined, warmScriptKeys: new Set(), lastError: undefined, idleTimer: undefined };
    worker.on("message", (message: FromWorkerMessage) => this.onMessage(slot, message));
    worker.on("error", (error: Error) => {
      slot.lastError = error;
    });
    worker.on("exit", (exitCode) => this.onExit(slot, exitCode));
    return slot;
  }

  /** Starts waiting calls on idle workers, a worker already warm for the script first. */
  private dispatch(): void {
    for (;;) {
      const next = this.queue[0];
      const idle = this.slots.filter((slot) => slot.ready && !slot.active);
      if (!next) return;
      if (idle.length === 0) {
        this.spareLater();
        return;
      }
      const slot = idle.find((candidate) => candidate.warmScriptKeys.has(next.input.scriptKey)) ?? idle[0]!;
      this.queue.shift();
      this.start(slot, next);
    }
  }

  /**
   * Starts one more worker (one starting at a time) while a call waits, once every worker has been
   * on its call for spareAfterMs or the oldest waiting call has waited BACKLOG_FACTOR times that.
   */
  private spareLater(): void {
    const canGrow = (): boolean => !this.closing && this.slots.length < this.workers && this.slots.every((slot) => slot.ready && slot.active);
    const spareDueAt = (): number | undefined => {
      const oldest = this.queue[0];
      if (!oldest || !canGrow()) return undefined;
      const lastStarted = Math.max(...this.slots.map((slot) => slot.active!.startedAt));
      return Math.min(lastStarted + this.spareAfterMs, oldest.queuedAt + BACKLOG_FACTOR * this.spareAfterMs);
    };
    const due = spareDueAt();
    if (this.spareCheck || due === undefined) return;
    this.spareCheck = setTimeout(
      () => {
        this.spareCheck = undefined;
        const dueNow = spareDueAt();
        if (dueNow === undefined) return;
        if (dueNow <= performance.now()) this.slots.push(this.spawn());
        else this.spareLater();
      },
      Math.max(0, due - performance.now()),
    );
    this.spareCheck.unref();
  }

  /** For a worker left without a call: stops it once it has stayed idle for spareIdleMs, as long as another is left. */
  private stopWhenLongIdle(slot: WorkerSlot): void {
    const mayStop = (): boolean => !this.closing && !slot.active && this.slots.length > 1 && this.slots.includes(slot);
    cancelIdleStop(slot);
    if (!mayStop()) return;
    slot.idleTimer = setTimeout(() => {
      slot.idleTimer = undefined;
      if (!mayStop()) return;
      this.slots.splice(this.slots.indexOf(slot), 1);
      void slot.worker.terminate();
    }, this.spareIdleMs);
    slot.idleTimer.unref();
  }

  private start(slot: WorkerSlot, waiting: WaitingCall): void {
    cancelIdleStop(slot);
    const callId = ++this.callSequence;
    const active: ActiveCall = {
      ...waiting,
      callId,
      startedAt: performance.now(),
      watchdog: setTimeout(() => this.onWedged(slot, active), this.limits.wallMs + WATCHDOG_GRACE_MS),
      fetches: new Map(),
    };
    slot.active = active;
    this.send(slot, active, slot.warmScriptKeys.has(waiting.input.scriptKey) ? null : waiting.input.script);
  }

  private send(slot: WorkerSlot, active: ActiveCall, script: string | null): void {
    const request = copyRequest(active.input.request);
    const message: RunMessage = {
      type: "run",
      callId: active.callId,
      scriptKey: active.input.scriptKey,
      script,
      request,
      env: active.input.env ?? {},
      limits: this.limits,
    };
    slot.worker.postMessage(message, request.body ? [request.body.buffer as ArrayBuffer] : []);
  }

  private onMessage(slot: WorkerSlot, message: FromWorkerMessage): void {
    if (message.type === "ready") {
      slot.ready = true;
      this.failedStarts = 0;
      this.dispatch();
      // A worker started for a call another worker took in the meantime.
      this.stopWhenLongIdle(slot);
      return;
    }
    const active = slot.active;
    if (!active || active.callId !== message.callId) return;
    switch (message.type) {
      case "need-script":
        this.send(slot, active, active.input.script);
        break;
      case "fetch":
        this.fetchFor(slot, active, message.fetchId, message.request);
        break;
      case "fetch-abort":
        active.fetches.get(message.fetchId)?.abort();
        active.fetches.delete(message.fetchId);
        break;
      case "done":
        slot.warmScriptKeys = new Set(message.warmScriptKeys);
        this.finish(slot, active, message.outcome);
        break;
    }
  }

  private fetchFor(slot: WorkerSlot, active: ActiveCall, fetchId: number, request: SandboxHttpRequest): void {
    const controller = new AbortController();
    active.fetches.set(fetchId, controller);
    const stillWanted = (): boolean => slot.active === active && !controller.signal.aborted;
    const settle = (response: SandboxHttpResponse | undefined, error: string | undefined): void => {
      if (!stillWanted()) return;
      active.fetches.delete(fetchId);
      const body = response ? new Uint8Array(response.body) : undefined;
      const settled = response && body ? { status: response.status, headers: response.headers, body } : undefined;
      slot.worker.postMessage({ type: "fetch-settled", callId: active.callId, fetchId, response: settled, error }, body ? [body.buffer] : []);
    };
    Promise.resolve()
      .then(() => active.input.fetch(request, controller.signal))
      .then(
        (response) => settle(response, undefined),
        (error: unknown) => settle(undefined, error instanceof Error ? error.message : String(error)),
      );
  }

  private finish(slot: WorkerSlot, active: ActiveCall, outcome: SandboxOutcome): void {
    clearTimeout(active.watchdog);
    runDuration.observeSince(active.startedAt);
    runsByOutcome(outcome.ok ? "ok" : outcome.failure).inc();
    if (!outcome.ok && LIMITS.has(outcome.failure)) killsByReason(outcome.failure).inc();
    for (const controller of active.fetches.values()) controller.abort();
    slot.active = undefined;
    active.answer(outcome);
    if (this.closing) {
      this.stopWhenIdle();
      return;
    }
    this.dispatch();
    this.stopWhenLongIdle(slot);
  }

  // The worker did not answer in time: QuickJS's interrupt handler would have stopped a script, so
  // the thread itself is stuck. It is replaced first (no call goes to it any more), then its call fails.
  private onWedged(slot: WorkerSlot, active: ActiveCall): void {
    if (slot.active !== active) return;
    this.logger?.warn({ scriptKey: active.input.scriptKey, wallMs: this.limits.wallMs }, "sandbox worker stopped answering; replacing it");
    killsByReason("worker_stuck").inc();
    this.retire(slot);
    void slot.worker.terminate();
    this.finish(
      slot,
      active,
      failedCall(active, "wall_limit", `the sandbox did not answer within the ${this.limits.wallMs} ms wall time; its worker was replaced`),
    );
  }

  private onExit(slot: WorkerSlot, exitCode: number): void {
    if (!this.slots.includes(slot)) return;
    if (!slot.ready && !this.closing) {
      this.failedStarts++;
      if (this.failedStarts >= STARTS_FAILED_BEFORE_REFUSING) {
        for (const waiting of this.queue.splice(0)) waiting.answer(refused("busy", "the sandbox workers fail to start; see the service's log"));
      }
    }
    if (!this.closing) this.logger?.warn({ exitCode, error: slot.lastError?.message, started: slot.ready }, "sandbox worker stopped; starting another");
    this.retire(slot);
    const active = slot.active;
    if (active) {
      const outOfMemory = (slot.lastError as { code?: string } | undefined)?.code === "ERR_WORKER_OUT_OF_MEMORY";
      const detail = slot.lastError ? `: ${slot.lastError.message}` : ` (exit code ${exitCode})`;
      this.finish(
        slot,
        active,
        failedCall(
          active,
          outOfMemory ? "memory_limit" : "script_error",
          outOfMemory ? `the sandbox worker ran out of memory (limit ${formatBytes(this.limits.memoryBytes)})` : `the sandbox worker stopped${detail}`,
        ),
      );
    } else if (this.closing) {
      this.stopWhenIdle();
    }
  }

  /** Takes a worker out of the pool and starts another in its place (unless the pool is closing). */
  private retire(slot: WorkerSlot): void {
    const index = this.slots.indexOf(slot);
    if (index === -1) return;
    if (this.closing) {
      this.slots.splice(index, 1);
      return;
    }
    cancelIdleStop(slot);
    // Holds the place, never ready, until the new worker is started.
    const placeholder: WorkerSlot = { ...slot, ready: false, active: undefined, warmScriptKeys: new Set(), idleTimer: undefined };
    this.slots[index] = placeholder;
    // A worker that cannot even start is retried after a pause rather than in a tight loop.
    const replace = (): void => {
      const at = this.slots.indexOf(placeholder);
      if (!this.closing && at !== -1) this.slots[at] = this.spawn();
    };
    if (slot.ready) replace();
    else setTimeout(replace, RESTART_DELAY_MS).unref();
  }

  private stopWhenIdle(): void {
    if (!this.closing || this.slots.some((slot) => slot.active)) return;
    clearTimeout(this.spareCheck);
    const slots = this.slots.splice(0);
    for (const slot of slots) cancelIdleStop(slot);
    const closing = this.closing;
    void Promise.all(slots.map((slot) => slot.worker.terminate())).then(() => closing.resolve());
  }
}

// The worker runs from dist/ as JavaScript; from the TypeScript sources (tests), Node strips the
// types, and a resolve hook maps the sources' ".js" imports to their ".ts" files.
function startWorker(settings: WorkerSettings): Worker {
  // No execArgv: the process's preloads (telemetry) have no business in a sandbox thread and cost memory per worker.
  const options = { workerData: settings, resourceLimits: { stackSizeMb: WORKER_STACK_MB }, execArgv: [] };
  const compiled = new URL("./worker.js", import.meta.url);
  if (existsSync(compiled)) return new Worker(compiled, options);
  const source = new URL("./worker.ts", import.meta.url);
  const bootstrap = `
    const { registerHooks } = require("node:module");
    registerHooks({
      resolve(specifier, context, nextResolve) {
        try {
          return nextResolve(specifier, context);
        } catch (error) {
          if (error?.code !== "ERR_MODULE_NOT_FOUND" || !specifier.startsWith(".") || !specifier.endsWith(".js")) throw error;
          return nextResolve(specifier.slice(0, -3) + ".ts", context);
        }
      },
    });
    import(${JSON.stringify(source.href)});
  `;
  return new Worker(bootstrap, { ...options, eval: true });
}

function copyRequest(request: SandboxHttpRequest): SandboxHttpRequest {
  // A copy: the caller's bytes may sit in a shared buffer, and the copy's buffer is transferred.
  return {
    url: request.url,
    method: request.method,
    headers: request.headers.map(([name, value]) => [name, value]),
    body: request.body ? new Uint8Array(request.body) : null,
  };
}

function failedCall(active: ActiveCall, failure: SandboxFailure, reason: string): SandboxOutcome {
  return {
    ok: false,
    failure,
    reason,
    logs: [{ level: "error", message: reason, timestamp: new Date() }],
    cpuMs: 0,
    wallMs: Math.round(performance.now() - active.startedAt),
  };
}

function refused(failure: SandboxFailure, reason: string): SandboxOutcome {
  return { ok: false, failure, reason, logs: [{ level: "error", message: reason, timestamp: new Date() }], cpuMs: 0, wallMs: 0 };
}
