import { randomUUID } from "node:crypto";
import type { EntityManager } from "@mikro-orm/postgresql";
import { AppError, findByKey, isId, requireCaller, type CallerInput, recordEvent } from "@imprint/runtime";
import type { UseCaseDeps } from "../../deps.js";
import { ICON_MAX_BYTES, IntegrationAsset, imageType, PREVIEW_MAX_BYTES } from "../../domain/asset.js";
import { checkDeclaration, checkName, checkScript, checkSecrets, Integration, LIMITS, newSigningSecret } from "../../domain/integration.js";
import { checkDeclaredConfigurations } from "../../domain/platform/configuration.js";
import { checkDeclaredParts } from "../../domain/declaration.js";
import { integrationPublished } from "../../events.js";
import { callerMessage, requireOrganizationRole } from "../shared/access.js";
import { parseJsonField } from "../shared/json.js";
import { againIfLostInsertRace } from "../shared/races.js";

export interface PublishIntegrationInput {
  caller: CallerInput | undefined;
  name: string;
  organization: string;
  runtime: string;
  title: string;
  description: string;
  summary: string | null;
  visibility: string;
  target: string;
  scopes: string[];
  categories: string[];
  blocksJson: string;
  contentSourcesJson: string;
  externalLinksJson: string;
  configurationsJson: string;
  script: string;
  secrets: Record<string, string>;
  contentSecurityPolicy: string | null;
  icon: Uint8Array | null;
  /** null: keep the current previews. */
  previewImages: Uint8Array[] | null;
}

/** The organization named by id, or by its hostname (GitBook's "subdomain") among the caller's organizations. */
async function resolveOrganization(deps: Pick<UseCaseDeps, "identity">, caller: CallerInput, organization: string): Promise<string> {
  if (isId(organization)) return organization;
  const { organizations } = await deps.identity.organizations.listOrganizations({ caller: callerMessage(caller), page: { pageToken: "", pageSize: 1000 } });
  const wanted = (organization as string).toLowerCase();
  const found = organizations.find((candidate) => candidate.hostname !== "" && candidate.hostname.toLowerCase() === wanted);
  if (!found) throw AppError.notFound("Organization");
  return found.id;
}

/**
 * Publishes an integration or a new version of it: the caller administers the publishing
 * organization (which owns it from the first publication on); everything it declares is checked
 * against GitBook's limits and schemas; its secrets are sealed; its images stored; `version` counts up.
 */
export async function publishIntegration(em: EntityManager, input: PublishIntegrationInput, deps: UseCaseDeps): Promise<Integration> {
  const caller = requireCaller(input.caller);
  const name = checkName(input.name);
  if (!input.organization) throw AppError.invalidArgument("organization: is required");
  const organizationId = await resolveOrganization(deps, caller, input.organization);
  await requireOrganizationRole(deps, caller, organizationId, "admin", "publish integrations");

  const declaration = checkDeclaration(input);
  const script = checkScript(input.script);
  const secrets = checkSecrets(input.secrets);
  const parts = checkDeclaredParts({
    blocks: parseJsonField<unknown>("blocks", input.blocksJson, []),
    contentSources: parseJsonField<unknown>("contentSources", input.contentSourcesJson, []),
    externalLinks: parseJsonField<unknown>("externalLinks", input.externalLinksJson, []),
  });
  const configurations = checkDeclaredConfigurations(parseJsonField<unknown>("configurations", input.configurationsJson, {}));
  const iconType = input.icon ? imageType("icon", input.icon, ICON_MAX_BYTES) : null;
  if (input.previewImages && input.previewImages.length > LIMITS.previewImages)
    throw AppError.invalidArgument(`previewImages: must have at most ${LIMITS.previewImages} images`);
  const previewTypes = input.previewImages?.map((image, index) => imageType(`previewImages[${index}]`, image, PREVIEW_MAX_BYTES)) ?? null;

  // Published twice at once, the first publication creates the integration and the other is its next version.
  const published = await againIfLostInsertRace(() =>
    deps.unitOfWork.run(em, async (tx) => {
      const now = deps.clock();
      let integration = await findByKey(tx, Integration, { name }, { lock: true });
      if (integration && integration.ownerOrganizationId !== organizationId) {
        throw new AppError("already_exists", `integrationName: ${name} is published by another organization`);
      }
      if (!integration) {
        integration = tx.create(Integration, {
          id: randomUUID(),
          name,
          ownerOrganizationId: organizationId,
          version: 0,
          signingSecret: newSigningSecret(),
          previewAssetIds: [],
          secretNames: [],
          secretsCiphertext: null,
          iconAssetId: null,
          devTunnelUrl: null,
          devAll: false,
          createdAt: now,
          updatedAt: now,
          ...declaration,
          ...parts,
          configurations,
          script,
        });
      }
      Object.assign(integration, declaration, parts, { configurations, script, updatedAt: now, version: integration.version + 1 });
      if (Object.keys(secrets).length > 0) {
        integration.secretsCiphertext = deps.secrets.seal(integration.id, secrets);
        integration.secretNames = Object.keys(secrets).sort();
      }
      if (input.icon && iconType) {
        if (integration.iconAssetId) tx.remove(tx.getReference(IntegrationAsset, integration.iconAssetId));
        const icon = tx.create(IntegrationAsset, {
          id: randomUUID(),
          integrationId: integration.id,
          contentType: iconType,
          content: Buffer.from(input.icon),
          createdAt: now,
        });
        integration.iconAssetId = icon.id;
      }
      if (input.previewImages && previewTypes) {
        for (const id of integration.previewAssetIds) tx.remove(tx.getReference(IntegrationAsset, id));
        integration.previewAssetIds = input.previewImages.map((image, index) => {
          const asset = tx.create(IntegrationAsset, {
            id: randomUUID(),
            integrationId: integration.id,
            contentType: previewTypes[index] ?? "image/png",
            content: Buffer.from(image),
            createdAt: now,
          });
          return asset.id;
        });
      }
      recordEvent(tx, integrationPublished, {
        organizationId,
        actor: caller,
        payload: { integrationId: integration.id, name, version: integration.version, ownerOrganizationId: organizationId },
      });
      return integration;
    }),
  );
  deps.renderLookups.forget(name);
  return published;
}
