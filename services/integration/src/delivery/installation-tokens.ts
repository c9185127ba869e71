import { MemberRole, type IdentityServiceService } from "@imprint/proto/identity/v1";
import type { Clock, PromiseClient } from "@imprint/runtime";
import type { Integration } from "../domain/integration.js";

/**
 * The role an installation token acts with: editing when the integration asks for a write scope,
 * reading otherwise. Identity's roles are the one permission model every service checks, so
 * scopes map onto them rather than being checked a second way.
 */
export function roleForScopes(scopes: readonly string[]): MemberRole {
  return scopes.some((scope) => scope.endsWith(":write")) ? MemberRole.MEMBER_ROLE_EDIT : MemberRole.MEMBER_ROLE_READ;
}

interface CachedToken {
  token: string;
  expiresAt: number;
  role: MemberRole;
}

/**
 * Installation tokens reused across script calls until half their lifetime is gone, so a render
 * or an event does not cost identity a token each time. Keyed by the principal (an installation,
 * or the integration itself in its owner organization).
 */
export class InstallationTokens {
  private readonly tokens = new Map<string, CachedToken>();

  constructor(
    private readonly identity: PromiseClient<typeof IdentityServiceService>,
    private readonly clock: Clock,
    private readonly ttlSeconds: number,
  ) {}

  async tokenFor(principal: { id: string; organizationId: string; integration: Pick<Integration, "name" | "title" | "scopes"> }): Promise<{ token: string; expiresAt: Date }> {
    const now = this.clock().getTime();
    const role = roleForScopes(principal.integration.scopes);
    const cached = this.tokens.get(principal.id);
    const ttlMs = this.ttlSeconds * 1000;
    if (cached && cached.role === role && cached.expiresAt - now > ttlMs / 2) return { token: cached.token, expiresAt: new Date(cached.expiresAt) };
    const issued = await this.identity.issueInstallationToken({
      organizationId: principal.organizationId,
      installationId: principal.id,
      integrationName: principal.integration.name,
      integrationTitle: principal.integration.title,
      role,
      ttlSeconds: this.ttlSeconds,
    });
    const expiresAt = issued.expiresAt ?? new Date(now + ttlMs);
    if (this.tokens.size > 10_000) this.tokens.delete(this.tokens.keys().next().value as string);
    this.tokens.set(principal.id, { token: issued.token, expiresAt: expiresAt.getTime(), role });
    return { token: issued.token, expiresAt };
  }

  /** Forgets an installation's token (it was uninstalled; identity revoked it). */
  forget(principalId: string): void {
    this.tokens.delete(principalId);
  }
}

