import type { ParameterizedContext } from "koa";
import type { Principal } from "./auth.js";

/** What the gateway's middleware leaves on `ctx.state` for later middleware and the access log. */
export interface GatewayState {
  requestId: string;
  principal?: Principal;
  /** The message of the error the request was answered with (what the client read), for the access log. */
  failure?: string;
}

export type GatewayContext = ParameterizedContext<GatewayState>;
