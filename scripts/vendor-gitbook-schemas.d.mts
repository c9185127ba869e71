// Types of vendor-gitbook-schemas.mjs, for the test that checks the vendored copy.
export function vendoredCustomizationSchemas(spec: unknown, version: string): { version: string; components: { schemas: Record<string, unknown> } };
