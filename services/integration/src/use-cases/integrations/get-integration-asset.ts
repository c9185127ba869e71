import type { EntityManager } from "@mikro-orm/postgresql";
import { AppError, isId } from "@imprint/runtime";
import { IntegrationAsset } from "../../domain/asset.js";
import { Integration, isIntegrationName } from "../../domain/integration.js";

/** An image an integration published (its icon or a preview): public, like GitBook's integration assets. */
export async function getIntegrationAsset(em: EntityManager, input: { name: string; assetId: string }): Promise<IntegrationAsset> {
  const integration = isIntegrationName(input.name) ? await em.findOne(Integration, { name: input.name }, { fields: ["id"] }) : null;
  const asset = integration && isId(input.assetId) ? await em.findOne(IntegrationAsset, { id: input.assetId, integrationId: integration.id }) : null;
  if (!asset) throw AppError.notFound("Asset");
  return asset;
}
