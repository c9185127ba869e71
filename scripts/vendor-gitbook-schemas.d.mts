// Types of vendor-gitbook-schemas.mjs, for the tests that check the vendored copies.
type VendoredSchemas = { version: string; components: { schemas: Record<string, unknown> } };
export function vendoredCustomizationSchemas(spec: unknown, version: string): VendoredSchemas;
export const INTEGRATION_SCHEMA_ROOTS: readonly string[];
export function vendoredIntegrationSchemas(spec: unknown, version: string): VendoredSchemas;
