// QuickJS's WebAssembly, compiled once per worker and instantiated once per script runtime: each
// script gets its own linear memory, capped at its memory limit. (QuickJS's own limit only refuses
// single allocations in this build: it cannot see the sizes of the blocks it already holds.)
import { readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import releaseSyncPackage from "@jitl/quickjs-wasmfile-release-sync";
import { newQuickJSWASMModuleFromVariant, newVariant, type QuickJSSyncVariant, type QuickJSWASMModule } from "quickjs-emscripten-core";

/** The part of the WebAssembly API used here (the project's libs leave it out with the DOM's). */
interface WasmMemory {
  readonly buffer: ArrayBuffer;
  grow(deltaPages: number): number;
}

interface WasmApi {
  Memory: new (descriptor: { initial: number; maximum: number }) => WasmMemory;
  compile(bytes: Uint8Array): Promise<object>;
}

const wasm = (globalThis as unknown as { WebAssembly: WasmApi }).WebAssembly;

// The variant's type declarations are CommonJS-shaped, so TypeScript sees the module object where
// Node's ESM import gives the variant itself.
const releaseSyncVariant: QuickJSSyncVariant = unwrapDefault(releaseSyncPackage);

// Emscripten reports its aborts on stderr; the sandbox reports them as the call's failure. (Its
// options type leaves out the output hooks it honours.)
const QUIET_EMSCRIPTEN = { print: () => {}, printErr: () => {} } as NonNullable<Parameters<typeof newVariant>[1]["emscriptenModule"]>;

const PAGE_BYTES = 64 * 1024;
// The build declares 16 MiB of initial memory (static data, the C stack, the start of the heap).
const MIN_PAGES = 256;

/** A script's memory: `refused` once a growth past the cap was asked for. */
export interface ScriptMemory {
  readonly memory: WasmMemory;
  refused: boolean;
}

export interface ScriptQuickJS {
  quickjs: QuickJSWASMModule;
  memory: ScriptMemory;
}

export class QuickJSLoader {
  private compiled: Promise<object> | undefined;

  compile(): Promise<object> {
    this.compiled ??= compileQuickJS();
    return this.compiled;
  }

  async instantiate(memoryBytes: number): Promise<ScriptQuickJS> {
    const wasmModule = await this.compile();
    const memory = cappedMemory(Math.max(MIN_PAGES, Math.floor(memoryBytes / PAGE_BYTES)));
    const quickjs = await newQuickJSWASMModuleFromVariant(
      newVariant(releaseSyncVariant, {
        wasmModule,
        wasmMemory: memory.memory,
        emscriptenModule: QUIET_EMSCRIPTEN,
      }),
    );
    return { quickjs, memory };
  }
}

async function compileQuickJS(): Promise<object> {
  const path = fileURLToPath(import.meta.resolve("@jitl/quickjs-wasmfile-release-sync/wasm"));
  return wasm.compile(await readFile(path));
}

// Emscripten grows the heap through this Memory's grow(), asking for up to 20% more than it needs,
// then less. A refused growth means the script's memory is at (or within a fifth of) its cap; the
// call fails then even if the script catches the "out of memory" error QuickJS throws when every
// try is refused. So the limit is never exceeded, and reached a little early rather than late.
function cappedMemory(maximumPages: number): ScriptMemory {
  const memory = new wasm.Memory({ initial: MIN_PAGES, maximum: maximumPages });
  const guard: ScriptMemory = { memory, refused: false };
  const grow = memory.grow.bind(memory);
  memory.grow = (delta: number): number => {
    try {
      return grow(delta);
    } catch (error) {
      guard.refused = true;
      throw error;
    }
  };
  return guard;
}

function unwrapDefault(imported: QuickJSSyncVariant | { default: QuickJSSyncVariant }): QuickJSSyncVariant {
  return "default" in imported ? imported.default : imported;
}
