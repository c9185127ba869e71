import { MemberRole } from "@imprint/proto/identity/v1";
import { AppError, type Clock, type IdentityClients } from "@imprint/runtime";
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
  private readonly issuing = new Map<string, Promise<{ token: string; expiresAt: Date }>>();

  constructor(
    private readonly identity: IdentityClients,
    private readonly clock: Clock,
    private readonly ttlSeconds: number,
  ) {}

  async tokenFor(principal: { id: string; organizationId: string; integration: Pick<Integration, "name" | "title" | "scopes"> }): Promise<{ token: string; expiresAt: Date }> {
    const role = roleForScopes(principal.integration.scopes);
    const cached = this.tokens.get(principal.id);
    if (cached && cached.role === role && cached.expiresAt - this.clock().getTime() > (this.ttlSeconds * 1000) / 2) return { token: cached.token, expiresAt: new Date(cached.expiresAt) };
    // Calls for one principal at once share one issue: identity creates a principal once, and a
    // second concurrent first issue would be refused as a conflict.
    const key = `${principal.id}/${role}`;
    let issuing = this.issuing.get(key);
    if (!issuing) {
      issuing = this.issue(principal, role).finally(() => this.issuing.delete(key));
      this.issuing.set(key, issuing);
    }
    return issuing;
  }

  /** A new token (kept for later calls too), for callers that want their own (GitBook's installation token endpoint). */
  async issue(principal: { id: string; organizationId: string; integration: Pick<Integration, "name" | "title"> }, role: MemberRole): Promise<{ token: string; expiresAt: Date }> {
    const request = {
      organizationId: principal.organizationId,
      installationId: principal.id,
      integrationName: principal.integration.name,
      integrationTitle: principal.integration.title,
      role,
      ttlSeconds: this.ttlSeconds,
    };
    let issued;
    try {
      issued = await this.identity.tokens.issueInstallationToken(request);
    } catch (error) {
      // Another replica created the principal at the same moment: it exists now.
      if (!(error instanceof AppError && error.code === "conflict")) throw error;
      issued = await this.identity.tokens.issueInstallationToken(request);
    }
    const expiresAt = issued.expiresAt ?? new Date(this.clock().getTime() + this.ttlSeconds * 1000);
    if (this.tokens.size > 10_000) this.tokens.delete(this.tokens.keys().next().value as string);
    this.tokens.set(principal.id, { token: issued.token, expiresAt: expiresAt.getTime(), role });
    return { token: issued.token, expiresAt };
  }

  /** Forgets an installation's token (it was uninstalled; identity revoked it). */
  forget(principalId: string): void {
    this.tokens.delete(principalId);
  }
}

