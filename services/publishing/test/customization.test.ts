import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { describe, expect, it } from "vitest";
import { vendoredCustomizationSchemas } from "../../../scripts/vendor-gitbook-schemas.mjs";
import { GITBOOK_CUSTOMIZATION_SCHEMAS } from "../src/domain/customization/gitbook-schemas.js";

const require = createRequire(import.meta.url);

describe("the vendored customization schemas", () => {
  it("are GitBook's, as @gitbook/api's OpenAPI document has them (regenerate: node scripts/vendor-gitbook-schemas.mjs)", () => {
    const specPath = require.resolve("@gitbook/api/spec/openapi.json");
    const spec = JSON.parse(readFileSync(specPath, "utf8")) as unknown;
    const { version } = JSON.parse(readFileSync(new URL("../package.json", `file://${specPath}`), "utf8")) as { version: string };
    expect(GITBOOK_CUSTOMIZATION_SCHEMAS).toEqual(vendoredCustomizationSchemas(spec, version));
  });
});
