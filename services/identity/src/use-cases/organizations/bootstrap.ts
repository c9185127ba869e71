import type { EntityManager } from "@mikro-orm/postgresql";
import { executeStatement, sql } from "@imprint/runtime";
import { Organization } from "../../domain/organization.js";
import { validateChosenSecret } from "../../domain/tokens.js";
import { createOrganizationIn } from "../shared/organizations.js";
import { displayNameOrDefault, normalizeEmail, validateTitle } from "../shared/validation.js";
import type { UseCaseDeps } from "../../deps.js";

export interface BootstrapInput {
  token: string;
  organizationTitle: string;
  ownerEmail: string;
}

/** Any constant works; it only has to be the same for every replica of the identity service. */
const BOOTSTRAP_LOCK_KEY = 7_236_891_401;

/**
 * First run: when there is no organization at all, creates one with an admin owner whose token
 * is the operator's chosen secret. A transaction-scoped advisory lock serializes replicas that
 * start together; the later ones then see the organization and do nothing.
 */
export async function bootstrapFirstOrganization(
  em: EntityManager,
  input: BootstrapInput,
  deps: UseCaseDeps,
): Promise<{ created: false } | { created: true; organizationId: string; userId: string }> {
  const title = validateTitle("IMPRINT_BOOTSTRAP_ORG_TITLE", input.organizationTitle);
  const ownerEmail = normalizeEmail("IMPRINT_BOOTSTRAP_EMAIL", input.ownerEmail);
  const token = validateChosenSecret("IMPRINT_BOOTSTRAP_TOKEN", input.token);
  const result = await deps.unitOfWork.run(em, async (tx) => {
    await executeStatement(tx, sql`select pg_advisory_xact_lock(${BOOTSTRAP_LOCK_KEY})`);
    if ((await tx.count(Organization, {})) > 0) return { created: false as const };
    const created = await createOrganizationIn(
      tx,
      { title, ownerEmail, ownerDisplayName: displayNameOrDefault("IMPRINT_BOOTSTRAP_EMAIL", "", ownerEmail), ownerToken: token },
      deps,
    );
    return { created: true as const, organizationId: created.organization.id, userId: created.userId };
  });
  return result;
}
