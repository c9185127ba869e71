// The Workers-style surface a GitBook integration script expects (fetch, Request, Response, Headers,
// URL, FormData, timers, crypto, console, ...), written as plain JavaScript evaluated in each new
// QuickJS context. Its completion value is a function taking the host object (host-functions.ts):
// the host functions stay in this closure, never on globalThis, and the function answers the entry
// points the host calls (dispatch a request, fire a timer, describe an error).
//
// Kept as source text because it runs inside the guest, not in Node. No backticks or dollar-brace
// sequences in it (it sits in a template literal); String.raw keeps its escapes as written.

/** The file name the prelude is evaluated under: it leaves frames of this file out of stacks. */
export const PRELUDE_FILENAME = "imprint:workers-prelude.js";

export const WORKERS_PRELUDE = String.raw`(function installWorkersSurface(host) {
"use strict";

const define = (name, value) => Object.defineProperty(globalThis, name, { value, writable: true, configurable: true, enumerable: false });

// ---- Calls to the host: its errors come back as plain Errors carrying a name; give them their class.
const DOM_EXCEPTION_CODES = { IndexSizeError: 1, HierarchyRequestError: 3, WrongDocumentError: 4, InvalidCharacterError: 5, NoModificationAllowedError: 7, NotFoundError: 8, NotSupportedError: 9, InvalidStateError: 11, SyntaxError: 12, InvalidModificationError: 13, NamespaceError: 14, InvalidAccessError: 15, TypeMismatchError: 17, SecurityError: 18, NetworkError: 19, AbortError: 20, URLMismatchError: 21, QuotaExceededError: 22, TimeoutError: 23, InvalidNodeTypeError: 24, DataCloneError: 25 };

// Strings that may hold any character cross as JSON: the host reads and writes C strings, which end
// at the first NUL.
const wire = (text) => JSON.stringify(String(text));
const unwire = (json) => JSON.parse(json);

function hostCall(name, ...args) {
  try {
    return host[name](...args);
  } catch (error) {
    throw guestError(error);
  }
}

function guestError(error) {
  const name = error && error.name;
  const message = error && error.message;
  if (name === "TypeError") return new TypeError(message);
  if (name === "RangeError") return new RangeError(message);
  if (name === "OperationError" || Object.prototype.hasOwnProperty.call(DOM_EXCEPTION_CODES, name)) return new DOMException(message, name);
  return error;
}

// ---- Error stacks: Workers (V8) start error.stack with "Name: message", formatted when first read;
// QuickJS's lists the frames only, so code that logs error.stack (as @gitbook/runtime does) would
// lose the message. The constructors are wrapped (not replaced: instanceof and subclasses still
// work) to give the errors they build a V8-shaped stack. Errors the engine throws itself keep
// QuickJS's.
const nativeErrorToString = Error.prototype.toString;

const PRELUDE_FRAME = /\(imprint:workers-prelude\.js:/;

// The script's frames: not the wrapper's (a native construct, then this prelude's), nor the
// prelude's own, which a built-in's would not show either.
function scriptFrames(stack) {
  const lines = stack.replace(/\n$/, "").split("\n");
  let start = 0;
  while (start < lines.length && (PRELUDE_FRAME.test(lines[start]) || / \(native\)$/.test(lines[start]))) start++;
  return lines.slice(start).filter((line) => !PRELUDE_FRAME.test(line)).join("\n");
}

function stackWithHeader(error) {
  const own = Object.getOwnPropertyDescriptor(error, "stack");
  if (!own || typeof own.value !== "string") return;
  const frames = scriptFrames(own.value);
  const settle = (target, value) => Object.defineProperty(target, "stack", { value, writable: true, configurable: true, enumerable: false });
  Object.defineProperty(error, "stack", {
    configurable: true,
    enumerable: false,
    get() {
      const value = nativeErrorToString.call(this) + (frames === "" ? "" : "\n" + frames);
      settle(this, value);
      return value;
    },
    set(value) { settle(this, value); },
  });
}

for (const name of ["Error", "EvalError", "RangeError", "ReferenceError", "SyntaxError", "TypeError", "URIError", "AggregateError", "InternalError"]) {
  const NativeError = globalThis[name];
  const WrappedError = new Proxy(NativeError, {
    construct(target, args, newTarget) {
      const error = Reflect.construct(target, args, newTarget);
      stackWithHeader(error);
      return error;
    },
    apply(target, thisArg, args) {
      const error = Reflect.apply(target, thisArg, args);
      stackWithHeader(error);
      return error;
    },
  });
  NativeError.prototype.constructor = WrappedError;
  define(name, WrappedError);
}

// ---- Bytes
const utf8Encode = (text) => new Uint8Array(hostCall("utf8Encode", wire(text)));
const utf8Decode = (bytes, fatal = false, keepBOM = false) => unwire(hostCall("utf8Decode", exactBuffer(bytes), fatal ? 1 : 0, keepBOM ? 1 : 0));

function toBytes(value, what) {
  if (value instanceof ArrayBuffer) return new Uint8Array(value);
  if (ArrayBuffer.isView(value)) return new Uint8Array(value.buffer, value.byteOffset, value.byteLength);
  throw new TypeError(what + " must be an ArrayBuffer or an ArrayBuffer view");
}

// The host reads whole ArrayBuffers: hand it one holding exactly these bytes.
function exactBuffer(bytes) {
  return bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength ? bytes.buffer : bytes.slice().buffer;
}

function concatBytes(chunks) {
  if (chunks.length === 1) return chunks[0];
  let total = 0;
  for (const chunk of chunks) total += chunk.byteLength;
  const out = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    out.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return out;
}

// ---- DOMException, Event, EventTarget
class DOMException extends Error {
  #name;
  constructor(message = "", name = "Error") {
    super(String(message));
    this.#name = String(name);
  }
  get name() { return this.#name; }
  get code() { return DOM_EXCEPTION_CODES[this.#name] || 0; }
}

class Event {
  #type;
  #cancelable;
  #defaultPrevented = false;
  constructor(type, init) {
    if (arguments.length === 0) throw new TypeError("An Event needs a type");
    this.#type = String(type);
    this.#cancelable = !!(init && init.cancelable);
    this.bubbles = !!(init && init.bubbles);
    this.timeStamp = Date.now();
    this.target = null;
    this.currentTarget = null;
  }
  get type() { return this.#type; }
  get cancelable() { return this.#cancelable; }
  get defaultPrevented() { return this.#defaultPrevented; }
  preventDefault() { if (this.#cancelable) this.#defaultPrevented = true; }
  stopPropagation() {}
  stopImmediatePropagation() {}
}

class EventTarget {
  #listeners = new Map();
  addEventListener(type, listener, options) {
    if (listener === null || listener === undefined) return;
    const once = typeof options === "object" && options !== null && !!options.once;
    const signal = typeof options === "object" && options !== null ? options.signal : undefined;
    if (signal && signal.aborted) return;
    type = String(type);
    let list = this.#listeners.get(type);
    if (!list) {
      list = [];
      this.#listeners.set(type, list);
    }
    if (list.some((entry) => entry.listener === listener)) return;
    list.push({ listener, once });
    if (signal) signal.addEventListener("abort", () => this.removeEventListener(type, listener), { once: true });
  }
  removeEventListener(type, listener) {
    const list = this.#listeners.get(String(type));
    if (!list) return;
    const index = list.findIndex((entry) => entry.listener === listener);
    if (index !== -1) list.splice(index, 1);
  }
  dispatchEvent(event) {
    if (!(event instanceof Event)) throw new TypeError("dispatchEvent needs an Event");
    event.target = this;
    event.currentTarget = this;
    const handler = this["on" + event.type];
    if (typeof handler === "function") invokeListener(handler, this, event);
    for (const entry of [...(this.#listeners.get(event.type) || [])]) {
      if (entry.once) this.removeEventListener(event.type, entry.listener);
      invokeListener(entry.listener, this, event);
    }
    event.currentTarget = null;
    return !event.defaultPrevented;
  }
}

function invokeListener(listener, target, event) {
  try {
    if (typeof listener === "function") listener.call(target, event);
    else if (listener && typeof listener.handleEvent === "function") listener.handleEvent(event);
  } catch (error) {
    reportError(error);
  }
}

// ---- AbortController, AbortSignal
const SIGNAL_TOKEN = Symbol("AbortSignal");
let abortSignalWith;

class AbortSignal extends EventTarget {
  #aborted = false;
  #reason = undefined;
  onabort = null;
  constructor(token) {
    if (token !== SIGNAL_TOKEN) throw new TypeError("Illegal constructor: use new AbortController().signal");
    super();
  }
  get aborted() { return this.#aborted; }
  get reason() { return this.#reason; }
  throwIfAborted() { if (this.#aborted) throw this.#reason; }
  static abort(reason) {
    const signal = new AbortSignal(SIGNAL_TOKEN);
    abortSignalWith(signal, reason);
    return signal;
  }
  static timeout(ms) {
    const signal = new AbortSignal(SIGNAL_TOKEN);
    setTimeout(() => abortSignalWith(signal, new DOMException("The operation timed out.", "TimeoutError")), ms);
    return signal;
  }
  static any(signals) {
    const signal = new AbortSignal(SIGNAL_TOKEN);
    for (const source of signals) {
      if (source.aborted) {
        abortSignalWith(signal, source.reason);
        return signal;
      }
    }
    for (const source of signals) source.addEventListener("abort", () => abortSignalWith(signal, source.reason), { once: true });
    return signal;
  }
  static {
    abortSignalWith = (signal, reason) => {
      if (signal.#aborted) return;
      signal.#aborted = true;
      signal.#reason = reason === undefined ? new DOMException("This operation was aborted", "AbortError") : reason;
      signal.dispatchEvent(new Event("abort"));
    };
  }
}

class AbortController {
  #signal = new AbortSignal(SIGNAL_TOKEN);
  get signal() { return this.#signal; }
  abort(reason) { abortSignalWith(this.#signal, reason); }
}

// A request's own signal, aborted when the one it was built from is.
function followSignal(parent) {
  const controller = new AbortController();
  if (parent === null || parent === undefined) return controller.signal;
  if (!(parent instanceof AbortSignal)) throw new TypeError("signal must be an AbortSignal");
  if (parent.aborted) controller.abort(parent.reason);
  else parent.addEventListener("abort", () => controller.abort(parent.reason), { once: true });
  return controller.signal;
}

// ---- TextEncoder, TextDecoder (UTF-8 only, as in Workers)
class TextEncoder {
  get encoding() { return "utf-8"; }
  encode(input = "") { return utf8Encode(input); }
  encodeInto(source, destination) {
    if (!(destination instanceof Uint8Array)) throw new TypeError("encodeInto needs a Uint8Array");
    let read = 0;
    let written = 0;
    for (const char of String(source)) {
      const bytes = utf8Encode(char);
      if (written + bytes.length > destination.length) break;
      destination.set(bytes, written);
      written += bytes.length;
      read += char.length;
    }
    return { read, written };
  }
}

const UTF8_LABELS = ["utf-8", "utf8", "unicode-1-1-utf-8", "unicode11utf8", "unicode20utf8", "x-unicode20utf8"];

class TextDecoder {
  #fatal;
  #ignoreBOM;
  #pending = null;
  #streaming = false;
  constructor(label = "utf-8", options) {
    if (!UTF8_LABELS.includes(String(label).trim().toLowerCase())) throw new RangeError("The encoding " + label + " is not supported: only utf-8 is");
    this.#fatal = !!(options && options.fatal);
    this.#ignoreBOM = !!(options && options.ignoreBOM);
  }
  get encoding() { return "utf-8"; }
  get fatal() { return this.#fatal; }
  get ignoreBOM() { return this.#ignoreBOM; }
  decode(input, options) {
    const stream = !!(options && options.stream);
    let bytes = input === undefined ? new Uint8Array(0) : toBytes(input, "The input");
    if (this.#pending) {
      bytes = concatBytes([this.#pending, bytes]);
      this.#pending = null;
    }
    if (stream) {
      const cut = incompleteTail(bytes);
      if (cut < bytes.length) {
        this.#pending = bytes.slice(cut);
        bytes = bytes.subarray(0, cut);
      }
    }
    // A byte order mark is only dropped at the start of a stream.
    const text = utf8Decode(bytes, this.#fatal, this.#ignoreBOM || this.#streaming);
    this.#streaming = stream;
    return text;
  }
}

// Where a trailing UTF-8 sequence that is not complete yet starts (bytes.length when there is none).
function incompleteTail(bytes) {
  for (let back = 1; back <= 3 && back <= bytes.length; back++) {
    const byte = bytes[bytes.length - back];
    if ((byte & 0xc0) !== 0x80) {
      const length = byte >= 0xf0 ? 4 : byte >= 0xe0 ? 3 : byte >= 0xc0 ? 2 : 1;
      return length > back ? bytes.length - back : bytes.length;
    }
  }
  return bytes.length;
}

// ---- URL, URLSearchParams: parsing and serialising are Node's WHATWG implementation, on the host.
let attachSearchParams;
let resetSearchParams;

function parseQuery(query) {
  if (query.startsWith("?")) query = query.slice(1);
  return query === "" ? [] : JSON.parse(hostCall("formDecode", wire(query)));
}

class URLSearchParams {
  #list = [];
  #onChange = null;
  constructor(init = "") {
    if (init instanceof URLSearchParams) {
      this.#list = init.#list.map(([name, value]) => [name, value]);
    } else if (init !== null && typeof init === "object") {
      if (typeof init[Symbol.iterator] === "function") {
        for (const pair of init) {
          const items = Array.from(pair);
          if (items.length !== 2) throw new TypeError("Each query pair must have exactly two items");
          this.#list.push([String(items[0]), String(items[1])]);
        }
      } else {
        for (const key of Object.keys(init)) this.#list.push([key, String(init[key])]);
      }
    } else {
      this.#list = parseQuery(String(init));
    }
  }
  get size() { return this.#list.length; }
  append(name, value) {
    this.#list.push([String(name), String(value)]);
    this.#changed();
  }
  delete(name, value) {
    name = String(name);
    this.#list = this.#list.filter(([key, current]) => key !== name || (value !== undefined && current !== String(value)));
    this.#changed();
  }
  get(name) {
    name = String(name);
    const entry = this.#list.find(([key]) => key === name);
    return entry ? entry[1] : null;
  }
  getAll(name) {
    name = String(name);
    return this.#list.filter(([key]) => key === name).map(([, value]) => value);
  }
  has(name, value) {
    name = String(name);
    return this.#list.some(([key, current]) => key === name && (value === undefined || current === String(value)));
  }
  set(name, value) {
    name = String(name);
    value = String(value);
    const index = this.#list.findIndex(([key]) => key === name);
    if (index === -1) {
      this.#list.push([name, value]);
    } else {
      this.#list[index] = [name, value];
      this.#list = this.#list.filter(([key], position) => key !== name || position === index);
    }
    this.#changed();
  }
  sort() {
    // Stable, by UTF-16 code units, as the URL standard says.
    this.#list = this.#list
      .map((entry, position) => [entry, position])
      .sort((a, b) => (a[0][0] < b[0][0] ? -1 : a[0][0] > b[0][0] ? 1 : a[1] - b[1]))
      .map(([entry]) => entry);
    this.#changed();
  }
  forEach(callback, thisArg) {
    for (const [name, value] of this.#list) callback.call(thisArg, value, name, this);
  }
  *entries() { for (const [name, value] of this.#list) yield [name, value]; }
  *keys() { for (const [name] of this.#list) yield name; }
  *values() { for (const [, value] of this.#list) yield value; }
  [Symbol.iterator]() { return this.entries(); }
  get [Symbol.toStringTag]() { return "URLSearchParams"; }
  toString() { return unwire(hostCall("formEncode", JSON.stringify(this.#list))); }
  #changed() { if (this.#onChange) this.#onChange(this.toString()); }
  static {
    attachSearchParams = (params, onChange) => { params.#onChange = onChange; };
    resetSearchParams = (params, query) => { params.#list = parseQuery(query); };
  }
}

// Parsing is a host call, which costs more than the parse itself. The same input always parses to
// the same parts, and a warm script parses the same few URLs (its request's, its API's) call after
// call: short inputs keep their parts, at most a few dozen (long ones, a data: URL, would hold on to
// the script's memory). The parts are shared, so frozen: a URL's setters replace them. An input that
// does not parse throws each time.
const PARSED_URLS_KEPT = 32;
const PARSED_URL_CHARS = 1024;
const parsedUrls = new Map();

function parseUrl(input, base) {
  // Two JSON strings side by side can only be read one way.
  const key = base === undefined ? input : input + base;
  const kept = parsedUrls.get(key);
  if (kept !== undefined) return kept;
  const parts = Object.freeze(JSON.parse(hostCall("urlParse", input, base)));
  if (key.length <= PARSED_URL_CHARS) {
    if (parsedUrls.size >= PARSED_URLS_KEPT) parsedUrls.delete(parsedUrls.keys().next().value);
    parsedUrls.set(key, parts);
  }
  return parts;
}

class URL {
  #parts;
  #searchParams = null;
  constructor(url, base) {
    if (arguments.length === 0) throw new TypeError("URL needs a url");
    this.#parts = parseUrl(wire(url), base === undefined ? undefined : wire(base));
  }
  static canParse(url, base) {
    try {
      new URL(url, base);
      return true;
    } catch {
      return false;
    }
  }
  static parse(url, base) {
    try {
      return new URL(url, base);
    } catch {
      return null;
    }
  }
  static createObjectURL() { throw new DOMException("URL.createObjectURL is not supported here", "NotSupportedError"); }
  static revokeObjectURL() {}
  #set(part, value) {
    this.#parts = JSON.parse(hostCall("urlSet", wire(this.#parts.href), part, wire(value)));
    if (this.#searchParams && (part === "href" || part === "search")) resetSearchParams(this.#searchParams, this.#parts.search);
  }
  get href() { return this.#parts.href; }
  set href(value) { this.#set("href", value); }
  get origin() { return this.#parts.origin; }
  get protocol() { return this.#parts.protocol; }
  set protocol(value) { this.#set("protocol", value); }
  get username() { return this.#parts.username; }
  set username(value) { this.#set("username", value); }
  get password() { return this.#parts.password; }
  set password(value) { this.#set("password", value); }
  get host() { return this.#parts.host; }
  set host(value) { this.#set("host", value); }
  get hostname() { return this.#parts.hostname; }
  set hostname(value) { this.#set("hostname", value); }
  get port() { return this.#parts.port; }
  set port(value) { this.#set("port", value); }
  get pathname() { return this.#parts.pathname; }
  set pathname(value) { this.#set("pathname", value); }
  get search() { return this.#parts.search; }
  set search(value) { this.#set("search", value); }
  get hash() { return this.#parts.hash; }
  set hash(value) { this.#set("hash", value); }
  get searchParams() {
    if (!this.#searchParams) {
      this.#searchParams = new URLSearchParams(this.#parts.search);
      attachSearchParams(this.#searchParams, (query) => {
        this.#parts = JSON.parse(hostCall("urlSet", wire(this.#parts.href), "search", wire(query)));
      });
    }
    return this.#searchParams;
  }
  toString() { return this.#parts.href; }
  toJSON() { return this.#parts.href; }
  get [Symbol.toStringTag]() { return "URL"; }
}

// ---- Headers
const HTTP_TOKEN = /^[!#$%&'*+\-.^_\x60|~0-9A-Za-z]+$/;

function normalizeHeaderValue(value) {
  return String(value).replace(/^[\t\n\r ]+|[\t\n\r ]+$/g, "");
}

function checkHeader(name, value) {
  if (!HTTP_TOKEN.test(name)) throw new TypeError("Invalid header name: " + JSON.stringify(name));
  if (/[\0\r\n]/.test(value)) throw new TypeError("Invalid value for header " + name);
}

class Headers {
  #list = [];
  constructor(init) {
    if (init === undefined || init === null) return;
    if (init instanceof Headers) {
      this.#list = init.#list.map(([name, value]) => [name, value]);
      return;
    }
    if (typeof init !== "object" && typeof init !== "function") throw new TypeError("Headers must be built from an object or an iterable of pairs");
    if (typeof init[Symbol.iterator] === "function") {
      for (const pair of init) {
        const items = Array.from(pair);
        if (items.length !== 2) throw new TypeError("Each header pair must have exactly two items");
        this.append(items[0], items[1]);
      }
    } else {
      for (const key of Object.keys(init)) this.append(key, init[key]);
    }
  }
  append(name, value) {
    name = String(name);
    value = normalizeHeaderValue(value);
    checkHeader(name, value);
    this.#list.push([name.toLowerCase(), value]);
  }
  delete(name) {
    name = String(name).toLowerCase();
    this.#list = this.#list.filter(([key]) => key !== name);
  }
  get(name) {
    name = String(name).toLowerCase();
    const values = this.#list.filter(([key]) => key === name).map(([, value]) => value);
    return values.length === 0 ? null : values.join(", ");
  }
  getSetCookie() { return this.#list.filter(([key]) => key === "set-cookie").map(([, value]) => value); }
  getAll(name) {
    name = String(name).toLowerCase();
    return this.#list.filter(([key]) => key === name).map(([, value]) => value);
  }
  has(name) {
    name = String(name).toLowerCase();
    return this.#list.some(([key]) => key === name);
  }
  set(name, value) {
    name = String(name);
    value = normalizeHeaderValue(value);
    checkHeader(name, value);
    const key = name.toLowerCase();
    const index = this.#list.findIndex(([current]) => current === key);
    if (index === -1) {
      this.#list.push([key, value]);
      return;
    }
    this.#list[index] = [key, value];
    this.#list = this.#list.filter(([current], position) => current !== key || position === index);
  }
  forEach(callback, thisArg) {
    for (const [name, value] of this) callback.call(thisArg, value, name, this);
  }
  // Sorted by name and combined, except set-cookie, as the Fetch standard iterates them.
  *entries() {
    const names = [...new Set(this.#list.map(([name]) => name))].sort();
    for (const name of names) {
      if (name === "set-cookie") {
        for (const value of this.getSetCookie()) yield [name, value];
      } else {
        yield [name, this.get(name)];
      }
    }
  }
  *keys() { for (const [name] of this.entries()) yield name; }
  *values() { for (const [, value] of this.entries()) yield value; }
  [Symbol.iterator]() { return this.entries(); }
  get [Symbol.toStringTag]() { return "Headers"; }
}

// ---- Blob, File, FormData
let blobBytes;

function relativeIndex(index, size) {
  index = Math.trunc(Number(index)) || 0;
  return index < 0 ? Math.max(size + index, 0) : Math.min(index, size);
}

class Blob {
  #bytes;
  #type;
  constructor(parts = [], options) {
    if (parts === null || typeof parts !== "object" || typeof parts[Symbol.iterator] !== "function") throw new TypeError("Blob parts must be an iterable");
    const chunks = [];
    for (const part of parts) {
      if (part instanceof Blob) chunks.push(part.#bytes);
      else if (part instanceof ArrayBuffer || ArrayBuffer.isView(part)) chunks.push(toBytes(part, "A Blob part").slice());
      else chunks.push(utf8Encode(String(part)));
    }
    this.#bytes = chunks.length === 0 ? new Uint8Array(0) : concatBytes(chunks);
    const type = options && options.type !== undefined ? String(options.type) : "";
    this.#type = /^[\x20-\x7e]*$/.test(type) ? type.toLowerCase() : "";
  }
  get size() { return this.#bytes.byteLength; }
  get type() { return this.#type; }
  slice(start = 0, end = this.size, contentType = "") {
    const from = relativeIndex(start, this.size);
    const to = relativeIndex(end, this.size);
    const blob = new Blob([], { type: contentType });
    blob.#bytes = this.#bytes.slice(from, Math.max(from, to));
    return blob;
  }
  async arrayBuffer() { return this.#bytes.slice().buffer; }
  async bytes() { return this.#bytes.slice(); }
  async text() { return utf8Decode(this.#bytes); }
  stream() { return streamOfBytes(this.#bytes.slice()); }
  get [Symbol.toStringTag]() { return "Blob"; }
  static { blobBytes = (blob) => blob.#bytes; }
}

class File extends Blob {
  #name;
  #lastModified;
  constructor(bits, name, options) {
    if (arguments.length < 2) throw new TypeError("A File needs its bits and a name");
    super(bits, options);
    this.#name = String(name);
    this.#lastModified = options && options.lastModified !== undefined ? Number(options.lastModified) : Date.now();
  }
  get name() { return this.#name; }
  get lastModified() { return this.#lastModified; }
  get webkitRelativePath() { return ""; }
  get [Symbol.toStringTag]() { return "File"; }
}

function formEntry(name, value, filename) {
  name = String(name);
  if (value instanceof Blob) {
    if (!(value instanceof File) || filename !== undefined) {
      const fileName = filename !== undefined ? String(filename) : value instanceof File ? value.name : "blob";
      value = new File([value], fileName, { type: value.type, lastModified: value instanceof File ? value.lastModified : undefined });
    }
    return [name, value];
  }
  return [name, String(value)];
}

class FormData {
  #entries = [];
  constructor(form) {
    if (form !== undefined) throw new TypeError("FormData cannot read an HTML form here");
  }
  append(name, value, filename) { this.#entries.push(formEntry(name, value, filename)); }
  delete(name) {
    name = String(name);
    this.#entries = this.#entries.filter(([key]) => key !== name);
  }
  get(name) {
    name = String(name);
    const entry = this.#entries.find(([key]) => key === name);
    return entry ? entry[1] : null;
  }
  getAll(name) {
    name = String(name);
    return this.#entries.filter(([key]) => key === name).map(([, value]) => value);
  }
  has(name) {
    name = String(name);
    return this.#entries.some(([key]) => key === name);
  }
  set(name, value, filename) {
    const entry = formEntry(name, value, filename);
    const index = this.#entries.findIndex(([key]) => key === entry[0]);
    if (index === -1) {
      this.#entries.push(entry);
      return;
    }
    this.#entries[index] = entry;
    this.#entries = this.#entries.filter(([key], position) => key !== entry[0] || position === index);
  }
  forEach(callback, thisArg) {
    for (const [name, value] of this.#entries) callback.call(thisArg, value, name, this);
  }
  *entries() { for (const [name, value] of this.#entries) yield [name, value]; }
  *keys() { for (const [name] of this.#entries) yield name; }
  *values() { for (const [, value] of this.#entries) yield value; }
  [Symbol.iterator]() { return this.entries(); }
  get [Symbol.toStringTag]() { return "FormData"; }
}

// The Fetch standard's multipart/form-data encoding: line breaks normalised, quotes and line breaks
// in names escaped.
function encodeFormData(formData) {
  const boundary = "----ImprintFormBoundary" + hostCall("randomUUID").replace(/-/g, "");
  const crlf = (text) => text.replace(/\r\n|\r|\n/g, "\r\n");
  const escape = (text) => crlf(text).replace(/\r/g, "%0D").replace(/\n/g, "%0A").replace(/"/g, "%22");
  const chunks = [];
  for (const [name, value] of formData) {
    let head = "--" + boundary + "\r\nContent-Disposition: form-data; name=\"" + escape(name) + "\"";
    if (typeof value === "string") {
      chunks.push(utf8Encode(head + "\r\n\r\n" + crlf(value) + "\r\n"));
      continue;
    }
    head += "; filename=\"" + escape(value.name) + "\"\r\nContent-Type: " + (value.type || "application/octet-stream") + "\r\n\r\n";
    chunks.push(utf8Encode(head), blobBytes(value), utf8Encode("\r\n"));
  }
  chunks.push(utf8Encode("--" + boundary + "--\r\n"));
  return { bytes: concatBytes(chunks), contentType: "multipart/form-data; boundary=" + boundary };
}

// ---- ReadableStream: a minimal one, enough for response.body.getReader() and bodies built from a
// stream. Chunks are kept as given; readers drain the queue, pulling from the source when empty.
class ReadableStream {
  #queue = [];
  #state = "readable";
  #error = undefined;
  #waiters = [];
  #source;
  #controller;
  #locked = false;
  constructor(source) {
    this.#source = source || {};
    const stream = this;
    this.#controller = {
      enqueue(chunk) {
        if (stream.#state !== "readable") throw new TypeError("The stream is closed");
        stream.#queue.push(chunk);
        stream.#wake();
      },
      close() {
        if (stream.#state === "readable") stream.#state = "closed";
        stream.#wake();
      },
      error(error) {
        if (stream.#state === "readable") {
          stream.#state = "errored";
          stream.#error = error;
        }
        stream.#wake();
      },
      get desiredSize() { return stream.#state === "readable" ? Math.max(0, 1 - stream.#queue.length) : 0; },
    };
    if (typeof this.#source.start === "function") {
      const started = this.#source.start(this.#controller);
      if (started && typeof started.then === "function") started.then(undefined, (error) => this.#controller.error(error));
    }
  }
  #wake() { for (const resolve of this.#waiters.splice(0)) resolve(); }
  get locked() { return this.#locked; }
  getReader() {
    if (this.#locked) throw new TypeError("The stream is already locked to a reader");
    this.#locked = true;
    const stream = this;
    return {
      read: () => stream.#read(),
      releaseLock: () => { stream.#locked = false; },
      cancel: (reason) => stream.cancel(reason),
    };
  }
  async cancel(reason) {
    this.#queue = [];
    this.#state = "closed";
    this.#wake();
    if (typeof this.#source.cancel === "function") await this.#source.cancel(reason);
  }
  async #read() {
    for (;;) {
      if (this.#queue.length > 0) return { value: this.#queue.shift(), done: false };
      if (this.#state === "errored") throw this.#error;
      if (this.#state === "closed") return { value: undefined, done: true };
      if (typeof this.#source.pull === "function") await this.#source.pull(this.#controller);
      else await new Promise((resolve) => this.#waiters.push(resolve));
    }
  }
  async *[Symbol.asyncIterator]() {
    const reader = this.getReader();
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) return;
        yield value;
      }
    } finally {
      reader.releaseLock();
    }
  }
}

function streamOfBytes(bytes) {
  return new ReadableStream({
    start(controller) {
      if (bytes.byteLength > 0) controller.enqueue(bytes);
      controller.close();
    },
  });
}

async function readAll(stream) {
  const reader = stream.getReader();
  const chunks = [];
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    chunks.push(typeof value === "string" ? utf8Encode(value) : toBytes(value, "A stream chunk"));
  }
  reader.releaseLock();
  return chunks.length === 0 ? new Uint8Array(0) : concatBytes(chunks);
}

// Both copies read the whole source once it is first pulled.
function teeStream(stream) {
  let all = null;
  const pull = (controller) => (all || (all = readAll(stream))).then((bytes) => {
    if (bytes.byteLength > 0) controller.enqueue(bytes.slice());
    controller.close();
  });
  return [new ReadableStream({ pull }), new ReadableStream({ pull })];
}

// ---- Bodies of Request and Response: bytes, or a stream read when consumed.
const BODY = Symbol("body");

function extractBody(init) {
  if (typeof init === "string") return { bytes: utf8Encode(init), stream: null, type: "text/plain;charset=UTF-8" };
  if (init instanceof URLSearchParams) return { bytes: utf8Encode(init.toString()), stream: null, type: "application/x-www-form-urlencoded;charset=UTF-8" };
  if (init instanceof FormData) {
    const encoded = encodeFormData(init);
    return { bytes: encoded.bytes, stream: null, type: encoded.contentType };
  }
  if (init instanceof Blob) return { bytes: blobBytes(init).slice(), stream: null, type: init.type || null };
  if (init instanceof ArrayBuffer || ArrayBuffer.isView(init)) return { bytes: toBytes(init, "The body").slice(), stream: null, type: null };
  if (init instanceof ReadableStream) return { bytes: null, stream: init, type: null };
  return { bytes: utf8Encode(String(init)), stream: null, type: "text/plain;charset=UTF-8" };
}

async function consumeBody(message) {
  const state = message[BODY];
  if (!state) return new Uint8Array(0);
  if (state.used || (state.stream && state.stream.locked)) throw new TypeError("The body has already been used");
  state.used = true;
  return state.stream ? readAll(state.stream) : state.bytes;
}

function cloneBodyState(message) {
  const state = message[BODY];
  if (!state) return null;
  if (state.stream) {
    const [mine, theirs] = teeStream(state.stream);
    state.stream = mine;
    return { bytes: null, stream: theirs, used: false };
  }
  return { bytes: state.bytes, stream: null, used: false };
}

class Body {
  [BODY] = null;
  get body() {
    const state = this[BODY];
    if (!state) return null;
    if (!state.stream) {
      state.stream = streamOfBytes(state.used ? new Uint8Array(0) : state.bytes);
      state.bytes = null;
    }
    return state.stream;
  }
  get bodyUsed() {
    const state = this[BODY];
    return !!state && (state.used || (state.stream !== null && state.stream.locked));
  }
  async arrayBuffer() { return exactBuffer(await consumeBody(this)); }
  async bytes() { return consumeBody(this); }
  async text() { return utf8Decode(await consumeBody(this)); }
  async json() { return JSON.parse(await this.text()); }
  async blob() { return new Blob([await consumeBody(this)], { type: this.headers.get("content-type") || "" }); }
  async formData() {
    const type = this.headers.get("content-type") || "";
    const bytes = await consumeBody(this);
    const mime = type.split(";")[0].trim().toLowerCase();
    const form = new FormData();
    if (mime === "multipart/form-data") {
      for (const part of JSON.parse(hostCall("parseMultipart", exactBuffer(bytes), wire(type)))) {
        if (part.filename === undefined) form.append(part.name, part.value);
        else form.append(part.name, new File([bytes.subarray(part.start, part.end)], part.filename, { type: part.type }));
      }
      return form;
    }
    if (mime === "application/x-www-form-urlencoded") {
      for (const [name, value] of new URLSearchParams(utf8Decode(bytes))) form.append(name, value);
      return form;
    }
    throw new TypeError("Could not parse the body as FormData: its content-type is " + (type || "missing"));
  }
}

// ---- Request
const NORMALIZED_METHODS = ["DELETE", "GET", "HEAD", "OPTIONS", "POST", "PUT"];
const FORBIDDEN_METHODS = ["CONNECT", "TRACE", "TRACK"];

function normalizeMethod(method) {
  method = String(method);
  if (!HTTP_TOKEN.test(method)) throw new TypeError("Invalid method " + JSON.stringify(method));
  const upper = method.toUpperCase();
  if (FORBIDDEN_METHODS.includes(upper)) throw new TypeError("The method " + method + " is forbidden");
  return NORMALIZED_METHODS.includes(upper) ? upper : method;
}

class Request extends Body {
  #url;
  #method;
  #headers;
  #signal;
  #redirect;
  constructor(input, init) {
    super();
    if (arguments.length === 0) throw new TypeError("A Request needs a url");
    init = init === undefined || init === null ? {} : init;
    const source = input instanceof Request ? input : null;
    this.#url = source ? source.url : new URL(String(input)).href;
    this.#method = init.method !== undefined ? normalizeMethod(init.method) : source ? source.method : "GET";
    this.#headers = new Headers(init.headers !== undefined ? init.headers : source ? source.headers : undefined);
    this.#redirect = init.redirect !== undefined ? String(init.redirect) : source ? source.redirect : "follow";
    this.#signal = followSignal(init.signal !== undefined ? init.signal : source ? source.signal : null);
    if (init.body !== undefined && init.body !== null) {
      if (this.#method === "GET" || this.#method === "HEAD") throw new TypeError("A " + this.#method + " request cannot have a body");
      const extracted = extractBody(init.body);
      this[BODY] = { bytes: extracted.bytes, stream: extracted.stream, used: false };
      if (extracted.type && !this.#headers.has("content-type")) this.#headers.set("content-type", extracted.type);
    } else if (init.body === undefined && source && source[BODY]) {
      if (source.bodyUsed) throw new TypeError("The source request's body has already been used");
      // The body moves to the new request, as the Fetch standard says.
      this[BODY] = { bytes: source[BODY].bytes, stream: source[BODY].stream, used: false };
      source[BODY] = { bytes: null, stream: null, used: true };
    }
  }
  get url() { return this.#url; }
  get method() { return this.#method; }
  get headers() { return this.#headers; }
  get signal() { return this.#signal; }
  get redirect() { return this.#redirect; }
  get cache() { return "default"; }
  get credentials() { return "same-origin"; }
  get destination() { return ""; }
  get integrity() { return ""; }
  get keepalive() { return false; }
  get mode() { return "cors"; }
  get referrer() { return "about:client"; }
  get referrerPolicy() { return ""; }
  get cf() { return undefined; }
  clone() {
    if (this.bodyUsed) throw new TypeError("The request body has already been used");
    const copy = new Request(this.#url, { method: this.#method, headers: this.#headers, redirect: this.#redirect, signal: this.#signal });
    copy[BODY] = cloneBodyState(this);
    return copy;
  }
  get [Symbol.toStringTag]() { return "Request"; }
}

// ---- Response
const NULL_BODY_STATUSES = [101, 103, 204, 205, 304];
const REDIRECT_STATUSES = [301, 302, 303, 307, 308];
let responseFromHost;
let copyResponse;
let errorResponse;

class Response extends Body {
  #status;
  #statusText;
  #headers;
  #type = "default";
  #url = "";
  constructor(body = null, init) {
    super();
    init = init === undefined || init === null ? {} : init;
    const status = init.status === undefined ? 200 : Number(init.status);
    if (!Number.isInteger(status) || status < 200 || status > 599) throw new RangeError("A Response status must be between 200 and 599, not " + init.status);
    const statusText = init.statusText === undefined ? "" : String(init.statusText);
    if (/[^\t\x20-\x7e\x80-\xff]/.test(statusText)) throw new TypeError("Invalid status text");
    this.#status = status;
    this.#statusText = statusText;
    this.#headers = new Headers(init.headers);
    if (body !== null && body !== undefined) {
      if (NULL_BODY_STATUSES.includes(status)) throw new TypeError("A response with status " + status + " cannot have a body");
      const extracted = extractBody(body);
      this[BODY] = { bytes: extracted.bytes, stream: extracted.stream, used: false };
      if (extracted.type && !this.#headers.has("content-type")) this.#headers.set("content-type", extracted.type);
    }
  }
  static json(data, init) {
    const text = JSON.stringify(data);
    if (text === undefined) throw new TypeError("The value cannot be serialised as JSON");
    const headers = new Headers(init && init.headers);
    if (!headers.has("content-type")) headers.set("content-type", "application/json");
    return new Response(text, Object.assign({}, init, { headers }));
  }
  static redirect(url, status = 302) {
    if (!REDIRECT_STATUSES.includes(status)) throw new RangeError("Invalid redirect status " + status);
    return new Response(null, { status, headers: { location: new URL(String(url)).href } });
  }
  static error() { return errorResponse(); }
  get type() { return this.#type; }
  get url() { return this.#url; }
  get redirected() { return false; }
  get status() { return this.#status; }
  get ok() { return this.#status >= 200 && this.#status <= 299; }
  get statusText() { return this.#statusText; }
  get headers() { return this.#headers; }
  get webSocket() { return null; }
  clone() {
    if (this.bodyUsed) throw new TypeError("The response body has already been used");
    return copyResponse(this);
  }
  get [Symbol.toStringTag]() { return "Response"; }
  static {
    responseFromHost = (parts) => {
      const response = new Response(null);
      response.#status = parts.status;
      response.#statusText = parts.statusText;
      response.#headers = new Headers(parts.headers);
      response.#url = parts.url;
      response.#type = "basic";
      if (!NULL_BODY_STATUSES.includes(parts.status)) response[BODY] = { bytes: new Uint8Array(parts.body), stream: null, used: false };
      return response;
    };
    copyResponse = (source) => {
      const response = new Response(null);
      response.#status = source.#status;
      response.#statusText = source.#statusText;
      response.#headers = new Headers(source.#headers);
      response.#url = source.#url;
      response.#type = source.#type;
      response[BODY] = cloneBodyState(source);
      return response;
    };
    errorResponse = () => {
      const response = new Response(null);
      response.#type = "error";
      response.#status = 0;
      return response;
    };
  }
}

// ---- fetch: the host's SandboxFetch, through the main thread.
let fetchSequence = 0;

async function fetch(input, init) {
  const request = new Request(input, init);
  const signal = request.signal;
  if (signal.aborted) throw signal.reason;
  const protocol = new URL(request.url).protocol;
  if (protocol !== "http:" && protocol !== "https:") throw new TypeError("fetch supports http: and https: URLs, not " + protocol);
  const body = request[BODY] ? await consumeBody(request) : null;
  const id = ++fetchSequence;
  const meta = JSON.stringify({ url: request.url, method: request.method, headers: [...request.headers] });
  const answer = hostCall("fetchStart", id, meta, body === null ? undefined : exactBuffer(body));
  return new Promise((resolve, reject) => {
    const onAbort = () => {
      host.fetchAbort(id);
      reject(signal.reason);
    };
    signal.addEventListener("abort", onAbort, { once: true });
    answer.then(
      (parts) => {
        signal.removeEventListener("abort", onAbort);
        try {
          resolve(responseFromHost({ status: parts.status, statusText: parts.statusText, headers: JSON.parse(parts.headers), url: request.url, body: parts.body }));
        } catch (error) {
          reject(new TypeError("The fetched response cannot be read: " + (error && error.message)));
        }
      },
      (error) => {
        signal.removeEventListener("abort", onAbort);
        reject(new TypeError(error && error.message ? error.message : String(error)));
      },
    );
  });
}

// ---- Timers: the host keeps the due times and calls fireTimer; a pending timer keeps a call alive.
const timers = new Map();
let timerSequence = 0;

function startTimer(callback, delay, args, repeat) {
  if (typeof callback !== "function") throw new TypeError("Timer callbacks must be functions: code strings are not evaluated");
  const id = ++timerSequence;
  const ms = Math.max(repeat ? 1 : 0, Math.trunc(Number(delay)) || 0);
  timers.set(id, { callback, args, ms, repeat });
  hostCall("timerStart", id, ms);
  return id;
}

function setTimeout(callback, delay, ...args) { return startTimer(callback, delay, args, false); }
function setInterval(callback, delay, ...args) { return startTimer(callback, delay, args, true); }

function clearTimer(id) {
  id = Number(id);
  if (timers.delete(id)) host.timerCancel(id);
}

function fireTimer(id) {
  const timer = timers.get(id);
  if (!timer) return;
  if (timer.repeat) hostCall("timerStart", id, timer.ms);
  else timers.delete(id);
  try {
    timer.callback(...timer.args);
  } catch (error) {
    reportError(error);
  }
}

function queueMicrotask(callback) {
  if (typeof callback !== "function") throw new TypeError("queueMicrotask needs a function");
  Promise.resolve().then(() => {
    try {
      callback();
    } catch (error) {
      reportError(error);
    }
  });
}

// ---- console: each call is one log line of the event's trace.
// The stack of an error the engine threw lists frames only: put its name and message first.
function errorText(error) {
  const stack = typeof error.stack === "string" ? error.stack.trimEnd() : "";
  const head = nativeErrorToString.call(error);
  if (stack === "") return head;
  return /^\s+at /.test(stack) ? head + "\n" + stack : stack;
}

function describe(value) {
  if (value instanceof Error) return errorText(value);
  if (typeof value === "function") return "[Function: " + (value.name || "anonymous") + "]";
  if (typeof value === "bigint") return String(value) + "n";
  if (value === null || typeof value !== "object") return String(value);
  try {
    const seen = new WeakSet();
    const text = JSON.stringify(value, (key, current) => {
      if (typeof current === "bigint") return String(current) + "n";
      if (typeof current === "function") return "[Function: " + (current.name || "anonymous") + "]";
      if (current !== null && typeof current === "object") {
        if (seen.has(current)) return "[Circular]";
        seen.add(current);
        if (current instanceof Map) return Object.fromEntries(current);
        if (current instanceof Set) return [...current];
        if (current instanceof Headers || current instanceof URLSearchParams) return Object.fromEntries(current);
        if (current instanceof Error) return errorText(current);
      }
      return current;
    });
    return text === undefined ? String(value) : text;
  } catch {
    return String(value);
  }
}

// Long messages are cut again on the host; cutting here spares copying them out.
const LOG_MESSAGE_CHARS = 8192;

function formatLog(args) {
  let parts = args;
  if (typeof args[0] === "string" && args[0].includes("%")) {
    let index = 1;
    const head = args[0].replace(/%([sdifoOjc%])/g, (match, kind) => {
      if (kind === "%") return "%";
      if (index >= args.length) return match;
      const value = args[index++];
      if (kind === "s") return typeof value === "string" ? value : describe(value);
      if (kind === "d") return String(Number(value));
      if (kind === "i") return String(parseInt(value, 10));
      if (kind === "f") return String(parseFloat(value));
      if (kind === "c") return "";
      return describe(value);
    });
    parts = [head, ...args.slice(index)];
  }
  const text = parts.map((value) => (typeof value === "string" ? value : describe(value))).join(" ");
  return text.length > LOG_MESSAGE_CHARS ? text.slice(0, LOG_MESSAGE_CHARS) : text;
}

function writeLog(level, message) {
  host.log(level, wire(message));
}

function reportError(error) {
  writeLog("error", formatLog(["Uncaught", error]));
}

const counts = new Map();
const timings = new Map();
const logAt = (level) => (...args) => writeLog(level, formatLog(args));

const console = {
  log: logAt("info"),
  info: logAt("info"),
  debug: logAt("debug"),
  trace: logAt("debug"),
  warn: logAt("warn"),
  error: logAt("error"),
  dir: (value) => writeLog("info", formatLog([value])),
  table: (value) => writeLog("info", formatLog([value])),
  assert: (condition, ...args) => {
    if (!condition) writeLog("error", formatLog(["Assertion failed" + (args.length > 0 ? ":" : ""), ...args]));
  },
  count: (label = "default") => {
    const count = (counts.get(label) || 0) + 1;
    counts.set(label, count);
    writeLog("info", label + ": " + count);
  },
  countReset: (label = "default") => { counts.delete(label); },
  time: (label = "default") => { timings.set(label, Date.now()); },
  timeLog: (label = "default", ...args) => {
    if (timings.has(label)) writeLog("info", formatLog([label + ": " + (Date.now() - timings.get(label)) + "ms", ...args]));
  },
  timeEnd: (label = "default") => {
    if (!timings.has(label)) return;
    writeLog("info", label + ": " + (Date.now() - timings.get(label)) + "ms");
    timings.delete(label);
  },
  group: () => {},
  groupCollapsed: () => {},
  groupEnd: () => {},
};

// ---- crypto: random values and digests from the host; HMAC keys for signing and verifying.
const HASHES = { "SHA-1": "sha1", "SHA-256": "sha256", "SHA-384": "sha384", "SHA-512": "sha512" };
const KEY_TOKEN = Symbol("CryptoKey");
let cryptoKeyBytes;

function algorithmName(algorithm) {
  return String(typeof algorithm === "object" && algorithm !== null ? algorithm.name : algorithm).toUpperCase();
}

function hashName(algorithm) {
  const name = algorithmName(algorithm);
  if (!Object.prototype.hasOwnProperty.call(HASHES, name)) throw new DOMException("Unsupported hash algorithm " + name, "NotSupportedError");
  return name;
}

class CryptoKey {
  #bytes;
  #algorithm;
  #extractable;
  #usages;
  constructor(token, bytes, algorithm, extractable, usages) {
    if (token !== KEY_TOKEN) throw new TypeError("Illegal constructor: use crypto.subtle.importKey");
    this.#bytes = bytes;
    this.#algorithm = algorithm;
    this.#extractable = extractable;
    this.#usages = usages;
  }
  get type() { return "secret"; }
  get algorithm() { return this.#algorithm; }
  get extractable() { return this.#extractable; }
  get usages() { return this.#usages.slice(); }
  static { cryptoKeyBytes = (key) => key.#bytes; }
}

function hmacKey(algorithm, key, usage) {
  if (algorithmName(algorithm) !== "HMAC" || !(key instanceof CryptoKey) || key.algorithm.name !== "HMAC") throw new DOMException("Only HMAC keys can sign and verify here", "NotSupportedError");
  if (!key.usages.includes(usage)) throw new DOMException("The key cannot be used to " + usage, "InvalidAccessError");
  return cryptoKeyBytes(key);
}

const subtle = {
  async digest(algorithm, data) {
    return hostCall("digest", HASHES[hashName(algorithm)], exactBuffer(toBytes(data, "The data")));
  },
  async importKey(format, keyData, algorithm, extractable, usages) {
    if (format !== "raw" || algorithmName(algorithm) !== "HMAC") throw new DOMException("Only raw HMAC keys can be imported here", "NotSupportedError");
    const hash = hashName(algorithm.hash);
    const bytes = toBytes(keyData, "The key data").slice();
    return new CryptoKey(KEY_TOKEN, bytes, { name: "HMAC", hash: { name: hash }, length: bytes.byteLength * 8 }, !!extractable, Array.from(usages || []));
  },
  async exportKey(format, key) {
    if (format !== "raw" || !(key instanceof CryptoKey)) throw new DOMException("Only raw keys can be exported here", "NotSupportedError");
    if (!key.extractable) throw new DOMException("The key is not extractable", "InvalidAccessError");
    return cryptoKeyBytes(key).slice().buffer;
  },
  async sign(algorithm, key, data) {
    const keyBytes = hmacKey(algorithm, key, "sign");
    return hostCall("hmac", HASHES[key.algorithm.hash.name], exactBuffer(keyBytes), exactBuffer(toBytes(data, "The data")));
  },
  async verify(algorithm, key, signature, data) {
    const keyBytes = hmacKey(algorithm, key, "verify");
    const expected = new Uint8Array(hostCall("hmac", HASHES[key.algorithm.hash.name], exactBuffer(keyBytes), exactBuffer(toBytes(data, "The data"))));
    const actual = toBytes(signature, "The signature");
    if (expected.length !== actual.length) return false;
    let difference = 0;
    for (let index = 0; index < expected.length; index++) difference |= expected[index] ^ actual[index];
    return difference === 0;
  },
};
for (const method of ["encrypt", "decrypt", "generateKey", "deriveKey", "deriveBits", "wrapKey", "unwrapKey"]) {
  subtle[method] = async () => {
    throw new DOMException("crypto.subtle." + method + " is not supported here", "NotSupportedError");
  };
}

const crypto = {
  subtle,
  getRandomValues(array) {
    if (!ArrayBuffer.isView(array) || array instanceof DataView || array instanceof Float32Array || array instanceof Float64Array) throw new DOMException("getRandomValues needs an integer typed array", "TypeMismatchError");
    if (array.byteLength > 65536) throw new DOMException("getRandomValues fills at most 65536 bytes", "QuotaExceededError");
    new Uint8Array(array.buffer, array.byteOffset, array.byteLength).set(new Uint8Array(hostCall("randomBytes", array.byteLength)));
    return array;
  },
  randomUUID() { return hostCall("randomUUID"); },
};

// ---- atob, btoa, structuredClone
function atob(data) {
  if (arguments.length === 0) throw new TypeError("atob needs an argument");
  return unwire(hostCall("atob", wire(data)));
}

function btoa(data) {
  if (arguments.length === 0) throw new TypeError("btoa needs an argument");
  return unwire(hostCall("btoa", wire(data)));
}

const ERROR_CLASSES = [Error, TypeError, RangeError, SyntaxError, ReferenceError, EvalError, URIError];

function structuredClone(value) {
  const seen = new Map();
  const clone = (current) => {
    if (typeof current === "function" || typeof current === "symbol") throw new DOMException(typeof current + " values cannot be cloned", "DataCloneError");
    if (current === null || typeof current !== "object") return current;
    if (seen.has(current)) return seen.get(current);
    if (current instanceof Promise || current instanceof WeakMap || current instanceof WeakSet) throw new DOMException("The value cannot be cloned", "DataCloneError");
    let copy;
    if (current instanceof Date) copy = new Date(current.getTime());
    else if (current instanceof RegExp) copy = new RegExp(current.source, current.flags);
    else if (current instanceof ArrayBuffer) copy = current.slice(0);
    else if (current instanceof DataView) copy = new DataView(clone(current.buffer), current.byteOffset, current.byteLength);
    else if (ArrayBuffer.isView(current)) copy = new current.constructor(clone(current.buffer), current.byteOffset, current.length);
    else if (current instanceof File) copy = new File([current], current.name, { type: current.type, lastModified: current.lastModified });
    else if (current instanceof Blob) copy = current.slice(0, current.size, current.type);
    else if (current instanceof Error) {
      const ErrorClass = ERROR_CLASSES.find((candidate) => candidate.prototype.name === current.name) || Error;
      copy = new ErrorClass(current.message);
    }
    if (copy !== undefined) {
      seen.set(current, copy);
      return copy;
    }
    if (current instanceof Map) {
      copy = new Map();
      seen.set(current, copy);
      for (const [key, item] of current) copy.set(clone(key), clone(item));
      return copy;
    }
    if (current instanceof Set) {
      copy = new Set();
      seen.set(current, copy);
      for (const item of current) copy.add(clone(item));
      return copy;
    }
    copy = Array.isArray(current) ? [] : {};
    seen.set(current, copy);
    for (const key of Object.keys(current)) copy[key] = clone(current[key]);
    return copy;
  };
  return clone(value);
}

// ---- The entry points the host calls.
function describeError(error) {
  if (error instanceof Error) {
    const frame = typeof error.stack === "string" ? scriptFrames(error.stack).split("\n").map((line) => line.trim()).find((line) => line.startsWith("at ")) : undefined;
    return nativeErrorToString.call(error) + (frame ? " (" + frame + ")" : "");
  }
  return "Uncaught " + describe(error);
}

function describeKind(value) {
  if (value === null || value === undefined) return String(value);
  if (typeof value !== "object") return "a " + typeof value;
  const name = value.constructor && value.constructor.name;
  return name ? "an object of class " + name : "an object";
}

// ctx.waitUntil work runs after the response, as in Workers; its failures are logged, not fatal.
async function settleWaitUntil(waiting) {
  while (waiting.length > 0) {
    const results = await Promise.allSettled(waiting.splice(0));
    for (const result of results) {
      if (result.status === "rejected") writeLog("error", formatLog(["ctx.waitUntil promise rejected:", result.reason]));
    }
  }
}

// Calls the script's handler with the host's request. Always fulfils, with plain data the host reads:
// the response (and the promise of the waitUntil work), a bad response, or the error thrown (reasons
// as JSON strings).
async function dispatch(handler, meta, body, envJson) {
  // Timers of an earlier call of this warm script are forgotten by the host: forget them here too.
  timers.clear();
  const waiting = [];
  const nothingPending = Promise.resolve();
  try {
    if (handler === null || (typeof handler !== "object" && typeof handler !== "function") || typeof handler.fetch !== "function") {
      return { kind: "bad_response", reason: wire("the script's default export has no fetch(request, env, ctx) handler"), pending: nothingPending };
    }
    const parts = JSON.parse(meta);
    const request = new Request(parts.url, { method: parts.method, headers: parts.headers, body: body === undefined ? null : body });
    const ctx = {
      waitUntil(promise) { waiting.push(Promise.resolve(promise)); },
      passThroughOnException() {},
      props: {},
    };
    const response = await handler.fetch(request, JSON.parse(envJson), ctx);
    const afterResponse = settleWaitUntil(waiting);
    if (!(response instanceof Response)) {
      return { kind: "bad_response", reason: wire("the fetch handler answered " + describeKind(response) + " instead of a Response"), pending: afterResponse };
    }
    if (response.type === "error") return { kind: "bad_response", reason: wire("the fetch handler answered Response.error()"), pending: afterResponse };
    const bytes = await consumeBody(response);
    return {
      kind: "response",
      status: response.status,
      headers: JSON.stringify([...response.headers]),
      body: exactBuffer(bytes),
      bodyLength: bytes.byteLength,
      pending: afterResponse,
    };
  } catch (error) {
    // waitUntil work of a failed call is abandoned with it.
    return { kind: "error", reason: wire(describeError(error)), pending: nothingPending };
  }
}

const origin = Date.now();
const performance = { timeOrigin: origin, now: () => Date.now() - origin };
// Libraries written for Workers look for this user agent to pick fetch-based code paths.
const navigator = { userAgent: "Cloudflare-Workers", hardwareConcurrency: 1 };

const surface = {
  AbortController, AbortSignal, Blob, CryptoKey, DOMException, Event, EventTarget, File, FormData, Headers,
  ReadableStream, Request, Response, TextDecoder, TextEncoder, URL, URLSearchParams,
  atob, btoa, clearInterval: clearTimer, clearTimeout: clearTimer, console, crypto, fetch, navigator, performance,
  queueMicrotask, reportError, setInterval, setTimeout, structuredClone,
};
for (const name of Object.keys(surface)) define(name, surface[name]);
define("self", globalThis);

return { dispatch, fireTimer, describeError: (error) => wire(describeError(error)) };
})`;
