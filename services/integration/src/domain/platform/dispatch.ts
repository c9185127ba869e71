import { randomUUID } from "node:crypto";

/**
 * The request GitBook's dispatcher sends an integration's script, and Imprint with it: a POST to
 * `<script origin>/v1` whose body is `multipart/form-data` with three text fields, in this order:
 * `event` (the GitBook Event as JSON), `environment` (the IntegrationEnvironment as JSON) and
 * `fetch-body` (the body of the HTTP request a `fetch` event forwards, empty otherwise).
 * `@gitbook/runtime`'s `createIntegration` reads them with `request.formData()` and answers 400 in
 * production when the path is not `/v1`.
 */
export const DISPATCH_PATH = "/v1";

export interface DispatchRequest {
  /** A GitBook Event (events.ts builds them). */
  event: object;
  /** An IntegrationEnvironment (environment.ts builds it). */
  environment: object;
  /** The forwarded request's body, as text (GitBook sends it as a text field, not a file). */
  fetchBody?: string;
}

const encoder = new TextEncoder();

/** One text part: no filename and no Content-Type, so `formData().get(name)` answers a string. */
function textPart(boundary: string, name: string, value: string): string {
  return `--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`;
}

/**
 * A boundary found in no field, so no field can end the part it sits in early. From randomUUID
 * (122 random bits, hex): Node draws it from entropy it buffers, where randomBytes asks the system
 * on every dispatch.
 */
function boundaryFor(fields: readonly string[]): string {
  for (;;) {
    const boundary = `----ImprintDispatch${randomUUID().replaceAll("-", "")}`;
    if (!fields.some((field) => field.includes(boundary))) return boundary;
  }
}

/** The multipart body (and its Content-Type, which carries the boundary) of one dispatch. */
export function encodeDispatchRequest({ event, environment, fetchBody }: DispatchRequest): { body: Uint8Array; contentType: string } {
  const fields: Array<[string, string]> = [
    ["event", JSON.stringify(event)],
    ["environment", JSON.stringify(environment)],
    ["fetch-body", fetchBody ?? ""],
  ];
  const boundary = boundaryFor(fields.map(([, value]) => value));
  const text = fields.map(([name, value]) => textPart(boundary, name, value)).join("") + `--${boundary}--\r\n`;
  return { body: encoder.encode(text), contentType: `multipart/form-data; boundary=${boundary}` };
}
