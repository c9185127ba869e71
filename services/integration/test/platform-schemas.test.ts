import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { describe, expect, it } from "vitest";
import { vendoredIntegrationSchemas } from "../../../scripts/vendor-gitbook-schemas.mjs";
import { GITBOOK_INTEGRATION_SCHEMAS } from "../src/domain/platform/gitbook-schemas.js";

const require = createRequire(import.meta.url);

describe("the vendored integration platform schemas", () => {
  it("are GitBook's, as @gitbook/api's OpenAPI document has them (regenerate: node scripts/vendor-gitbook-schemas.mjs)", () => {
    const specPath = require.resolve("@gitbook/api/spec/openapi.json");
    const spec = JSON.parse(readFileSync(specPath, "utf8")) as unknown;
    const { version } = JSON.parse(readFileSync(new URL("../package.json", `file://${specPath}`), "utf8")) as { version: string };
    expect(GITBOOK_INTEGRATION_SCHEMAS).toEqual(vendoredIntegrationSchemas(spec, version));
  });
});
