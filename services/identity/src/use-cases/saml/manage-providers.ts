import { type EntityManager } from "@mikro-orm/postgresql";
import { AppError, findOwned, findOwnedOrNull, type PageRequestLike, parseUpdateMask, recordEvent } from "@imprint/runtime";
import type { MemberRoleValue } from "../../domain/roles.js";
import { checkCertificate, checkEntityId, checkLabel, checkSsoUrl, SamlProvider } from "../../domain/saml-provider.js";
import { Team } from "../../domain/team.js";
import { samlProviderCreated, samlProviderDeleted, samlProviderUpdated } from "../../events.js";
import { requireMembership } from "../shared/access.js";
import { listOrganizationProviders } from "../shared/organization-providers.js";
import { isId, requireCaller } from "../shared/validation.js";
import type { CallerInput, UseCaseDeps } from "../../deps.js";
import { idOf } from "../shared/queries.js";
import { listOidcSignInProviders } from "../oidc/manage-providers.js";

/** A provider's settings as a request gives them; undefined: not given (an update leaves it). */
export interface SamlProviderValues {
  label?: string;
  entityId?: string;
  ssoUrl?: string;
  certificate?: string;
  /** "" for none. */
  defaultTeamId?: string;
  /** null for guests; "organization" for the organization's default role. */
  defaultRole?: MemberRoleValue | "organization";
  groupsAttribute?: string;
}

/** REST names of the settings, for events and errors. */
const REST_NAMES: Record<keyof SamlProviderValues, string> = {
  label: "label",
  entityId: "entityID",
  ssoUrl: "ssoURL",
  certificate: "certificate",
  defaultTeamId: "defaultTeam",
  defaultRole: "defaultRole",
  groupsAttribute: "groupsAttribute",
};

async function requireAdmin(em: EntityManager, organizationId: string, caller: CallerInput) {
  // Admins may always act, SSO or not (they must be able to fix a broken provider).
  const member = await requireMembership(em, organizationId, caller.userId);
  member.requireAdmin("manage single sign-on");
  return member;
}

function findProvider(em: EntityManager, organizationId: string, providerId: string): Promise<SamlProvider> {
  return findOwned(em, SamlProvider, { organization: organizationId }, providerId, { name: "SAML provider" });
}

/** Checks the given values and applies them; answers the REST names of what changed. */
async function applyValues(
  em: EntityManager,
  provider: SamlProvider,
  organizationId: string,
  values: SamlProviderValues,
  now: Date,
  defaultRoleOfOrganization: MemberRoleValue,
): Promise<string[]> {
  const next: Partial<Record<keyof SamlProviderValues, unknown>> = {};
  if (values.label !== undefined) next.label = checkLabel(values.label);
  if (values.entityId !== undefined) next.entityId = checkEntityId(values.entityId);
  if (values.ssoUrl !== undefined) next.ssoUrl = checkSsoUrl(values.ssoUrl);
  if (values.certificate !== undefined) next.certificate = checkCertificate(values.certificate, now);
  if (values.defaultTeamId !== undefined) {
    if (values.defaultTeamId === "") next.defaultTeamId = null;
    else {
      const team = isId(values.defaultTeamId) ? await em.findOne(Team, { id: values.defaultTeamId, organization: organizationId }) : null;
      if (!team) throw AppError.invalidArgument("defaultTeam: must be a team of the organization");
      next.defaultTeamId = team.id;
    }
  }
  if (values.defaultRole !== undefined) next.defaultRole = values.defaultRole === "organization" ? defaultRoleOfOrganization : values.defaultRole;
  if (values.groupsAttribute !== undefined) {
    const name = values.groupsAttribute.trim() || "groups";
    if (name.length > 255) throw AppError.invalidArgument("groupsAttribute: must be at most 255 characters");
    next.groupsAttribute = name;
  }
  const changed: string[] = [];
  const current: Record<keyof SamlProviderValues, unknown> = {
    label: provider.label,
    entityId: provider.entityId,
    ssoUrl: provider.ssoUrl,
    certificate: provider.certificate,
    defaultTeamId: provider.defaultTeam ? idOf(provider.defaultTeam) : null,
    defaultRole: provider.defaultRole ?? null,
    groupsAttribute: provider.groupsAttribute,
  };
  for (const [key, value] of Object.entries(next) as [keyof SamlProviderValues, unknown][]) {
    if (current[key] === value) continue;
    changed.push(REST_NAMES[key]);
    if (key === "defaultTeamId") provider.defaultTeam = value === null ? null : em.getReference(Team, value as string);
    else Object.assign(provider, { [key]: value });
  }
  return changed;
}

/** The organization's SAML providers, oldest first (admins only). */
export async function listSamlProviders(
  em: EntityManager,
  input: { caller: CallerInput | undefined; organizationId: string; page: PageRequestLike | undefined },
  _deps: UseCaseDeps,
): Promise<{ items: SamlProvider[]; nextPageToken: string; totalCount: number }> {
  await requireAdmin(em, input.organizationId, requireCaller(input.caller));
  return listOrganizationProviders(em, SamlProvider, input.organizationId, input.page);
}

/** Adds a provider (admins only): label, entity ID, https sign-in URL and a valid certificate are required. */
export async function createSamlProvider(
  em: EntityManager,
  input: { caller: CallerInput | undefined; organizationId: string; values: SamlProviderValues },
  deps: UseCaseDeps,
): Promise<SamlProvider> {
  const caller = requireCaller(input.caller);
  for (const key of ["label", "entityId", "ssoUrl", "certificate"] as const) {
    if (!input.values[key]?.trim()) throw AppError.invalidArgument(`${REST_NAMES[key]}: is required`);
  }
  return deps.unitOfWork.run(em, async (tx) => {
    const member = await requireAdmin(tx, input.organizationId, caller);
    const provider = tx.create(SamlProvider, {
      organization: input.organizationId,
      label: "",
      entityId: "",
      ssoUrl: "",
      certificate: "",
      defaultTeam: null,
      defaultRole: null,
      groupsAttribute: "groups",
      status: "pending",
      createdAt: deps.clock(),
    });
    const organizationDefault = (member.organization as { defaultRole?: MemberRoleValue }).defaultRole ?? "read";
    await applyValues(tx, provider, input.organizationId, { defaultRole: "organization", ...input.values }, deps.clock(), organizationDefault);
    recordEvent(tx, samlProviderCreated, { organizationId: input.organizationId, actor: caller, payload: { providerId: provider.id, label: provider.label } });
    return provider;
  });
}

export async function getSamlProvider(
  em: EntityManager,
  input: { caller: CallerInput | undefined; organizationId: string; providerId: string },
  _deps: UseCaseDeps,
): Promise<SamlProvider> {
  await requireAdmin(em, input.organizationId, requireCaller(input.caller));
  return findProvider(em, input.organizationId, input.providerId);
}

/** The update mask's paths of a provider's settings, by the setting they name. */
const UPDATABLE_FIELDS = {
  label: "label",
  entity_id: "entityId",
  sso_url: "ssoUrl",
  certificate: "certificate",
  default_team_id: "defaultTeamId",
  default_role: "defaultRole",
  groups_attribute: "groupsAttribute",
} as const satisfies Record<string, keyof SamlProviderValues>;

/**
 * Changes the settings of a provider its update mask names (admins only), checked as at creation;
 * an empty mask changes nothing. `values` holds every setting of the request (a default role that
 * is no role is undefined: refused only when the mask names it).
 */
export async function updateSamlProvider(
  em: EntityManager,
  input: { caller: CallerInput | undefined; organizationId: string; providerId: string; updateMask: string[]; values: SamlProviderValues },
  deps: UseCaseDeps,
): Promise<SamlProvider> {
  const caller = requireCaller(input.caller);
  const fields = parseUpdateMask(input.updateMask, Object.keys(UPDATABLE_FIELDS) as (keyof typeof UPDATABLE_FIELDS)[], { emptyMeans: "no_field_changes" });
  const values: SamlProviderValues = {};
  for (const field of fields) Object.assign(values, { [UPDATABLE_FIELDS[field]]: input.values[UPDATABLE_FIELDS[field]] });
  if (fields.has("default_role") && values.defaultRole === undefined) throw AppError.invalidArgument("defaultRole: must be a role or null");
  return deps.unitOfWork.run(em, async (tx) => {
    const member = await requireAdmin(tx, input.organizationId, caller);
    const provider = await findProvider(tx, input.organizationId, input.providerId);
    const organizationDefault = (member.organization as { defaultRole?: MemberRoleValue }).defaultRole ?? "read";
    const changed = await applyValues(tx, provider, input.organizationId, values, deps.clock(), organizationDefault);
    if (changed.length > 0)
      recordEvent(tx, samlProviderUpdated, {
        organizationId: input.organizationId,
        actor: caller,
        payload: { providerId: provider.id, changedFields: changed },
      });
    return provider;
  });
}

/** Removes a provider (admins only); `deleted` is false when there was none. Tokens issued through it keep their short life. */
export async function deleteSamlProvider(
  em: EntityManager,
  input: { caller: CallerInput | undefined; organizationId: string; providerId: string },
  deps: UseCaseDeps,
): Promise<{ deleted: boolean }> {
  const caller = requireCaller(input.caller);
  return deps.unitOfWork.run(em, async (tx) => {
    await requireAdmin(tx, input.organizationId, caller);
    // Locked until the commit: the same request sent twice at once deletes once, then finds nothing.
    const provider = await findOwnedOrNull(tx, SamlProvider, { organization: input.organizationId }, input.providerId, { lock: true });
    if (!provider) return { deleted: false };
    recordEvent(tx, samlProviderDeleted, { organizationId: input.organizationId, actor: caller, payload: { providerId: provider.id } });
    tx.remove(provider);
    return { deleted: true };
  });
}

/**
 * The providers a sign-in page of the organization offers (no caller: it is shown before signing
 * in): its SAML providers, then its OpenID providers, each oldest first.
 */
export async function listSsoProviders(
  em: EntityManager,
  input: { organizationId: string },
  _deps: UseCaseDeps,
): Promise<{ id: string; label: string; protocol: "saml" | "oidc" }[]> {
  if (!isId(input.organizationId)) return [];
  const providers = await em.find(
    SamlProvider,
    { organization: input.organizationId },
    { orderBy: { createdAt: "asc", id: "asc" }, fields: ["id", "label", "createdAt"] },
  );
  const openId = await listOidcSignInProviders(em, input.organizationId);
  return [
    ...providers.map((provider) => ({ id: provider.id, label: provider.label, protocol: "saml" as const })),
    ...openId.map((provider) => ({ ...provider, protocol: "oidc" as const })),
  ];
}
