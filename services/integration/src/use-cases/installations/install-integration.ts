import { randomUUID } from "node:crypto";
import type { EntityManager } from "@mikro-orm/postgresql";
import { AppError, isId, requireCaller, type CallerInput, recordEvent } from "@imprint/runtime";
import type { UseCaseDeps } from "../../deps.js";
import { Installation, statusFor } from "../../domain/installation.js";
import { newSigningSecret, type Integration } from "../../domain/integration.js";
import { installationSetupEvent } from "../../domain/platform/events.js";
import { installationCreated } from "../../events.js";
import { requireOrganizationRole } from "../shared/access.js";
import { missesRequired } from "../shared/configuration.js";
import { recordDelivery, wakeDelivery } from "../shared/deliveries.js";
import { findVisibleIntegration } from "../shared/integrations.js";
import { createOrFindWinner } from "../shared/races.js";

/**
 * Installs an integration on an organization (GitBook's account installation): the caller
 * administers that organization, and a private integration installs only in its owner's. It starts
 * `pending` while a required account configuration property is unset. Installing twice answers the
 * existing installation, also to a
 * request racing the one that created it. The integration hears `installation_setup`.
 */
export async function installIntegration(
  em: EntityManager,
  input: { caller: CallerInput | undefined; name: string; organizationId: string },
  deps: UseCaseDeps,
): Promise<{ integration: Integration; installation: Installation; created: boolean }> {
  const caller = requireCaller(input.caller);
  const { integration } = await findVisibleIntegration(em, deps, caller, input.name);
  if (!isId(input.organizationId)) throw AppError.notFound("Organization");
  await requireOrganizationRole(deps, caller, input.organizationId, "admin", "install integrations");
  if (integration.visibility === "private" && integration.ownerOrganizationId !== input.organizationId) {
    throw AppError.permissionDenied(`organization: ${integration.name} is private to the organization that publishes it`);
  }
  const existing = await em.findOne(Installation, { integrationId: integration.id, organizationId: input.organizationId });
  if (existing) return { integration, installation: existing, created: false };

  const { value: installation, created } = await createOrFindWinner(
    () =>
      deps.unitOfWork.run(em, async (tx) => {
        const now = deps.clock();
        const status = statusFor(missesRequired(integration, "account", {}));
        const created = tx.create(Installation, {
          id: randomUUID(),
          integrationId: integration.id,
          organizationId: input.organizationId,
          status,
          configuration: {},
          externalIds: [],
          spaceSelection: "selected",
          siteSelection: "selected",
          signingSecret: newSigningSecret(),
          createdAt: now,
          updatedAt: now,
        });
        recordEvent(tx, installationCreated, {
          organizationId: input.organizationId,
          actor: caller,
          payload: { installationId: created.id, integrationName: integration.name, status },
        });
        recordDelivery(tx, deps, {
          integrationId: integration.id,
          installationId: created.id,
          organizationId: input.organizationId,
          targetInstallationId: null,
          type: "installation_setup",
          payload: (eventId) => installationSetupEvent({ eventId, installationId: created.id, status }),
          sourceKey: `installation.created:${created.id}`,
        });
        return created;
      }),
    () => em.fork().findOne(Installation, { integrationId: integration.id, organizationId: input.organizationId }),
  );
  if (created) {
    deps.renderLookups.forget(integration.name);
    wakeDelivery(deps);
  }
  return { integration, installation, created };
}
