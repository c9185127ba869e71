import type { IncomingMessage, ServerResponse } from "node:http";
import { TokenAuthenticator, type Principal } from "@imprint/gateway";
import { hashTokenSecret, organizationPermissionsFor, TOKEN_PREFIX, type Organization } from "@imprint/identity";
import { AppError, createLogger, HTTP_STATUS_BY_CODE, publicMessage, type Logger } from "@imprint/runtime";
import pg from "pg";
import { listenReference, type ReferenceServer } from "./listen.js";
import { organizationJson, type BaseUrls } from "./mappers.js";

/**
 * The floor: the least a Node process can do to answer `GET /v1/orgs/{id}` correctly, so every
 * other figure can say how far above it it stands. `node:http` and `pg` with prepared statements,
 * no framework, no ORM; the same authentication (sha256 of the bearer secret in api_tokens, through
 * the gateway's TokenAuthenticator cache with the same TTL, lastUsedAt written at most once a
 * minute) and the same JSON as the gateway, which the bench checks before measuring.
 */
export interface FloorOptions {
  databaseUrl: string;
  /** Base URL put in `urls.*`, the gateway's IMPRINT_PUBLIC_URL. */
  publicUrl: string;
  authCacheTtlMs: number;
  host?: string;
  port?: number;
  /** Same pool size as a service's (runtime openDatabase default). */
  poolMax?: number;
  logger?: Logger;
  now?: () => Date;
}

export type FloorServer = ReferenceServer;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const ORGANIZATION_PATH = /^\/v1\/orgs\/([^/?]+)\/?(?:\?.*)?$/;
const LAST_USED_WRITE_INTERVAL_MS = 60_000;

// Named statements: parsed and planned once per connection, as a hand-tuned service would.
const TOKEN_BY_HASH = {
  name: "floor_token_by_hash",
  text: `select t.id, t.user_id, t.revoked_at, t.last_used_at, u.display_name, u.email, u.photo_url
         from api_tokens t join users u on u.id = t.user_id where t.token_hash = $1`,
};
const TOUCH_TOKEN = {
  name: "floor_touch_token",
  text: `update api_tokens set last_used_at = $2 where id = $1 and (last_used_at is null or last_used_at <= $3)`,
};
const ORGANIZATION_OF_MEMBER = {
  name: "floor_organization_of_member",
  text: `select m.role as member_role, o.* from members m join organizations o on o.id = m.organization_id
         where m.organization_id = $1 and m.user_id = $2 and m.disabled = false`,
};

interface OrganizationRow {
  member_role: string | null;
  id: string;
  title: string;
  created_at: Date;
  email_domains: string[];
  hostname: string | null;
  type: string;
  use_case: string | null;
  community_type: string | null;
  default_role: string | null;
  default_content_site_id: string | null;
  sso: boolean;
  ai: boolean;
  invite_links: boolean;
  plan: string;
  logo_url: string | null;
  custom_hostname: string | null;
  trial_status: string;
  merge_rules_type: string;
  sign_in_methods: string[];
}

/** The row as the fields organizationJson reads (the baseline's mapper, so both answer alike). */
function organizationOf(row: OrganizationRow): Organization {
  return {
    id: row.id,
    title: row.title,
    createdAt: row.created_at,
    emailDomains: row.email_domains,
    hostname: row.hostname,
    type: row.type,
    useCase: row.use_case,
    communityType: row.community_type,
    defaultRole: row.default_role,
    defaultContentSiteId: row.default_content_site_id,
    sso: row.sso,
    ai: row.ai,
    inviteLinks: row.invite_links,
    plan: row.plan,
    logoUrl: row.logo_url,
    customHostname: row.custom_hostname,
    trialStatus: row.trial_status,
    mergeRulesType: row.merge_rules_type,
    signInMethods: row.sign_in_methods,
  } as unknown as Organization;
}

export function createFloorHandler(deps: { pool: pg.Pool; urls: BaseUrls; authenticator: TokenAuthenticator; logger: Logger }) {
  const { pool, urls, authenticator, logger } = deps;

  const answer = (response: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
    const text = JSON.stringify(body);
    response.writeHead(status, { "content-type": "application/json; charset=utf-8", "content-length": Buffer.byteLength(text), ...headers });
    response.end(text);
  };

  const organization = async (request: IncomingMessage, organizationId: string) => {
    const principal = await authenticator.authenticate(request.headers.authorization);
    if (!UUID.test(organizationId)) throw AppError.notFound("Organization");
    const { rows } = await pool.query<OrganizationRow>({ ...ORGANIZATION_OF_MEMBER, values: [organizationId, principal.caller.userId] });
    const row = rows[0];
    if (!row) throw AppError.notFound("Organization");
    return organizationJson(
      organizationOf(row),
      organizationPermissionsFor((row.member_role ?? null) as Parameters<typeof organizationPermissionsFor>[0]),
      urls,
    );
  };

  return (request: IncomingMessage, response: ServerResponse) => {
    const started = performance.now();
    const path = request.url ?? "/";
    const route = request.method === "GET" ? ORGANIZATION_PATH.exec(path) : null;
    const work: Promise<unknown> | null =
      request.method === "GET" && path === "/readyz"
        ? pool.query("select 1").then(() => ({ status: "ok" }))
        : route
          ? organization(request, decodeURIComponent(route[1]!))
          : null;
    if (!work) {
      answer(response, 404, { error: { code: 404, message: "Not found" } });
      return;
    }
    work
      .then(
        (body) => answer(response, 200, body),
        (error: unknown) => {
          const appError = error instanceof AppError ? error : new AppError("internal", "unexpected error", { cause: error });
          if (appError.code === "internal") logger.error("request failed", { path, err: error });
          const status = HTTP_STATUS_BY_CODE[appError.code];
          answer(
            response,
            status,
            { error: { code: status, message: publicMessage(appError) } },
            status === 401 ? { "www-authenticate": 'Bearer realm="imprint"' } : {},
          );
        },
      )
      .finally(() => {
        // One access line per request, like the gateway and the baseline, so all pay the same logging cost.
        logger.info("request", {
          method: request.method,
          path,
          status: response.statusCode,
          duration_ms: Math.round((performance.now() - started) * 100) / 100,
        });
      });
  };
}

async function resolvePrincipal(pool: pg.Pool, secret: string, now: Date): Promise<Principal> {
  if (!secret.startsWith(TOKEN_PREFIX) || secret.length > 256) throw AppError.unauthenticated();
  const { rows } = await pool.query<{
    id: string;
    user_id: string;
    revoked_at: Date | null;
    last_used_at: Date | null;
    display_name: string;
    email: string;
    photo_url: string | null;
  }>({ ...TOKEN_BY_HASH, values: [hashTokenSecret(secret)] });
  const token = rows[0];
  if (!token || token.revoked_at) throw AppError.unauthenticated();
  const staleBefore = new Date(now.getTime() - LAST_USED_WRITE_INTERVAL_MS);
  if (!token.last_used_at || token.last_used_at <= staleBefore) await pool.query({ ...TOUCH_TOKEN, values: [token.id, now, staleBefore] });
  return {
    caller: { userId: token.user_id, tokenId: token.id },
    user: { id: token.user_id, displayName: token.display_name, email: token.email, photoUrl: token.photo_url ?? "" },
  };
}

export async function startFloorServer(options: FloorOptions): Promise<FloorServer> {
  const logger = options.logger ?? createLogger("floor");
  const now = options.now ?? (() => new Date());
  const pool = new pg.Pool({ connectionString: options.databaseUrl, max: options.poolMax ?? 10 });
  const authenticator = new TokenAuthenticator(async (secret) => ({ principal: await resolvePrincipal(pool, secret, now()) }), {
    ttlMs: options.authCacheTtlMs,
  });
  const handle = createFloorHandler({ pool, urls: { api: options.publicUrl, app: options.publicUrl }, authenticator, logger });
  return listenReference(handle, { name: "floor", host: options.host, port: options.port, logger, release: () => pool.end() });
}
