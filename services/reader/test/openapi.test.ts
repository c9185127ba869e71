import { fromHtml } from "hast-util-from-html";
import { select, selectAll } from "hast-util-select";
import { toString } from "hast-util-to-string";
import { describe, expect, it } from "vitest";
import { markdownToDocument } from "@imprint/document";
import { documentToHtml } from "@imprint/document/html";
import { codeSamples, openApiOperation } from "../src/views/openapi-operation.js";
import { openApiAssets, openApiBlockHtml, openApiOperationMarkdown, withOpenApiOperations } from "../src/views/openapi.js";
import { openApiPointerHtml } from "../src/views/openapi-pointers.js";
import { pagePolicy } from "../src/views/policy.js";
import { readerWords } from "../src/views/words.js";

/** A small OpenAPI 3.1 document, parsed (not dereferenced), as content keeps it. */
const PETSTORE = {
  openapi: "3.1.0",
  info: { title: "Pets", version: "1.0.0" },
  servers: [{ url: "https://{region}.pets.example.com/v1", variables: { region: { default: "eu" } } }],
  paths: {
    "/pets/{petId}": {
      parameters: [{ name: "petId", in: "path", required: true, description: "The pet's id", schema: { type: "string", format: "uuid" } }],
      get: {
        summary: "Get a pet",
        description: "Answers one pet.\n\nPets are <b>friendly</b>.",
        parameters: [
          { name: "fields", in: "query", description: "Fields to include", schema: { type: "string", enum: ["name", "tag"] } },
          { $ref: "#/components/parameters/Trace" },
        ],
        responses: {
          "200": { description: "The pet", content: { "application/json": { schema: { $ref: "#/components/schemas/Pet" } } } },
          "404": { description: "No such pet" },
        },
      },
      put: {
        summary: "Replace a pet",
        requestBody: {
          required: true,
          content: { "application/json": { schema: { $ref: "#/components/schemas/Pet" }, example: { name: "Rex", tag: "dog" } } },
        },
        responses: { "204": { description: "Replaced" } },
      },
    },
  },
  components: {
    parameters: { Trace: { name: "X-Trace", in: "header", required: true, schema: { type: "string" }, example: "abc" } },
    schemas: {
      Pet: {
        type: "object",
        required: ["name"],
        properties: {
          name: { type: "string", description: "Its name" },
          tag: { type: "string" },
          friends: { type: "array", items: { $ref: "#/components/schemas/Pet" } },
        },
      },
    },
  },
};

const SWAGGER2 = {
  swagger: "2.0",
  info: { title: "Old", version: "1" },
  host: "old.example.com",
  basePath: "/api",
  schemes: ["https"],
  paths: {
    "/items": {
      post: {
        consumes: ["application/json"],
        parameters: [
          { name: "body", in: "body", schema: { type: "object", properties: { title: { type: "string" } } } },
          { name: "dry", in: "query", type: "boolean" },
        ],
        responses: { "201": { description: "Created", schema: { type: "object", properties: { id: { type: "integer" } } } } },
      },
    },
  },
};

const specs: Record<string, unknown> = { petstore: PETSTORE, "https://old.example.com/swagger.json": SWAGGER2 };
const english = readerWords("en").openApi;
const sources = { specOf: (key: string) => specs[key] ?? null, resolveRef: () => null, words: english };

function render(markdown: string) {
  const document = markdownToDocument(markdown);
  return fromHtml(documentToHtml(document, { resolveRef: () => null, renderOpenApiBlock: (block) => openApiBlockHtml(block, sources) }).html, {
    fragment: true,
  });
}

describe("OpenAPI schemas and webhooks in the reader", () => {
  const withWebhook = {
    ...PETSTORE,
    webhooks: {
      newPet: {
        post: {
          summary: "A pet was added",
          requestBody: { content: { "application/json": { schema: { $ref: "#/components/schemas/Pet" } } } },
          responses: { "200": { description: "Received" } },
        },
      },
    },
  };
  const renderPointer = (markdown: string, spec: unknown) =>
    fromHtml(
      documentToHtml(markdownToDocument(markdown), { resolveRef: () => null, renderOpenApiBlock: (block) => openApiPointerHtml(block, spec, english) }).html,
      {
        fragment: true,
      },
    );

  it("renders an openapi-schemas block as each schema's properties and example, a missing one as a note", () => {
    const tree = renderPointer('{% openapi-schemas spec="petstore" schemas="Pet,Nope" %}\n{% endopenapi-schemas %}', withWebhook);
    const schema = select("section.openapi-schemas section.openapi-schema", tree)!;
    expect(toString(select("h3", schema)!)).toBe("Pet");
    expect(selectAll("ul.schema > li > code", schema).map((node) => toString(node))).toEqual(["name", "tag", "friends"]);
    expect(toString(select("figure.code pre", schema)!)).toContain('"name"');
    expect(toString(select("p.openapi-missing", tree)!)).toBe(`Nope: ${english.missing}`);
  });

  it("renders an openapi-webhook block as the webhook's summary, payload (its request body) and expected responses, with no Test it form", () => {
    const tree = renderPointer('{% openapi-webhook spec="petstore" name="newPet" method="post" %}\n{% endopenapi-webhook %}', withWebhook);
    const section = select("section.openapi-webhook", tree)!;
    expect(toString(select("h2", section)!)).toBe("POST newPet");
    expect(toString(select("p.summary", section)!)).toBe("A pet was added");
    expect(selectAll("h3", section).map((node) => toString(node))).toEqual([english.requestBody, english.responses]);
    expect(select("form", section)).toBeUndefined();
    const missing = renderPointer('{% openapi-webhook spec="petstore" name="gone" method="post" %}\n{% endopenapi-webhook %}', null);
    expect(toString(select("div.openapi-missing", missing)!)).toBe(`POST gone: ${english.missing}`);
  });
});

describe("OpenAPI operations in the reader", () => {
  it("renders an openapi-operation block as an API reference: method, path, parameters, responses with schema and example, code samples", () => {
    const tree = render('{% openapi-operation spec="petstore" path="/pets/{petId}" method="get" %}\n{% endopenapi-operation %}');
    const section = select("section.openapi-operation", tree)!;
    expect(section.properties.ariaLabel).toBe("GET /pets/{petId}");
    expect(toString(select("h2", section)!)).toBe("GET /pets/{petId}");
    expect(toString(select("p.summary", section)!)).toBe("Get a pet");
    // The description is text: its markup is escaped, never inserted.
    expect(selectAll("b", section)).toEqual([]);
    expect(toString(section)).toContain("Pets are <b>friendly</b>.");
    expect(toString(select("p.server code", section)!)).toBe("https://eu.pets.example.com/v1");
    const rows = selectAll("table.parameters tbody tr", section).map((row) => selectAll("th, td", row).map((cell) => toString(cell)));
    expect(rows).toEqual([
      ["petId", "path", "string (uuid)", "Required", "The pet's id"],
      ["fields", "query", 'string (one of "name", "tag")', "Optional", "Fields to include"],
      ["X-Trace", "header", "string", "Required", "Example: abc"],
    ]);
    expect(selectAll("th[scope=col]", section).map((cell) => toString(cell))).toEqual(["Name", "In", "Type", "Required", "Description"]);
    const responses = selectAll("section.response", section);
    expect(responses.map((response) => toString(select("h4", response)!))).toEqual(["200 The pet", "404 No such pet"]);
    expect(selectAll("ul.schema > li > code", responses[0]).map((node) => toString(node))).toEqual(["name", "tag", "friends"]);
    expect(JSON.parse(toString(select("figure.code pre code", responses[0])!))).toEqual({ name: "string", tag: "string", friends: [null] });
    expect(selectAll("figure.code figcaption", section).map((node) => toString(node))).toEqual(["Example", "cURL", "JavaScript", "Python"]);
    const curl = toString(selectAll("figure.code pre code.language-bash", section)[0]!);
    expect(curl).toBe("curl -X GET 'https://eu.pets.example.com/v1/pets/{petId}' \\\n  -H 'X-Trace: abc'");
    // The "Test it" form: hidden until the OpenAPI script shows it, a labelled field per parameter.
    const form = select("form.openapi-try", section)!;
    expect(form.properties.hidden).toBe(true);
    expect(form.properties.dataUrl).toBe("https://eu.pets.example.com/v1/pets/{petId}");
    expect(form.properties.dataMethod).toBe("GET");
    for (const input of selectAll("input", form)) expect(select(`label[for="${String(input.properties.id)}"]`, form)).toBeDefined();
    expect(selectAll("input", form).map((input) => input.properties.dataIn)).toEqual(["path", "query", "header"]);
    expect(select("output[aria-live=polite]", form)).toBeDefined();
  });

  it("shows a request body's schema and example, and sends it in the code samples", () => {
    const tree = render('{% openapi-operation spec="petstore" path="/pets/{petId}" method="PUT" %}\n{% endopenapi-operation %}');
    const section = select("section.openapi-operation", tree)!;
    expect(toString(section)).toContain("Request body");
    expect(select("form.openapi-try textarea", section)?.properties.dataType).toBe("application/json");
    const operation = openApiOperation(PETSTORE, "/pets/{petId}", "put")!;
    const [curl, javascript, python] = codeSamples(operation);
    expect(curl!.code).toContain(`--data '{\n  "name": "Rex",\n  "tag": "dog"\n}'`);
    expect(javascript!.code).toContain('method: "PUT"');
    expect(javascript!.code).toContain("JSON.stringify({");
    expect(python!.code).toContain('json={"name": "Rex", "tag": "dog"}');
    expect(python!.code).toMatch(/^import requests\n\nresponse = requests.request\("PUT", "https:\/\/eu.pets.example.com\/v1\/pets\/\{petId\}"/);
  });

  it("reads Swagger 2.0 documents, named by a swagger block's URL", () => {
    const tree = render('{% swagger src="https://old.example.com/swagger.json" path="/items" method="post" %}\n{% endswagger %}');
    const section = select("section.openapi-operation", tree)!;
    expect(toString(select("p.server code", section)!)).toBe("https://old.example.com/api");
    expect(toString(section)).toContain("Request body");
    expect(selectAll("table.parameters tbody th", section).map((cell) => toString(cell))).toEqual(["dry"]);
    expect(toString(select("section.response h4", section)!)).toBe("201 Created");
  });

  it("renders a note with the method and path when the spec or the operation cannot be found", () => {
    for (const markdown of [
      '{% openapi-operation spec="missing" path="/pets" method="get" %}\n{% endopenapi-operation %}',
      '{% openapi-operation spec="petstore" path="/nowhere" method="get" %}\n{% endopenapi-operation %}',
      '{% openapi-operation spec="petstore" path="/pets/{petId}" method="delete" %}\n{% endopenapi-operation %}',
    ]) {
      const note = select("div.openapi-missing[role=note]", render(markdown));
      expect(note, markdown).toBeDefined();
      expect(toString(note!)).toMatch(/^(GET \/pets|GET \/nowhere|DELETE \/pets\/\{petId\}): /);
    }
    const external = select(
      "div.openapi-missing a",
      render('{% openapi src="https://elsewhere.example.com/api.yaml" path="/a" method="get" %}\n{% endopenapi %}'),
    );
    expect(external?.properties.href).toBe("https://elsewhere.example.com/api.yaml");
  });

  it("without the reader's renderer, the document's HTML shows the operation's method and path", () => {
    const html = documentToHtml(markdownToDocument('{% openapi-operation spec="petstore" path="/pets" method="get" %}\n{% endopenapi-operation %}'), {
      resolveRef: () => null,
    }).html;
    expect(html).toBe('<p class="openapi-operation"><code>GET /pets</code></p>');
  });

  it("lets the page's scripts call the APIs its forms send to, and nothing else", () => {
    const policy = pagePolicy({ connect: ["https://eu.pets.example.com"] });
    expect(policy).toContain("connect-src 'self' https://eu.pets.example.com;");
    expect(openApiAssets.script.path).toMatch(/^\/_assets\/openapi\.[A-Za-z0-9_-]{12}\.js$/);
  });

  it("writes the operation as readable markdown for the page's markdown and llms-full.txt", () => {
    const markdown = openApiOperationMarkdown(openApiOperation(PETSTORE, "/pets/{petId}", "put")!, english);
    expect(markdown).toContain("### `PUT /pets/{petId}`");
    expect(markdown).toContain("| `petId` | path | string (uuid) | yes | The pet's id |");
    expect(markdown).toContain('```json\n{\n  "name": "Rex",\n  "tag": "dog"\n}\n```');
    expect(markdown).toContain("Response `204`: Replaced");
    const page = `Intro\n\n{% openapi-operation spec="petstore" path="/pets/{petId}" method="put" %}\n{% endopenapi-operation %}\n\nOutro\n\n{% openapi-operation spec="missing" path="/x" method="get" %}\n{% endopenapi-operation %}\n`;
    const written = withOpenApiOperations(
      page,
      (tag, attributes) =>
        tag === "openapi-operation" && specs[attributes.get("spec")!]
          ? openApiOperation(specs[attributes.get("spec")!], attributes.get("path")!, attributes.get("method")!)
          : null,
      english,
    );
    expect(written).toContain(`Intro\n\n### \`PUT /pets/{petId}\``);
    expect(written).toContain('\n\nOutro\n\n{% openapi-operation spec="missing" path="/x" method="get" %}\n{% endopenapi-operation %}\n');
  });
});
