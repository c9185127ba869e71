import { type EntityManager } from "@mikro-orm/postgresql";
import { AppError, findOwned, findOwnedOrNull, type PageRequestLike, parseUpdateMask, recordEvent, requireFetchTarget } from "@imprint/runtime";
import { checkClientId, checkClientSecret, checkIssuer, checkOidcLabel, OidcProvider } from "../../domain/oidc-provider.js";
import { oidcProviderCreated, oidcProviderDeleted, oidcProviderUpdated } from "../../events.js";
import { requireMembership } from "../shared/access.js";
import { listOrganizationProviders } from "../shared/organization-providers.js";
import { isId, requireCaller } from "../shared/validation.js";
import type { CallerInput, UseCaseDeps } from "../../deps.js";

/** A provider's settings as a request gives them; undefined: not given (an update leaves it). */
export interface OidcProviderValues {
  label?: string;
  issuer?: string;
  clientId?: string;
  clientSecret?: string;
}

async function requireAdmin(em: EntityManager, organizationId: string, caller: CallerInput) {
  const member = await requireMembership(em, organizationId, caller.userId);
  member.requireAdmin("manage OpenID Connect providers");
  return member;
}

function findProvider(em: EntityManager, organizationId: string, providerId: string): Promise<OidcProvider> {
  return findOwned(em, OidcProvider, { organization: organizationId }, providerId, { name: "OpenID provider" });
}

/** Checks the given values (the issuer's host under the fetch policy too) before anything is written. */
async function checkValues(values: OidcProviderValues, deps: UseCaseDeps): Promise<OidcProviderValues> {
  const checked: OidcProviderValues = {};
  if (values.label !== undefined) checked.label = checkOidcLabel(values.label);
  if (values.issuer !== undefined) {
    checked.issuer = checkIssuer(values.issuer, deps.allowHttpIssuers);
    await requireFetchTarget(checked.issuer, deps.oidcFetch, "issuer");
  }
  if (values.clientId !== undefined) checked.clientId = checkClientId(values.clientId);
  if (values.clientSecret !== undefined) checked.clientSecret = checkClientSecret(values.clientSecret);
  return checked;
}

/** The organization's OpenID providers, oldest first (admins only). */
export async function listOidcProviders(
  em: EntityManager,
  input: { caller: CallerInput | undefined; organizationId: string; page: PageRequestLike | undefined },
  _deps: UseCaseDeps,
): Promise<{ items: OidcProvider[]; nextPageToken: string; totalCount: number }> {
  await requireAdmin(em, input.organizationId, requireCaller(input.caller));
  return listOrganizationProviders(em, OidcProvider, input.organizationId, input.page);
}

/** Adds a provider (admins only): label, issuer, client ID and client secret are required. */
export async function createOidcProvider(
  em: EntityManager,
  input: { caller: CallerInput | undefined; organizationId: string; values: OidcProviderValues },
  deps: UseCaseDeps,
): Promise<OidcProvider> {
  const caller = requireCaller(input.caller);
  await requireAdmin(em, input.organizationId, caller);
  for (const key of ["label", "issuer", "clientId", "clientSecret"] as const) {
    if (!input.values[key]?.trim()) throw AppError.invalidArgument(`${key}: is required`);
  }
  const values = await checkValues(input.values, deps);
  return deps.unitOfWork.run(em, async (tx) => {
    await requireAdmin(tx, input.organizationId, caller);
    const id = crypto.randomUUID();
    const provider = tx.create(OidcProvider, {
      id,
      organization: input.organizationId,
      label: values.label!,
      issuer: values.issuer!,
      clientId: values.clientId!,
      // Sealed with the provider's id as associated data.
      secretsCiphertext: deps.secrets.seal(id, { clientSecret: values.clientSecret! }),
      createdAt: deps.clock(),
    });
    recordEvent(tx, oidcProviderCreated, { organizationId: input.organizationId, actor: caller, payload: { providerId: provider.id, label: provider.label } });
    return provider;
  });
}

export async function getOidcProvider(
  em: EntityManager,
  input: { caller: CallerInput | undefined; organizationId: string; providerId: string },
  _deps: UseCaseDeps,
): Promise<OidcProvider> {
  await requireAdmin(em, input.organizationId, requireCaller(input.caller));
  return findProvider(em, input.organizationId, input.providerId);
}

/** The update mask's paths, by the setting they name. */
const UPDATABLE_FIELDS = {
  label: "label",
  issuer: "issuer",
  client_id: "clientId",
  client_secret: "clientSecret",
} as const satisfies Record<string, keyof OidcProviderValues>;

/** Changes the settings its update mask names (admins only), checked as at creation; an empty mask changes nothing. */
export async function updateOidcProvider(
  em: EntityManager,
  input: { caller: CallerInput | undefined; organizationId: string; providerId: string; updateMask: string[]; values: OidcProviderValues },
  deps: UseCaseDeps,
): Promise<OidcProvider> {
  const caller = requireCaller(input.caller);
  await requireAdmin(em, input.organizationId, caller);
  const fields = parseUpdateMask(input.updateMask, Object.keys(UPDATABLE_FIELDS) as (keyof typeof UPDATABLE_FIELDS)[], { emptyMeans: "no_field_changes" });
  const given: OidcProviderValues = {};
  for (const field of fields) given[UPDATABLE_FIELDS[field]] = input.values[UPDATABLE_FIELDS[field]] ?? "";
  const values = await checkValues(given, deps);
  return deps.unitOfWork.run(em, async (tx) => {
    await requireAdmin(tx, input.organizationId, caller);
    const provider = await findProvider(tx, input.organizationId, input.providerId);
    const current: Record<keyof OidcProviderValues, string> = {
      label: provider.label,
      issuer: provider.issuer,
      clientId: provider.clientId,
      clientSecret: values.clientSecret === undefined ? "" : provider.clientSecret(deps.secrets),
    };
    const changed = (Object.keys(values) as (keyof OidcProviderValues)[]).filter((key) => current[key] !== values[key]);
    const { clientSecret, ...plain } = values;
    Object.assign(provider, plain);
    if (clientSecret !== undefined) provider.setClientSecret(deps.secrets, clientSecret);
    if (changed.length > 0) {
      recordEvent(tx, oidcProviderUpdated, {
        organizationId: input.organizationId,
        actor: caller,
        payload: { providerId: provider.id, changedFields: changed },
      });
    }
    return provider;
  });
}

/** Removes a provider (admins only); `deleted` is false when there was none. Sessions signed in through it keep going. */
export async function deleteOidcProvider(
  em: EntityManager,
  input: { caller: CallerInput | undefined; organizationId: string; providerId: string },
  deps: UseCaseDeps,
): Promise<{ deleted: boolean }> {
  const caller = requireCaller(input.caller);
  return deps.unitOfWork.run(em, async (tx) => {
    await requireAdmin(tx, input.organizationId, caller);
    const provider = await findOwnedOrNull(tx, OidcProvider, { organization: input.organizationId }, input.providerId, { lock: true });
    if (!provider) return { deleted: false };
    recordEvent(tx, oidcProviderDeleted, { organizationId: input.organizationId, actor: caller, payload: { providerId: provider.id } });
    tx.remove(provider);
    return { deleted: true };
  });
}

/** The OpenID providers a sign-in page of the organization offers (no caller), oldest first. */
export async function listOidcSignInProviders(em: EntityManager, organizationId: string): Promise<{ id: string; label: string }[]> {
  if (!isId(organizationId)) return [];
  const providers = await em.find(
    OidcProvider,
    { organization: organizationId },
    { orderBy: { createdAt: "asc", id: "asc" }, fields: ["id", "label", "createdAt"] },
  );
  return providers.map((provider) => ({ id: provider.id, label: provider.label }));
}
