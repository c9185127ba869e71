import type { DocumentBlock, JsonDocument } from "@imprint/document";
import type { Element } from "hast";
import { h } from "hastscript";
import { openApiOperation } from "./openapi-operation.js";
import { bodyHtml, paragraphs, responsesHtml } from "./openapi.js";
import type { OpenApiWords } from "./words.js";

/**
 * GitBook's blocks pointing into a stored OpenAPI spec besides operations: `openapi-schemas` (named
 * schemas of `components.schemas`, each under its name, or the block's title: its properties and an example)
 * and `openapi-webhook` (an OpenAPI 3.1 webhook: its summary, description, payload and the answers
 * it expects; no "Test it": a webhook is called by the API, not by the reader). Both are read with
 * the operation reader (`openApiOperation`) over a view of the spec that puts the schema or the
 * webhook where an operation would be, so schemas, examples and references resolve as an
 * operation's do. A spec, schema or webhook that cannot be found renders a note naming it. Their words
 * are the operations' (`OpenApiWords`, in the space's language).
 */

type PointerData = { ref?: { kind?: unknown; spec?: unknown }; schemas?: unknown; grouped?: unknown; title?: unknown; name?: unknown; method?: unknown };

/** The pointer blocks GitBook allows at the top level only. */
export const OPENAPI_POINTER_TYPES = new Set(["openapi-schemas", "openapi-webhook"]);

/** The stored spec (its slug) a pointer block names. */
export function pointerSpecKey(block: DocumentBlock): string | undefined {
  const ref = (block.data as PointerData).ref;
  return OPENAPI_POINTER_TYPES.has(block.type) && ref?.kind === "openapi" && typeof ref.spec === "string" && ref.spec !== "" ? ref.spec : undefined;
}

/** The top-level pointer blocks of the documents. */
export function openApiPointerBlocks(documents: readonly JsonDocument[]): DocumentBlock[] {
  return documents.flatMap((document) =>
    (Array.isArray(document.nodes) ? document.nodes : []).filter(
      (block): block is DocumentBlock => block?.object === "block" && OPENAPI_POINTER_TYPES.has(block.type),
    ),
  );
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);

/** A named schema as an operation's request body would show it (its properties, an example), or null when the spec has none such. */
function schemaBody(spec: unknown, name: string) {
  if (!isObject(spec)) return null;
  const schemas = isObject(spec.components) && isObject(spec.components.schemas) ? spec.components.schemas : undefined;
  if (!schemas || !Object.hasOwn(schemas, name)) return null;
  const view = {
    ...spec,
    paths: { "/": { post: { requestBody: { content: { "application/json": { schema: { $ref: `#/components/schemas/${name}` } } } } } } },
  };
  return openApiOperation(view, "/", "post")?.requestBody ?? null;
}

/** The block as the schemas or the webhook it names, from `spec` (null when the spec is unknown). */
export function openApiPointerHtml(block: DocumentBlock, spec: unknown, words: OpenApiWords): Element {
  const data = block.data as PointerData;
  if (block.type === "openapi-schemas") {
    const names = Array.isArray(data.schemas) ? data.schemas.filter((name): name is string => typeof name === "string" && name !== "") : [];
    const title = typeof data.title === "string" && data.title.trim() !== "" ? data.title.trim() : undefined;
    const sections = names.map((name) => {
      const body = schemaBody(spec, name);
      const heading = names.length === 1 && title ? title : name;
      return body
        ? h("section.openapi-schema", { "aria-label": heading }, [
            h("h3", heading === name ? h("code", name) : heading),
            ...bodyHtml({ ...body, contentType: "" }, words),
          ])
        : h("p.openapi-missing", { role: "note" }, [h("code", name), `${words.colon}${words.missing}`]);
    });
    // Grouped (GitBook's default): one block around the schemas; else each stands alone.
    return data.grouped === false ? h("div.openapi-schemas", sections) : h("section.openapi-schemas", { "aria-label": title ?? names.join(", ") }, sections);
  }
  const name = typeof data.name === "string" ? data.name : "";
  const method = typeof data.method === "string" ? data.method.toLowerCase() : "";
  const document = isObject(spec) ? spec : {};
  const webhooks = isObject(document.webhooks) ? document.webhooks : undefined;
  const webhook = webhooks && Object.hasOwn(webhooks, name) ? openApiOperation({ ...document, paths: { [name]: webhooks[name] } }, name, method) : null;
  if (!webhook) {
    return h("div.openapi-missing", { role: "note" }, [h("p", [h("code", `${method.toUpperCase()} ${name}`), `${words.colon}${words.missing}`])]);
  }
  return h("section.openapi-operation.openapi-webhook", { "aria-label": `${webhook.method.toUpperCase()} ${name}` }, [
    h("h2.openapi-title", [h(`span.method.method-${webhook.method}`, webhook.method.toUpperCase()), " ", h("code", name)]),
    ...(webhook.deprecated ? [h("p.deprecated", h("strong", words.deprecated))] : []),
    ...(webhook.summary ? [h("p.summary", webhook.summary)] : []),
    ...paragraphs(webhook.description),
    // The payload the API sends is the webhook's request body.
    ...(webhook.requestBody ? [h("h3", words.requestBody), ...bodyHtml(webhook.requestBody, words)] : []),
    ...responsesHtml(webhook.responses, words),
  ]);
}
