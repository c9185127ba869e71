import { GitBookAPI } from "@gitbook/api";
// The package's index.d.ts imports './client' without an extension, which nodenext cannot follow,
// and its exports map hides that file; its self-contained declarations give the client real types.
import type { Api, MemberRole as GitBookMemberRole } from "../../../node_modules/@gitbook/api/dist/client.js";
import { assertContract, type ContractOptions } from "./contract.js";
import type { TestStack } from "./stack.js";

/** Every response that passes through these helpers is checked against GitBook's OpenAPI. */
async function checkedFetch(input: string | URL | Request, init: RequestInit | undefined, options: ContractOptions = {}): Promise<Response> {
  const response = await fetch(input, init);
  const url = typeof input === "string" ? input : input instanceof URL ? input.toString() : input.url;
  const method = init?.method ?? (input instanceof Request ? input.method : "GET");
  assertContract({ method, url }, { status: response.status, contentType: response.headers.get("content-type"), text: await response.clone().text() }, options);
  return response;
}

export type GitBookClient = Api<{ authToken?: string }>;

/** GitBook's MemberRole enum value for a role name (its values are the names themselves). */
export function role(name: "admin" | "create" | "edit" | "review" | "comment" | "read"): GitBookMemberRole {
  return name as GitBookMemberRole;
}

/** The official GitBook client, pointed at the gateway, with contract checks on every response. */
export function gitbookClient(stack: TestStack, token: string): GitBookClient {
  return new GitBookAPI({
    endpoint: stack.baseUrl,
    authToken: token,
    serviceBinding: { fetch: (input: string | URL | Request, init?: RequestInit) => checkedFetch(input, init) },
  }) as unknown as GitBookClient;
}

export interface CallOptions extends ContractOptions {
  token?: string;
  /** JSON-encoded with Content-Type application/json. */
  json?: unknown;
  /** Sent as is (set the content type through headers). */
  rawBody?: string | Buffer;
  headers?: Record<string, string>;
}

export interface CallResult {
  status: number;
  headers: Headers;
  // Parsed JSON, asserted field by field in the tests (its shape is already checked by the contract).
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  body: any;
}

/** Plain fetch against the gateway for the cases the client cannot express (errors, raw bodies). */
export async function call(stack: TestStack, method: string, path: string, options: CallOptions = {}): Promise<CallResult> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.token !== undefined) headers.authorization ??= `Bearer ${options.token}`;
  let body: string | Buffer | undefined = options.rawBody;
  if (options.json !== undefined) {
    body = JSON.stringify(options.json);
    headers["content-type"] ??= "application/json";
  }
  const response = await checkedFetch(`${stack.baseUrl}${path}`, { method, headers, body }, options);
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: text === "" ? undefined : JSON.parse(text) };
}
