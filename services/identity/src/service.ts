import { fileURLToPath } from "node:url";
import {
  forkEm,
  resolveKeptSecret,
  safeFetchPolicy,
  SecretBox,
  startService,
  type RunningService,
  type ServiceDeps,
  type ServiceSpec,
  type ServiceStartOptions,
} from "@imprint/runtime";
import { InviteServiceService } from "@imprint/proto/identity/v1/invites";
import { MemberServiceService } from "@imprint/proto/identity/v1/members";
import { OrganizationServiceService } from "@imprint/proto/identity/v1/organizations";
import { OidcServiceService } from "@imprint/proto/identity/v1/oidc";
import { SamlServiceService } from "@imprint/proto/identity/v1/saml";
import { SessionServiceService } from "@imprint/proto/identity/v1/sessions";
import { TeamServiceService } from "@imprint/proto/identity/v1/teams";
import { TokenServiceService } from "@imprint/proto/identity/v1/tokens";
import { UserServiceService } from "@imprint/proto/identity/v1/users";
import { AuditServiceService } from "@imprint/proto/identity/v1/audit";
import type { IdentityConfig } from "./config.js";
import { auditEventConsumers } from "./consumers/audit-events.js";
import type { UseCaseDeps } from "./deps.js";
import { identityEntities } from "./domain/entities.js";
import { IDENTITY_CONTEXT } from "./events.js";
import { AUDIT_SERVICE_NAME, auditServiceImplementation } from "./grpc/audit-service.js";
import { INVITE_SERVICE_NAME, inviteServiceImplementation } from "./grpc/invite-service.js";
import { MEMBER_SERVICE_NAME, memberServiceImplementation } from "./grpc/member-service.js";
import { ORGANIZATION_SERVICE_NAME, organizationServiceImplementation } from "./grpc/organization-service.js";
import { OIDC_SERVICE_NAME, oidcServiceImplementation } from "./grpc/oidc-service.js";
import { SAML_SERVICE_NAME, samlServiceImplementation } from "./grpc/saml-service.js";
import { SESSION_SERVICE_NAME, sessionServiceImplementation } from "./grpc/session-service.js";
import { TEAM_SERVICE_NAME, teamServiceImplementation } from "./grpc/team-service.js";
import { TOKEN_SERVICE_NAME, tokenServiceImplementation } from "./grpc/token-service.js";
import { USER_SERVICE_NAME, userServiceImplementation } from "./grpc/user-service.js";
import { pruneAuditEventsJob } from "./jobs/prune-audit-events.js";
import { sweepExpiredTokensJob } from "./jobs/sweep-expired-tokens.js";
import { bootstrapFirstOrganization } from "./use-cases/organizations/bootstrap.js";

/** Compiled migrations next to this file (dist/migrations; src/migrations under vitest). */
export const IDENTITY_MIGRATIONS_PATH = fileURLToPath(new URL("./migrations", import.meta.url));

async function runBootstrap(config: IdentityConfig, deps: ServiceDeps, useCaseDeps: UseCaseDeps): Promise<void> {
  if (!config.IMPRINT_BOOTSTRAP_TOKEN) return;
  const result = await bootstrapFirstOrganization(
    forkEm(deps.orm),
    { token: config.IMPRINT_BOOTSTRAP_TOKEN, organizationTitle: config.IMPRINT_BOOTSTRAP_ORG_TITLE, ownerEmail: config.IMPRINT_BOOTSTRAP_EMAIL },
    useCaseDeps,
  );
  if (result.created) {
    deps.logger.info("bootstrap: created the first organization", { organizationId: result.organizationId, userId: result.userId });
  }
}

/** How the runtime assembles the identity service; the bootstrap settings come from `config`, `secrets` seals OpenID providers' client secrets. */
export function identityServiceSpec(config: IdentityConfig, secrets: SecretBox): ServiceSpec<UseCaseDeps> {
  return {
    name: "identity",
    context: IDENTITY_CONTEXT,
    entities: identityEntities,
    migrationsPath: IDENTITY_MIGRATIONS_PATH,
    deps: {
      build: (runtime) => ({
        clock: runtime.clock,
        unitOfWork: runtime.unitOfWork,
        auditRetentionDays: config.AUDIT_RETENTION_DAYS,
        lockout: { failures: config.PASSWORD_LOCKOUT_FAILURES, lockMs: config.PASSWORD_LOCKOUT_MS },
        sessions: { idleMs: config.SESSION_IDLE_MS, maxMs: config.SESSION_MAX_MS },
        oidcFetch: safeFetchPolicy(
          { allowPrivateAddresses: config.IMPRINT_ALLOW_PRIVATE_FETCH, service: "identity", dnsServers: config.IMPRINT_FETCH_DNS_SERVERS },
          { maxBodyBytes: 1024 * 1024 },
        ),
        allowHttpIssuers: config.IMPRINT_ALLOW_PRIVATE_FETCH,
        secrets,
      }),
    },
    grpc: (deps, { orm }) => {
      const em = () => forkEm(orm);
      return [
        { name: ORGANIZATION_SERVICE_NAME, definition: OrganizationServiceService, implementation: organizationServiceImplementation(em, deps) },
        { name: USER_SERVICE_NAME, definition: UserServiceService, implementation: userServiceImplementation(em, deps) },
        { name: MEMBER_SERVICE_NAME, definition: MemberServiceService, implementation: memberServiceImplementation(em, deps) },
        { name: INVITE_SERVICE_NAME, definition: InviteServiceService, implementation: inviteServiceImplementation(em, deps) },
        { name: TEAM_SERVICE_NAME, definition: TeamServiceService, implementation: teamServiceImplementation(em, deps) },
        { name: SAML_SERVICE_NAME, definition: SamlServiceService, implementation: samlServiceImplementation(em, deps) },
        { name: OIDC_SERVICE_NAME, definition: OidcServiceService, implementation: oidcServiceImplementation(em, deps) },
        { name: SESSION_SERVICE_NAME, definition: SessionServiceService, implementation: sessionServiceImplementation(em, deps) },
        { name: TOKEN_SERVICE_NAME, definition: TokenServiceService, implementation: tokenServiceImplementation(em, deps) },
        { name: AUDIT_SERVICE_NAME, definition: AuditServiceService, implementation: auditServiceImplementation(em, deps) },
      ];
    },
    // The audit log: identity's own events and every other context's that change access, content, publication or settings.
    consumers: (deps) => auditEventConsumers(deps),
    jobs: (deps, { orm }) => [sweepExpiredTokensJob(orm, deps, config.TOKEN_SWEEP_INTERVAL_MS), pruneAuditEventsJob(orm, deps, config.AUDIT_PRUNE_INTERVAL_MS)],
    onStarted: (deps, runtime) => runBootstrap(config, runtime, deps),
  };
}

export async function startIdentityService(config: IdentityConfig, options: ServiceStartOptions = {}): Promise<RunningService> {
  const secretsKey = await resolveKeptSecret({
    configured: config.IDENTITY_SECRETS_KEY,
    dataDir: config.IMPRINT_DATA_DIR,
    fileName: "identity-secrets-key",
    service: "identity",
    setting: "IDENTITY_SECRETS_KEY",
  });
  return startService(identityServiceSpec(config, new SecretBox(secretsKey)), config, options);
}
