// The host functions behind the prelude's Workers surface. They reach the guest only through the
// prelude's closure (never globalThis) and take and answer strings, numbers and ArrayBuffers.
// Strings that may hold any character cross as JSON (quickjs-emscripten passes C strings, which end
// at the first NUL); names the prelude picks from its own constants cross as they are. Anything
// these functions throw becomes an Error in the guest with the same name and message.
import { createHash, createHmac, randomBytes, randomUUID } from "node:crypto";
import type { QuickJSContext, QuickJSHandle } from "quickjs-emscripten-core";
import type { SandboxCall } from "./call.js";
import { parseMultipart } from "./multipart.js";
import type { SandboxLogLevel } from "./types.js";

const LOG_LEVELS: ReadonlySet<string> = new Set<SandboxLogLevel>(["debug", "info", "warn", "error"]);
const HASHES: ReadonlySet<string> = new Set(["sha1", "sha256", "sha384", "sha512"]);

type HostFunction = (...args: QuickJSHandle[]) => QuickJSHandle | undefined;

/** Builds the host object handed to the prelude. `currentCall` is the call running in the context. */
export function createHostObject(context: QuickJSContext, currentCall: () => SandboxCall): QuickJSHandle {
  const text = (handle: QuickJSHandle | undefined): string => (handle === undefined ? "" : context.getString(handle));
  const unwire = (handle: QuickJSHandle | undefined): string => {
    const value: unknown = JSON.parse(text(handle));
    if (typeof value !== "string") throw new TypeError("Expected a string");
    return value;
  };
  const wire = (value: string): QuickJSHandle => context.newString(JSON.stringify(value));
  const number = (handle: QuickJSHandle | undefined): number => (handle === undefined ? Number.NaN : context.getNumber(handle));
  const isUndefined = (handle: QuickJSHandle | undefined): boolean => handle === undefined || context.typeof(handle) === "undefined";
  const withBytes = <T>(handle: QuickJSHandle | undefined, read: (bytes: Uint8Array) => T): T => {
    if (handle === undefined) throw new TypeError("Expected an ArrayBuffer");
    const view = context.getArrayBuffer(handle);
    try {
      return read(view.value);
    } finally {
      view.dispose();
    }
  };
  const buffer = (bytes: Uint8Array): QuickJSHandle => context.newArrayBuffer(exactArrayBuffer(bytes));

  const functions: Record<string, HostFunction> = {
    log: (level, message) => {
      const name = text(level);
      currentCall().log(LOG_LEVELS.has(name) ? (name as SandboxLogLevel) : "info", unwire(message));
      return undefined;
    },
    urlParse: (input, base) => context.newString(urlParts(new URL(unwire(input), isUndefined(base) ? undefined : unwire(base)))),
    urlSet: (href, part, value) => {
      const url = new URL(unwire(href));
      setUrlPart(url, text(part), unwire(value));
      return context.newString(urlParts(url));
    },
    formDecode: (query) => context.newString(JSON.stringify([...new URLSearchParams(unwire(query))])),
    formEncode: (pairs) => wire(new URLSearchParams(JSON.parse(text(pairs)) as Array<[string, string]>).toString()),
    utf8Encode: (input) => buffer(Buffer.from(unwire(input), "utf8")),
    utf8Decode: (bytes, fatal, keepBOM) =>
      wire(withBytes(bytes, (view) => new TextDecoder("utf-8", { fatal: number(fatal) === 1, ignoreBOM: number(keepBOM) === 1 }).decode(view))),
    parseMultipart: (bytes, contentType) => context.newString(JSON.stringify(withBytes(bytes, (view) => parseMultipart(view, unwire(contentType))))),
    randomBytes: (length) => {
      const count = number(length);
      if (!Number.isInteger(count) || count < 0 || count > 65536) throw new RangeError("randomBytes takes 0 to 65536 bytes");
      return buffer(randomBytes(count));
    },
    randomUUID: () => context.newString(randomUUID()),
    digest: (algorithm, data) =>
      buffer(
        withBytes(data, (view) =>
          createHash(hashName(text(algorithm)))
            .update(view)
            .digest(),
        ),
      ),
    hmac: (algorithm, key, data) => {
      const keyBytes = withBytes(key, (view) => view.slice());
      return buffer(
        withBytes(data, (view) =>
          createHmac(hashName(text(algorithm)), keyBytes)
            .update(view)
            .digest(),
        ),
      );
    },
    atob: (data) => wire(atob(unwire(data))),
    btoa: (data) => wire(btoa(unwire(data))),
    timerStart: (id, delay) => {
      currentCall().startTimer(number(id), Math.max(0, number(delay)));
      return undefined;
    },
    timerCancel: (id) => {
      currentCall().cancelTimer(number(id));
      return undefined;
    },
    fetchStart: (id, meta, body) => {
      const call = currentCall();
      const parts = JSON.parse(text(meta)) as { url: string; method: string; headers: Array<[string, string]> };
      const requestBody = isUndefined(body) ? null : withBytes(body, (view) => view.slice());
      const settle = context.newPromise();
      call.startFetch(number(id), { url: parts.url, method: parts.method, headers: parts.headers, body: requestBody }, settle);
      // The guest owns the promise from here; the call keeps its resolvers until the fetch settles.
      return settle.handle;
    },
    fetchAbort: (id) => {
      currentCall().abortFetch(number(id));
      return undefined;
    },
  };

  const host = context.newObject();
  for (const [name, implementation] of Object.entries(functions)) {
    context.newFunction(name, implementation).consume((fn) => context.setProp(host, name, fn));
  }
  return host;
}

function hashName(name: string): string {
  if (!HASHES.has(name)) throw new TypeError(`Unsupported hash ${name}`);
  return name;
}

function urlParts(url: URL): string {
  const { href, origin, protocol, username, password, host, hostname, port, pathname, search, hash } = url;
  return JSON.stringify({ href, origin, protocol, username, password, host, hostname, port, pathname, search, hash });
}

const URL_SETTERS: ReadonlySet<string> = new Set(["href", "protocol", "username", "password", "host", "hostname", "port", "pathname", "search", "hash"]);

function setUrlPart(url: URL, part: string, value: string): void {
  if (!URL_SETTERS.has(part)) throw new TypeError(`URL has no settable part ${part}`);
  (url as unknown as Record<string, string>)[part] = value;
}

/**
 * newArrayBuffer copies a whole ArrayBuffer, and Node's Buffers often sit inside a bigger shared one.
 * (A copy made with new Uint8Array: Buffer's slice() is a view.)
 */
export function exactArrayBuffer(bytes: Uint8Array): ArrayBuffer {
  if (bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength && bytes.buffer instanceof ArrayBuffer) return bytes.buffer;
  return new Uint8Array(bytes).buffer;
}
