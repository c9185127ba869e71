import { TokenAuthenticator, type Principal } from "@imprint/gateway";
import { ApiToken, hashTokenSecret, identityEntities, Member, organizationPermissionsFor, TOKEN_PREFIX } from "@imprint/identity";
import { AppError, createLogger, findPage, HTTP_STATUS_BY_CODE, publicMessage, type Logger, type SortDirection } from "@imprint/runtime";
import { Router } from "@koa/router";
import { MikroORM, type EntityManager } from "@mikro-orm/postgresql";
import Koa from "koa";
import { listenReference, type ReferenceServer } from "./listen.js";
import { memberJson, organizationJson, type BaseUrls } from "./mappers.js";

/**
 * The benchmark's baseline: what a single team would build as one process. The same two routes
 * as the gateway, answered by reading the identity database directly through MikroORM: no gRPC
 * hop, no second process. It authenticates exactly like the gateway (sha256 of the bearer secret
 * looked up in api_tokens, through the gateway's own TokenAuthenticator cache with the same TTL).
 */
export interface BaselineOptions {
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

export type BaselineServer = ReferenceServer;

interface BaselineState {
  principal?: Principal;
}
type BaselineContext = Koa.ParameterizedContext<BaselineState>;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** lastUsedAt is written at most once a minute per token, as identity does. */
const LAST_USED_WRITE_INTERVAL_MS = 60_000;

async function resolvePrincipal(em: EntityManager, secret: string, now: Date): Promise<Principal> {
  if (!secret.startsWith(TOKEN_PREFIX) || secret.length > 256) throw AppError.unauthenticated();
  const token = await em.findOne(ApiToken, { tokenHash: hashTokenSecret(secret) }, { populate: ["user"] });
  if (!token || token.revokedAt) throw AppError.unauthenticated();
  const staleBefore = new Date(now.getTime() - LAST_USED_WRITE_INTERVAL_MS);
  if (!token.lastUsedAt || token.lastUsedAt <= staleBefore) {
    await em.nativeUpdate(ApiToken, { id: token.id, $or: [{ lastUsedAt: null }, { lastUsedAt: { $lte: staleBefore } }] }, { lastUsedAt: now });
  }
  const { user } = token;
  return {
    caller: { userId: user.id, tokenId: token.id },
    user: { id: user.id, displayName: user.displayName, email: user.email, photoUrl: user.photoUrl ?? "" },
  };
}

/** The caller's enabled membership with its organization; anything else is "Organization not found". */
async function requireMembership(em: EntityManager, organizationId: string, userId: string): Promise<Member> {
  if (!UUID.test(organizationId)) throw AppError.notFound("Organization");
  const member = await em.findOne(Member, { organization: organizationId, user: userId, disabled: false }, { populate: ["organization"] });
  if (!member) throw AppError.notFound("Organization");
  return member;
}

/** `?page=&limit=&order=`: the list parameters of the benchmarked route. */
function parseListQuery(query: Record<string, unknown>): { pageToken: string; pageSize: number; order: SortDirection } {
  const single = (name: string) => {
    const value = query[name];
    if (Array.isArray(value)) throw AppError.invalidArgument(`${name}: must be given once`);
    return typeof value === "string" ? value : undefined;
  };
  const page = single("page");
  if (page !== undefined && (page.length < 1 || page.length > 2048)) throw AppError.invalidArgument("page: must be 1 to 2048 characters");
  const limitText = single("limit");
  let pageSize = 0;
  if (limitText !== undefined) {
    pageSize = Number(limitText);
    if (!/^\d+$/.test(limitText) || pageSize > 1000) throw AppError.invalidArgument("limit: must be an integer between 0 and 1000");
  }
  const order = single("order") ?? "desc";
  if (order !== "asc" && order !== "desc") throw AppError.invalidArgument('order: must be "asc" or "desc"');
  return { pageToken: page ?? "", pageSize, order };
}

export function createBaselineApp(deps: { orm: MikroORM; urls: BaseUrls; authenticator: TokenAuthenticator; logger: Logger }): Koa<BaselineState> {
  const { orm, urls, authenticator, logger } = deps;
  const app = new Koa<BaselineState>();
  app.silent = true;
  const router = new Router<BaselineState>();

  router.get("/readyz", async (ctx) => {
    await orm.em.fork().getConnection().execute("select 1");
    ctx.body = { status: "ok" };
  });

  const authenticated = async (ctx: BaselineContext, next: () => Promise<unknown>) => {
    ctx.state.principal = await authenticator.authenticate(ctx.get("authorization") || undefined);
    await next();
  };

  router.get("/v1/orgs/:organizationId", authenticated, async (ctx) => {
    const em = orm.em.fork();
    const member = await requireMembership(em, ctx.params.organizationId ?? "", ctx.state.principal?.caller.userId ?? "");
    ctx.body = organizationJson(member.organization, organizationPermissionsFor(member.role ?? null), urls);
  });

  router.get("/v1/orgs/:organizationId/members", authenticated, async (ctx) => {
    const query = parseListQuery(ctx.query);
    const em = orm.em.fork();
    const organizationId = ctx.params.organizationId ?? "";
    await requireMembership(em, organizationId, ctx.state.principal?.caller.userId ?? "");
    const page = await findPage(
      em,
      Member,
      { organization: organizationId },
      { fields: ["joinedAt", "id"], direction: query.order, dateFields: ["joinedAt"] },
      { pageToken: query.pageToken, pageSize: query.pageSize },
      { populate: ["user"] },
    );
    ctx.body = {
      items: page.items.map((member) => memberJson(member, urls)),
      ...(page.nextPageToken ? { next: { page: page.nextPageToken } } : {}),
      count: page.totalCount,
    };
  });

  app.use(async (ctx, next) => {
    const started = performance.now();
    try {
      await next();
    } catch (error) {
      const appError = error instanceof AppError ? error : new AppError("internal", "unexpected error", { cause: error });
      if (appError.code === "internal") logger.error("request failed", { path: ctx.path, err: error });
      ctx.status = HTTP_STATUS_BY_CODE[appError.code];
      if (ctx.status === 401) ctx.set("WWW-Authenticate", 'Bearer realm="imprint"');
      ctx.body = { error: { code: ctx.status, message: publicMessage(appError) } };
    } finally {
      // One access line per request, like the gateway, so both pay the same logging cost.
      logger.info("request", { method: ctx.method, path: ctx.path, status: ctx.status, duration_ms: Math.round((performance.now() - started) * 100) / 100 });
    }
  });
  app.use(router.routes());
  app.use((ctx) => {
    ctx.status = 404;
    ctx.body = { error: { code: 404, message: "Not found" } };
  });
  return app;
}

export async function startBaselineServer(options: BaselineOptions): Promise<BaselineServer> {
  const logger = options.logger ?? createLogger("baseline");
  const now = options.now ?? (() => new Date());
  const orm = await MikroORM.init({
    clientUrl: options.databaseUrl,
    entities: identityEntities,
    pool: { min: 0, max: options.poolMax ?? 10 },
    allowGlobalContext: false,
    ensureDatabase: false,
  });
  const authenticator = new TokenAuthenticator(async (secret) => ({ principal: await resolvePrincipal(orm.em.fork(), secret, now()) }), {
    ttlMs: options.authCacheTtlMs,
  });
  const app = createBaselineApp({ orm, urls: { api: options.publicUrl, app: options.publicUrl }, authenticator, logger });

  const handle = app.callback();
  return listenReference((request, response) => void handle(request, response), {
    name: "baseline",
    host: options.host,
    port: options.port,
    logger,
    release: () => orm.close(),
  });
}
