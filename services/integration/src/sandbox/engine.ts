// The sandbox inside one worker thread: runs the calls the pool sends, one at a time, on warm script
// runtimes kept in a small least-recently-used map, and discards a runtime after any failure.
import { SandboxCall, type FetchChannel } from "./call.js";
import type { FetchSettledMessage, FromWorkerMessage, RunMessage, WorkerSettings } from "./protocol.js";
import { ScriptRuntime } from "./script-runtime.js";
import type { SandboxHttpResponse } from "./types.js";
import { QuickJSLoader } from "./wasm.js";

export type PostToPool = (message: FromWorkerMessage, transfer?: ArrayBuffer[]) => void;

export class SandboxEngine {
  private readonly loader = new QuickJSLoader();
  /** scriptKey → runtime; Map order is least recently used first. */
  private readonly warm = new Map<string, ScriptRuntime>();
  private readonly settings: WorkerSettings;
  private readonly post: PostToPool;
  private running: { callId: number; call: SandboxCall } | undefined;

  constructor(settings: WorkerSettings, post: PostToPool) {
    this.settings = settings;
    this.post = post;
  }

  /** Compiles QuickJS's WebAssembly before the first call needs it. */
  async prepare(): Promise<void> {
    await this.loader.compile();
  }

  async run(message: RunMessage): Promise<void> {
    let runtime = this.warm.get(message.scriptKey);
    if (!runtime && message.script === null) {
      this.post({ type: "need-script", callId: message.callId });
      return;
    }
    const call = new SandboxCall(message.limits, this.fetchChannel(message.callId));
    this.running = { callId: message.callId, call };
    let response: SandboxHttpResponse | undefined;
    try {
      if (runtime) {
        this.warm.delete(message.scriptKey);
      } else {
        runtime = await ScriptRuntime.create(this.loader, message.scriptKey, message.limits.memoryBytes);
        await runtime.load(call, message.script ?? "");
      }
      if (!call.failure) response = await runtime.handle(call, message.request, message.env);
    } catch (error) {
      call.fail("script_error", `the sandbox could not run the script (${error instanceof Error ? error.message : String(error)})`);
    } finally {
      call.finish();
      runtime?.release();
      this.running = undefined;
    }
    if (runtime) {
      if (call.failure || call.discardRuntime) runtime.dispose();
      else this.keepWarm(runtime);
    }
    const outcome = call.outcome(response);
    this.post(
      { type: "done", callId: message.callId, outcome, warmScriptKeys: [...this.warm.keys()] },
      outcome.ok ? [outcome.response.body.buffer as ArrayBuffer] : [],
    );
  }

  fetchSettled(message: FetchSettledMessage): void {
    if (this.running?.callId !== message.callId) return;
    this.running.call.fetchSettled({ fetchId: message.fetchId, response: message.response, error: message.error });
  }

  private keepWarm(runtime: ScriptRuntime): void {
    this.warm.set(runtime.scriptKey, runtime);
    for (const [scriptKey, oldest] of this.warm) {
      if (this.warm.size <= this.settings.warmScripts) break;
      this.warm.delete(scriptKey);
      oldest.dispose();
    }
  }

  private fetchChannel(callId: number): FetchChannel {
    return {
      start: (fetchId, request) => {
        const transfer = request.body ? [request.body.buffer as ArrayBuffer] : [];
        this.post({ type: "fetch", callId, fetchId, request }, transfer);
      },
      abort: (fetchId) => this.post({ type: "fetch-abort", callId, fetchId }),
    };
  }
}
