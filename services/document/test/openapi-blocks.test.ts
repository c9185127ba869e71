import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { Ajv2020 } from "ajv/dist/2020.js";
import { describe, expect, it } from "vitest";
import { documentToMarkdown, markdownToDocument, type DocumentBlock, type JsonDocument } from "../src/index.js";

/**
 * GitBook's OpenAPI operation blocks in its Git Sync markdown: `{% openapi %}` and the older
 * `{% swagger %}` (GitBook's `swagger` block, the spec named by `src`) and `{% openapi-operation %}`
 * (its `openapi-operation` block, a spec stored in the organization by slug).
 */
const require = createRequire(import.meta.url);
const spec = JSON.parse(readFileSync(require.resolve("@gitbook/api/spec/openapi.json"), "utf8")) as object;
const ajv = new Ajv2020({ strict: false, validateFormats: false });
ajv.addSchema(spec, "openapi");
const validateDocument = ajv.compile({ $ref: "openapi#/components/schemas/JSONDocument" });

const SPEC_URL = "https://api.example.com/openapi.json";
const OPENAPI = `{% openapi src="${SPEC_URL}" path="/pets/{petId}" method="get" %}\n[${SPEC_URL}](${SPEC_URL})\n{% endopenapi %}`;
const SWAGGER = '{% swagger src="/files/f1" path="/pets" method="post" %}\n{% endswagger %}';
const OPERATION = '{% openapi-operation spec="petstore" path="/pets" method="get" %}\n{% endopenapi-operation %}';

const blocksOf = (markdown: string) => markdownToDocument(markdown).nodes;
const roundTrip = (markdown: string) => documentToMarkdown(markdownToDocument(markdown));

describe("OpenAPI blocks in markdown", () => {
  it("reads {% openapi src %} as GitBook's swagger block (the link inside only repeats the source)", () => {
    expect(blocksOf(OPENAPI)).toEqual([
      { object: "block", type: "swagger", isVoid: true, data: { ref: { kind: "url", url: SPEC_URL }, method: "get", path: "/pets/{petId}" } },
    ]);
  });

  it("reads {% swagger src %} as the same block, a file of the space as a file reference, its spelling kept", () => {
    expect(blocksOf(SWAGGER)).toEqual([
      { object: "block", type: "swagger", isVoid: true, data: { ref: { kind: "file", file: "f1" }, method: "post", path: "/pets", tag: "swagger" } },
    ]);
  });

  it("reads {% openapi-operation spec %} as GitBook's openapi-operation block", () => {
    expect(blocksOf(OPERATION)).toEqual([
      { object: "block", type: "openapi-operation", isVoid: true, data: { ref: { kind: "openapi", spec: "petstore" }, method: "get", path: "/pets" } },
    ]);
  });

  it("reads and writes {% openapi-schemas %} and {% openapi-webhook %} of a stored spec, GitBook's schemas and webhook blocks", () => {
    const schemas =
      '{% openapi-schemas spec="petstore" schemas="Pet,Tag" grouped="false" %}\n[OpenAPI petstore](https://e.com/s.json)\n{% endopenapi-schemas %}';
    const webhook = '{% openapi-webhook spec="petstore" name="newPet" method="post" %}\n[OpenAPI petstore](https://e.com/s.json)\n{% endopenapi-webhook %}';
    const document = markdownToDocument(`${schemas}\n\n${webhook}\n\n{% openapi-schemas spec="petstore" schemas="Pet" %}\n{% endopenapi-schemas %}`);
    expect(document.nodes).toEqual([
      { object: "block", type: "openapi-schemas", isVoid: true, data: { ref: { kind: "openapi", spec: "petstore" }, schemas: ["Pet", "Tag"], grouped: false } },
      { object: "block", type: "openapi-webhook", isVoid: true, data: { ref: { kind: "openapi", spec: "petstore" }, name: "newPet", method: "post" } },
      { object: "block", type: "openapi-schemas", isVoid: true, data: { ref: { kind: "openapi", spec: "petstore" }, schemas: ["Pet"] } },
    ]);
    expect(validateDocument(document), JSON.stringify(validateDocument.errors)).toBe(true);
    const written = documentToMarkdown(document);
    expect(written).toContain('{% openapi-schemas spec="petstore" schemas="Pet,Tag" grouped="false" %}\n{% endopenapi-schemas %}');
    expect(written).toContain('{% openapi-webhook spec="petstore" name="newPet" method="post" %}\n{% endopenapi-webhook %}');
    expect(markdownToDocument(written)).toEqual(document);
    // In a tab (GitBook allows them at the top level only): the names as code; without a spec or a name, the tag stays text.
    const [tabs] = blocksOf(`{% tabs %}\n{% tab title="T" %}\n${webhook}\n{% endtab %}\n{% endtabs %}`) as [DocumentBlock];
    expect(JSON.stringify(tabs)).toContain('"text":"POST newPet","marks":[{"object":"mark","type":"code"}]');
    expect(blocksOf('{% openapi-schemas schemas="Pet" %}\n{% endopenapi-schemas %}').map((block) => block.type)).toEqual(["paragraph"]);
    expect(() =>
      documentToMarkdown({ object: "document", data: {}, nodes: [{ ...document.nodes[0]!, data: { ref: { kind: "openapi", spec: "p" }, schemas: ["A,B"] } }] }),
    ).toThrow("nodes[0].data.schemas[0]: must be a schema's name without a comma");
  });

  it("keeps what a swagger block holds besides the link (its description and parameters), after the block", () => {
    const markdown =
      '{% swagger src="https://e.com/s.yaml" path="/a" method="get" %}\n{% swagger-description %}\nLists **a**.\n{% endswagger-description %}\n{% endswagger %}';
    const [block, description] = blocksOf(markdown) as [DocumentBlock, DocumentBlock];
    expect(block.type).toBe("swagger");
    expect(JSON.stringify(description)).toContain("Lists ");
    expect(JSON.stringify(description)).toContain("{% swagger-description %}");
    // The sub-blocks' tags are not GitBook's Git Sync tags of this model: written back unescaped.
    expect(roundTrip(markdown)).toContain("\n{% swagger-description %}\nLists **a**.\n{% endswagger-description %}");
  });

  it("writes each block back in the spelling read, and reads that back the same (round trip)", () => {
    expect(roundTrip(OPENAPI)).toBe(`{% openapi src="${SPEC_URL}" path="/pets/{petId}" method="get" %}\n\n<${SPEC_URL}>\n\n{% endopenapi %}\n`);
    expect(roundTrip(SWAGGER)).toBe('{% swagger src="/files/f1" path="/pets" method="post" %}\n\n[/files/f1](/files/f1)\n\n{% endswagger %}\n');
    expect(roundTrip(OPERATION)).toBe(`${OPERATION}\n`);
    for (const markdown of [OPENAPI, SWAGGER, OPERATION, `# API\n\n${OPERATION}\n\nAfter.\n\n${OPENAPI}`]) {
      const document = markdownToDocument(markdown);
      const written = documentToMarkdown(document);
      expect(markdownToDocument(written), markdown).toEqual(document);
      expect(documentToMarkdown(markdownToDocument(written)), markdown).toBe(written);
    }
  });

  it("escapes text that would read back as an OpenAPI tag", () => {
    const document = markdownToDocument('\\{% openapi-operation spec="s" path="/a" method="get" %}\n\\{% endopenapi-operation %}');
    expect(document.nodes.map((block) => block.type)).toEqual(["paragraph"]);
    expect(markdownToDocument(documentToMarkdown(document))).toEqual(document);
  });

  it("leaves misplaced or incomplete markers as the text they were", () => {
    for (const markdown of [
      '{% openapi src="https://e.com/s.json" path="/a" method="get" %}\nno end',
      "{% endopenapi %}",
      '{% openapi src="https://e.com/s.json" path="/a" %}\n{% endopenapi %}',
      '{% openapi-operation path="/a" method="get" %}\n{% endopenapi-operation %}',
      '{% swagger src="https://e.com/s.json" path="/a" method="get" %}\n{% endopenapi %}',
      '{% openapi-operation spec="s" path="/a" method="get" %}\n{% endopenapi %}',
    ]) {
      expect(
        blocksOf(markdown).map((block) => block.type),
        markdown,
      ).not.toContain("swagger");
      expect(
        blocksOf(markdown).every((block) => block.type === "paragraph"),
        markdown,
      ).toBe(true);
    }
  });

  it("below the top level, where GitBook allows neither block, is a paragraph with the method and path", () => {
    const [list] = blocksOf(`- ${OPERATION.replace("\n", "\n  ")}\n- ${SWAGGER.replace("\n", "\n  ")}`) as [DocumentBlock];
    const text = JSON.stringify(list);
    expect(text).toContain('"text":"GET /pets"');
    expect(text).toContain('"text":"POST /pets"');
    expect(text).toContain('"file":"f1"');
    expect(text).not.toContain('"type":"swagger"');
  });

  it("refuses to write an OpenAPI block where GitBook does not allow it, or one without its operation", () => {
    const item = (block: DocumentBlock): JsonDocument => ({
      object: "document",
      data: {},
      nodes: [{ object: "block", type: "list-unordered", data: {}, nodes: [{ object: "block", type: "list-item", data: {}, nodes: [block] }] }],
    });
    const [operation] = blocksOf(OPERATION) as [DocumentBlock];
    expect(() => documentToMarkdown(item(operation))).toThrow(
      'block type "openapi-operation" is not supported in a list item (GitBook allows it in the document)',
    );
    const withoutPath: JsonDocument = { object: "document", data: {}, nodes: [{ ...operation, data: { ref: { kind: "openapi", spec: "s" }, method: "get" } }] };
    expect(() => documentToMarkdown(withoutPath)).toThrow("nodes[0].data.path: must be a string");
  });

  it("validates against GitBook's schema", () => {
    for (const markdown of [
      OPENAPI,
      SWAGGER,
      OPERATION,
      `> ${OPERATION.replace("\n", "\n> ")}`,
      `{% tabs %}\n{% tab title="T" %}\n${OPENAPI}\n{% endtab %}\n{% endtabs %}`,
    ]) {
      const document = markdownToDocument(markdown);
      expect(validateDocument(document) ? [] : validateDocument.errors, markdown).toEqual([]);
    }
  });
});
