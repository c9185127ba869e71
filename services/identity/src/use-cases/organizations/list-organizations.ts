import type { EntityManager } from "@mikro-orm/postgresql";
import { findPage, type PageRequestLike } from "@imprint/runtime";
import { Member } from "../../domain/member.js";
import { organizationPermissionsFor } from "../../domain/permissions.js";
import type { OrganizationView } from "../shared/views.js";
import { requireCaller } from "../shared/validation.js";
import type { CallerInput, UseCaseDeps } from "../../deps.js";

export interface ListOrganizationsInput {
  caller: CallerInput | undefined;
  page: PageRequestLike | undefined;
}

/** The caller's organizations, in the order they joined them. */
export async function listOrganizations(
  em: EntityManager,
  input: ListOrganizationsInput,
  _deps: UseCaseDeps,
): Promise<{ items: OrganizationView[]; nextPageToken: string; totalCount: number }> {
  const caller = requireCaller(input.caller);
  const page = await findPage(
    em,
    Member,
    { user: caller.userId, disabled: false },
    { fields: ["joinedAt", "id"], direction: "asc", dateFields: ["joinedAt"] },
    input.page,
    { populate: ["organization"] },
  );
  return {
    items: page.items.map((member) => ({ organization: member.organization, permissions: organizationPermissionsFor(member.role) })),
    nextPageToken: page.nextPageToken,
    totalCount: page.totalCount,
  };
}
