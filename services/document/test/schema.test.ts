import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { Ajv2020 } from "ajv/dist/2020.js";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { markdownToDocument, type JsonDocument } from "../src/index.js";
import { CORPUS, markdownArbitrary } from "./support/corpus.js";

/**
 * Every document markdownToDocument produces validates against GitBook's published schema
 * (`@gitbook/api`'s OpenAPI document, `JSONDocument`): block types, where each may nest, required
 * data, `isVoid`, fragments. The gateway's e2e contract checks documents it serves the same way.
 */
const require = createRequire(import.meta.url);
const spec = JSON.parse(readFileSync(require.resolve("@gitbook/api/spec/openapi.json"), "utf8")) as object;
// CommonJS plugin; loaded through require so its default export needs no interop guessing.
const addFormats = require("ajv-formats") as (ajv: Ajv2020) => Ajv2020;
const ajv = new Ajv2020({ strict: false, validateFormats: true });
addFormats(ajv);
for (const format of ["emoji", "icon", "int32", "byte"]) ajv.addFormat(format, true);
ajv.addSchema(spec, "openapi");
const validateDocument = ajv.compile({ $ref: "openapi#/components/schemas/JSONDocument" });

function expectValid(document: JsonDocument, markdown: string): void {
  const valid = validateDocument(document);
  // On failure: the first errors (ajv's `oneOf` reports its alternatives; the paths name the node).
  expect(valid ? [] : (validateDocument.errors ?? []).slice(0, 8).map((error) => `${error.instancePath} ${error.message}`), markdown).toEqual([]);
}

describe("GitBook's schema", () => {
  it.each(Object.entries(CORPUS))("validates the document of %s", (_name, markdown) => {
    expectValid(markdownToDocument(markdown), markdown);
  });

  it("validates each new block in every container markdown can put it in", () => {
    const blocks = [
      '{% tabs %}\n{% tab title="T" %}\nx\n{% endtab %}\n{% endtabs %}',
      "<details>\n<summary>S</summary>\n\nx\n\n</details>",
      '{% embed url="https://example.com" %}',
      "$$\nx\n$$",
      '{% hint style="info" %}\nx\n{% endhint %}',
      "{% stepper %}\n{% step %}\nx\n{% endstep %}\n{% endstepper %}",
      '{% content-ref url="/pages/p1" %}\n[p1](/pages/p1)\n{% endcontent-ref %}',
      '{% file src="/files/f1" %}\n{% endfile %}',
      '{% include ".gitbook/includes/r1.md" %}',
    ];
    const containers = [
      (block: string) => block,
      (block: string) => block.replace(/^/gm, "- ").replace(/\n- /g, "\n  "),
      (block: string) => block.replace(/^/gm, "> "),
      (block: string) => `> [!NOTE]\n${block.replace(/^/gm, "> ")}`,
      (block: string) => `{% tabs %}\n{% tab title="Outer" %}\n${block}\n{% endtab %}\n{% endtabs %}`,
      (block: string) => `<details>\n<summary>Outer</summary>\n\n${block}\n\n</details>`,
      (block: string) => `{% hint style="info" %}\n${block}\n{% endhint %}`,
      (block: string) => `{% stepper %}\n{% step %}\n${block}\n{% endstep %}\n{% endstepper %}`,
    ];
    for (const block of blocks) {
      for (const container of containers) {
        const markdown = container(block);
        expectValid(markdownToDocument(markdown), markdown);
      }
    }
  });

  it("refuses what GitBook's schema forbids (the check checks)", () => {
    const document = (nodes: unknown[]) => ({ object: "document", data: {}, nodes });
    const paragraph = { object: "block", type: "paragraph", nodes: [{ object: "text", leaves: [{ object: "leaf", text: "x", marks: [] }] }] };
    const tabs = (nodes: unknown[]) => ({ object: "block", type: "tabs", nodes: [{ object: "block", type: "tabs-item", data: { title: "t" }, nodes }] });
    expect(validateDocument(document([tabs([paragraph])]))).toBe(true);
    expect(validateDocument(document([tabs([tabs([paragraph])])]))).toBe(false);
    expect(validateDocument(document([{ object: "block", type: "math", isVoid: true, data: {} }]))).toBe(false);
    expect(validateDocument(document([{ object: "block", type: "embed", isVoid: false, data: { url: "https://e.com" } }]))).toBe(false);
    expect(
      validateDocument(
        document([{ object: "block", type: "blockquote", nodes: [{ object: "block", type: "embed", isVoid: true, data: { url: "https://e.com" } }] }]),
      ),
    ).toBe(false);
    expect(
      validateDocument(
        document([
          {
            object: "block",
            type: "expandable",
            isVoid: true,
            data: {},
            fragments: [{ object: "fragment", fragment: "expandable-body", type: "expandable-body", nodes: [] }],
          },
        ]),
      ),
    ).toBe(false);
  });

  it("validates generated documents (property)", () => {
    fc.assert(
      fc.property(markdownArbitrary, (markdown) => expectValid(markdownToDocument(markdown), markdown)),
      { numRuns: 300 },
    );
  });
});
