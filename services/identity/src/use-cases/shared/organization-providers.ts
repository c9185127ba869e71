import type { EntityClass, EntityManager, FilterQuery } from "@mikro-orm/postgresql";
import { findPage, type Page, type PageRequestLike } from "@imprint/runtime";

/** An organization's sign-in providers of one kind (SAML, OpenID Connect), oldest first: what admins list. */
export function listOrganizationProviders<Provider extends { id: string; createdAt: Date }>(
  em: EntityManager,
  entity: EntityClass<Provider>,
  organizationId: string,
  page: PageRequestLike | undefined,
): Promise<Page<Provider>> {
  return findPage(
    em,
    entity,
    { organization: organizationId } as FilterQuery<Provider>,
    { fields: ["createdAt", "id"], direction: "asc", dateFields: ["createdAt"] },
    page,
  );
}
