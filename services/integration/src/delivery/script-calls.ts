import { ALLOW_ANY_ADDRESS, safeRequest, SafeFetchError, type SafeFetchPolicy } from "@imprint/runtime";
import type { Clock } from "@imprint/runtime";
import type { Integration } from "../domain/integration.js";
import { DISPATCH_PATH, encodeDispatchRequest } from "../domain/platform/dispatch.js";
import { signDispatch, SIGNATURE_HEADER } from "../domain/platform/signature.js";
import type { SandboxFetch, SandboxHttpRequest, SandboxLogLine, SandboxPool } from "../sandbox/index.js";
import type { ScriptTexts } from "./script-texts.js";

/** One call of an integration: a GitBook event with its environment, as GitBook's dispatcher sends it. */
export interface ScriptCall {
  integration: Pick<Integration, "id" | "name" | "version" | "signingSecret" | "ownerOrganizationId" | "devTunnelUrl" | "devAll" | "tunnelFor">;
  /** The organization the call acts for (development mode forwards only the owner's unless `all`); null: the integration itself. */
  organizationId: string | null;
  event: Record<string, unknown>;
  environment: Record<string, unknown>;
  /** The body of a `fetch` event's request. */
  fetchBody?: string;
}

export interface ScriptLog {
  level: SandboxLogLine["level"];
  message: string;
  timestamp: Date;
}

/** What a call answered; a failure's `reason` is safe to show to the integration's developer. */
export type ScriptAnswer =
  | { ok: true; status: number; headers: Array<[string, string]>; body: Uint8Array; logs: ScriptLog[]; via: "sandbox" | "tunnel" }
  | { ok: false; reason: string; logs: ScriptLog[]; via: "sandbox" | "tunnel" };

/** Where scripts run (one pool per process) and how they, and tunnels, reach the network. */
export interface ScriptCallOptions {
  pool: SandboxPool;
  /** The scripts the pool runs, by version. */
  scripts: ScriptTexts;
  /** The SSRF guard for scripts' fetches and tunnels. */
  fetchPolicy: SafeFetchPolicy;
  /** The public API: scripts call it back with their installation token, wherever it listens. */
  publicUrl: string;
  clock: Clock;
  /** Bound on a tunnel's answer, as on a script's output. */
  maxResponseBytes: number;
  /** Wall time of a tunnel call. */
  tunnelTimeoutMs: number;
}

const DISPATCH_ORIGIN = "https://integrations.imprint.internal";

/**
 * Calls integrations: in the sandbox, or, in development mode, on the developer's tunnel (the same
 * multipart request, signed with the integration's secret, through the SSRF guard).
 */
export class ScriptCalls {
  private readonly apiOrigin: string;

  constructor(private readonly options: ScriptCallOptions) {
    this.apiOrigin = new URL(options.publicUrl).origin;
  }

  async call(call: ScriptCall): Promise<ScriptAnswer> {
    const { body, contentType } = encodeDispatchRequest({ event: call.event, environment: call.environment, fetchBody: call.fetchBody });
    const tunnel = call.integration.tunnelFor(call.organizationId);
    if (tunnel) return this.callTunnel(tunnel, call, body, contentType);
    const request: SandboxHttpRequest = { url: `${DISPATCH_ORIGIN}${DISPATCH_PATH}`, method: "POST", headers: [["content-type", contentType]], body };
    const script = await this.options.scripts.textOf(call.integration);
    if (script === null) {
      const reason = `version ${call.integration.version} of the integration was replaced while the call was prepared`;
      return { ok: false, reason, logs: [{ level: "error", message: reason, timestamp: this.options.clock() }], via: "sandbox" };
    }
    const outcome = await this.options.pool.run({
      scriptKey: `${call.integration.id}@${call.integration.version}`,
      script,
      request,
      fetch: this.scriptFetch,
    });
    if (outcome.ok) return { ok: true, ...outcome.response, logs: outcome.logs, via: "sandbox" };
    return { ok: false, reason: outcome.reason, logs: outcome.logs, via: "sandbox" };
  }

  private async callTunnel(tunnelUrl: string, call: ScriptCall, body: Uint8Array, contentType: string): Promise<ScriptAnswer> {
    const url = `${tunnelUrl.replace(/\/+$/, "")}${DISPATCH_PATH}`;
    const started = this.options.clock();
    const log = (level: ScriptLog["level"], message: string): ScriptLog => ({ level, message, timestamp: this.options.clock() });
    try {
      const response = await safeRequest(
        url,
        {
          method: "POST",
          headers: { "content-type": contentType, [SIGNATURE_HEADER]: signDispatch(body, call.integration.signingSecret, started) },
          body,
        },
        { ...this.options.fetchPolicy, requestTimeoutMs: this.options.tunnelTimeoutMs },
        { maxBodyBytes: this.options.maxResponseBytes },
      );
      const logs = [log("info", `development mode: the tunnel ${new URL(url).origin} answered HTTP ${response.status}`)];
      return { ok: true, status: response.status, headers: response.headers, body: response.body, logs, via: "tunnel" };
    } catch (error) {
      const reason = error instanceof SafeFetchError ? `the development tunnel failed: ${error.reason}` : "the development tunnel failed";
      return { ok: false, reason, logs: [log("error", reason)], via: "tunnel" };
    }
  }

  /** A script's `fetch`: the SSRF guard applies, except towards this installation's own API (reached with the installation token). */
  private readonly scriptFetch: SandboxFetch = async (request: SandboxHttpRequest, signal: AbortSignal) => {
    let target: URL;
    try {
      target = new URL(request.url);
    } catch {
      throw new Error(`fetch: invalid URL`);
    }
    // The API itself may listen on a private address; a redirect from it is answered, not followed, so
    // the exemption cannot carry a request anywhere else.
    const policy =
      target.origin === this.apiOrigin ? { ...this.options.fetchPolicy, addressRule: ALLOW_ANY_ADDRESS, maxRedirects: 0 } : this.options.fetchPolicy;
    try {
      const response = await safeRequest(target, { method: request.method, headers: request.headers, body: request.body }, policy, {
        signal,
        maxBodyBytes: this.options.maxResponseBytes,
      });
      return { status: response.status, headers: response.headers, body: response.body };
    } catch (error) {
      throw new Error(error instanceof SafeFetchError ? `fetch ${target.origin}: ${error.reason}` : `fetch ${target.origin}: network error`, { cause: error });
    }
  };
}
