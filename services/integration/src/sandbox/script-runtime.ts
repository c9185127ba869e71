// One integration script evaluated in its own QuickJS runtime (and its own WebAssembly instance):
// it runs calls of that script only, one at a time, and drives the guest's event loop — pending
// jobs, timers and host fetches — until the handler's promise settles.
//
// A warm runtime keeps the evaluated module between calls of the same script version, so its
// module-level variables persist from one call to the next, as in a Workers isolate. Nothing is
// shared between scripts: another scriptKey never gets this runtime.
import { STATUS_CODES } from "node:http";
import { Scope, type QuickJSContext, type QuickJSHandle, type QuickJSRuntime } from "quickjs-emscripten-core";
import { formatBytes, type SandboxCall } from "./call.js";
import { createHostObject, exactArrayBuffer } from "./host-functions.js";
import { PRELUDE_FILENAME, WORKERS_PRELUDE } from "./prelude.js";
import type { SandboxHttpRequest, SandboxHttpResponse } from "./types.js";
import type { QuickJSLoader, ScriptMemory } from "./wasm.js";

// QuickJS recursion also uses the thread's own stack: the pool gives its workers 8 MiB, well above
// what this much QuickJS stack takes, so deep recursion ends in a RangeError, not a crashed thread.
const STACK_BYTES = 1024 * 1024;

/** The prelude's entry points (prelude.ts). */
interface EntryPoints {
  dispatch: QuickJSHandle;
  fireTimer: QuickJSHandle;
  describeError: QuickJSHandle;
}

export class ScriptRuntime {
  readonly scriptKey: string;
  private readonly memory: ScriptMemory;
  private readonly runtime: QuickJSRuntime;
  private readonly context: QuickJSContext;
  private entryPoints: EntryPoints | undefined;
  /** The module's default export. */
  private handler: QuickJSHandle | undefined;
  private call: SandboxCall | undefined;

  static async create(loader: QuickJSLoader, scriptKey: string, memoryBytes: number): Promise<ScriptRuntime> {
    const { quickjs, memory } = await loader.instantiate(memoryBytes);
    const runtime = quickjs.newRuntime();
    return new ScriptRuntime(scriptKey, memory, runtime, memoryBytes);
  }

  private constructor(scriptKey: string, memory: ScriptMemory, runtime: QuickJSRuntime, memoryBytes: number) {
    this.scriptKey = scriptKey;
    this.memory = memory;
    this.runtime = runtime;
    // Refuses single allocations above the limit before the WebAssembly memory is asked to grow.
    runtime.setMemoryLimit(memoryBytes);
    runtime.setMaxStackSize(STACK_BYTES);
    runtime.setInterruptHandler(() => this.call?.shouldInterrupt(this.memory.refused) ?? false);
    this.context = runtime.newContext();
  }

  /** Installs the Workers surface and evaluates the script; false when that failed (the call says why). */
  async load(call: SandboxCall, script: string): Promise<boolean> {
    this.call = call;
    try {
      this.entryPoints = this.installPrelude(call);
      const evaluated = this.guest(call, () => this.context.evalCode(script, this.scriptKey, { type: "module" }));
      if (evaluated.error) {
        this.fail(call, evaluated.error, "the script failed to load");
        evaluated.error.dispose();
        return false;
      }
      // A module with top-level await evaluates to a promise of its namespace.
      const namespace = await this.settle(call, evaluated.value, "the script's top-level await");
      evaluated.value.dispose();
      if (!namespace) return false;
      this.handler = this.context.getProp(namespace, "default");
      namespace.dispose();
      return true;
    } catch (error) {
      this.crashed(call, error);
      return false;
    }
  }

  /** Runs the default export's fetch(request, env, ctx); undefined when the call failed (it says why). */
  async handle(call: SandboxCall, request: SandboxHttpRequest, env: Record<string, string>): Promise<SandboxHttpResponse | undefined> {
    this.call = call;
    try {
      const entryPoints = this.requireEntryPoints();
      const dispatched = this.guest(call, () =>
        Scope.withScope((scope) => {
          const meta = scope.manage(this.context.newString(JSON.stringify({ url: request.url, method: request.method, headers: request.headers })));
          const body =
            request.body !== null && request.method !== "GET" && request.method !== "HEAD"
              ? scope.manage(this.context.newArrayBuffer(exactArrayBuffer(request.body)))
              : this.context.undefined;
          const envJson = scope.manage(this.context.newString(JSON.stringify(env)));
          return this.context.callFunction(entryPoints.dispatch, this.context.undefined, this.handler ?? this.context.undefined, meta, body, envJson);
        }),
      );
      if (dispatched.error) {
        this.fail(call, dispatched.error);
        dispatched.error.dispose();
        return undefined;
      }
      const result = await this.settle(call, dispatched.value, "the fetch handler's promise");
      dispatched.value.dispose();
      if (!result) return undefined;
      try {
        return await this.readResult(call, result);
      } finally {
        result.dispose();
      }
    } catch (error) {
      this.crashed(call, error);
      return undefined;
    }
  }

  /** Detaches the call: host functions reached from leftover guest work fail from here on. */
  release(): void {
    this.call = undefined;
  }

  dispose(): void {
    // QuickJS leaks on its out-of-memory paths, and then aborts when asked to free the runtime:
    // dropping the whole instance is enough, and cheaper.
    if (this.memory.refused) return;
    try {
      const entryPoints = this.entryPoints;
      for (const handle of [this.handler, entryPoints?.dispatch, entryPoints?.fireTimer, entryPoints?.describeError]) {
        if (handle?.alive) handle.dispose();
      }
      this.context.dispose();
      this.runtime.dispose();
    } catch {
      // A QuickJS that failed may not free cleanly: its whole WebAssembly instance, memory
      // included, goes with this object all the same.
    }
  }

  private installPrelude(call: SandboxCall): EntryPoints {
    const installer = this.context.evalCode(WORKERS_PRELUDE, PRELUDE_FILENAME, { type: "global", strict: true });
    const install = this.context.unwrapResult(installer);
    const host = createHostObject(this.context, () => this.currentCall());
    const installed = this.guest(call, () => this.context.callFunction(install, this.context.undefined, host));
    host.dispose();
    install.dispose();
    const exports = this.context.unwrapResult(installed);
    const entryPoints = {
      dispatch: this.context.getProp(exports, "dispatch"),
      fireTimer: this.context.getProp(exports, "fireTimer"),
      describeError: this.context.getProp(exports, "describeError"),
    };
    exports.dispose();
    return entryPoints;
  }

  private currentCall(): SandboxCall {
    if (!this.call) throw new Error("No call is running in this sandbox");
    return this.call;
  }

  private requireEntryPoints(): EntryPoints {
    if (!this.entryPoints) throw new Error("The script runtime was used before it was loaded");
    return this.entryPoints;
  }

  /** Runs guest code, its CPU time counted against the call. */
  private guest<T>(call: SandboxCall, action: () => T): T {
    call.beginSlice();
    try {
      return action();
    } finally {
      call.endSlice();
    }
  }

  /**
   * Runs the guest's pending jobs, due timers and answered fetches until `promise` settles. Answers
   * its value (the caller disposes it), or undefined when the call failed meanwhile.
   */
  private async settle(call: SandboxCall, promise: QuickJSHandle, waitingFor: string): Promise<QuickJSHandle | undefined> {
    for (;;) {
      this.guest(call, () => {
        this.applySettledFetches(call);
        const jobs = this.runtime.executePendingJobs();
        if (jobs.error) {
          this.fail(call, jobs.error);
          jobs.error.dispose();
        }
      });
      if (this.memory.refused) call.failMemory();
      if (call.failure) return undefined;
      const state = this.context.getPromiseState(promise);
      if (state.type === "fulfilled") return state.notAPromise ? promise.dup() : state.value;
      if (state.type === "rejected") {
        this.fail(call, state.error);
        state.error.dispose();
        return undefined;
      }
      const waitMs = call.nextWaitMs();
      if (waitMs === undefined) {
        call.fail("script_error", `${waitingFor} never settled: it waits on nothing that is pending (no timer, no fetch)`);
        return undefined;
      }
      await call.waitForWork(waitMs);
      if (call.checkWall()) return undefined;
      for (const timerId of call.takeDueTimers()) {
        this.fireTimer(call, timerId);
        if (call.failure) return undefined;
      }
    }
  }

  private fireTimer(call: SandboxCall, timerId: number): void {
    const { fireTimer } = this.requireEntryPoints();
    this.guest(call, () => {
      const fired = this.context.newNumber(timerId).consume((id) => this.context.callFunction(fireTimer, this.context.undefined, id));
      if (fired.error) {
        this.fail(call, fired.error);
        fired.error.dispose();
      } else {
        fired.value.dispose();
      }
    });
  }

  private applySettledFetches(call: SandboxCall): void {
    for (const settlement of call.takeSettledFetches()) {
      const settle = call.fetches.get(settlement.fetchId);
      if (!settle) continue;
      call.fetches.delete(settlement.fetchId);
      if (settlement.response) {
        const record = this.fetchedResponse(settlement.response);
        settle.resolve(record);
        record.dispose();
      } else {
        const error = this.context.newError({ name: "TypeError", message: settlement.error ?? "The fetch failed" });
        settle.reject(error);
        error.dispose();
      }
      settle.dispose();
    }
  }

  private fetchedResponse(response: SandboxHttpResponse): QuickJSHandle {
    const record = this.context.newObject();
    const set = (key: string, value: QuickJSHandle): void => value.consume((handle) => this.context.setProp(record, key, handle));
    set("status", this.context.newNumber(response.status));
    set("statusText", this.context.newString(STATUS_CODES[response.status] ?? ""));
    set("headers", this.context.newString(JSON.stringify(response.headers)));
    set("body", this.context.newArrayBuffer(exactArrayBuffer(response.body)));
    return record;
  }

  /** Reads the plain record dispatch() fulfils with, then lets the ctx.waitUntil work finish. */
  private async readResult(call: SandboxCall, result: QuickJSHandle): Promise<SandboxHttpResponse | undefined> {
    const kind = this.readString(result, "kind");
    if (kind === "error") {
      const reason = this.readWired(result, "reason");
      if (this.memory.refused || reason.startsWith("InternalError: out of memory")) call.failMemory();
      else call.fail("script_error", reason);
      return undefined;
    }
    if (kind === "bad_response") {
      call.fail("bad_response", this.readWired(result, "reason"));
      return undefined;
    }
    const bodyLength = this.readNumber(result, "bodyLength");
    if (bodyLength > call.limits.outputBytes) {
      call.fail("output_limit", `the response body of ${bodyLength} bytes is larger than the ${formatBytes(call.limits.outputBytes)} allowed`);
      return undefined;
    }
    const status = this.readNumber(result, "status");
    const headers = parseHeaderPairs(this.readString(result, "headers"));
    if (!Number.isInteger(status) || status < 200 || status > 599 || !headers) {
      call.fail("bad_response", "the fetch handler answered a Response whose status or headers cannot be read");
      return undefined;
    }
    const body = this.context.getProp(result, "body").consume((handle) => {
      const view = this.context.getArrayBuffer(handle);
      try {
        return view.value.slice();
      } finally {
        view.dispose();
      }
    });
    const pending = this.context.getProp(result, "pending");
    try {
      (await this.settle(call, pending, "the ctx.waitUntil work"))?.dispose();
    } finally {
      pending.dispose();
    }
    call.failedAfterResponse();
    return { status, headers, body };
  }

  private readString(record: QuickJSHandle, key: string): string {
    return this.context.getProp(record, key).consume((handle) => (this.context.typeof(handle) === "string" ? this.context.getString(handle) : ""));
  }

  /** A string the prelude sent as JSON (it may hold any character). */
  private readWired(record: QuickJSHandle, key: string): string {
    return parseWired(this.readString(record, key)) ?? "";
  }

  private readNumber(record: QuickJSHandle, key: string): number {
    return this.context.getProp(record, key).consume((handle) => (this.context.typeof(handle) === "number" ? this.context.getNumber(handle) : Number.NaN));
  }

  /** Records a guest error as the call's failure, unless a limit already did. */
  private fail(call: SandboxCall, error: QuickJSHandle, prefix?: string): void {
    if (call.failure) return;
    if (this.memory.refused) {
      call.failMemory();
      return;
    }
    const reason = this.describe(call, error);
    if (reason.startsWith("InternalError: out of memory")) call.failMemory();
    else call.fail("script_error", prefix ? `${prefix}: ${reason}` : reason);
  }

  private describe(call: SandboxCall, error: QuickJSHandle): string {
    const { describeError } = this.requireEntryPoints();
    const described = this.guest(call, () => this.context.callFunction(describeError, this.context.undefined, error));
    if (described.error) {
      described.error.dispose();
      return "the script threw an error that could not be described";
    }
    const wired = described.value.consume((handle) => (this.context.typeof(handle) === "string" ? this.context.getString(handle) : ""));
    return parseWired(wired) ?? "the script threw an error that could not be described";
  }

  // QuickJS itself failed (an abort in its WebAssembly, an allocation failing in the host glue): the
  // runtime cannot be trusted any more.
  private crashed(call: SandboxCall, error: unknown): void {
    call.discardRuntime = true;
    if (this.memory.refused) call.failMemory();
    call.fail("script_error", `the sandbox failed while running the script (${error instanceof Error ? error.message : String(error)})`);
  }
}

function parseWired(json: string): string | undefined {
  try {
    const value: unknown = JSON.parse(json);
    return typeof value === "string" ? value : undefined;
  } catch {
    return undefined;
  }
}

function parseHeaderPairs(json: string): Array<[string, string]> | undefined {
  try {
    const parsed: unknown = JSON.parse(json);
    const isPair = (pair: unknown): pair is [string, string] =>
      Array.isArray(pair) && pair.length === 2 && typeof pair[0] === "string" && typeof pair[1] === "string";
    return Array.isArray(parsed) && parsed.every(isPair) ? parsed : undefined;
  } catch {
    return undefined;
  }
}
