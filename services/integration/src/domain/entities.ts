import { IntegrationAssetSchema } from "./asset.js";
import { InstallationSchema, TargetInstallationSchema } from "./installation.js";
import { IntegrationEventRecordSchema } from "./integration-event.js";
import { IntegrationSchema } from "./integration.js";

/** Every entity of the integration context (the runtime adds its own tables). */
export const integrationEntities = [IntegrationSchema, InstallationSchema, TargetInstallationSchema, IntegrationAssetSchema, IntegrationEventRecordSchema];
