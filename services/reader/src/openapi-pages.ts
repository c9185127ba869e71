import type { JsonDocument } from "@imprint/document";
import type { GetPublishedSpaceResponse } from "@imprint/proto/content/v1/published";
import type { ReaderData } from "./data.js";
import { OPENAPI_FILE_KEY, openApiBlocks, openApiSpecKey, operationOfBlock, operationOrigin, withOpenApiOperations } from "./views/openapi.js";
import { openApiOperation } from "./views/openapi-operation.js";
import { readerWords } from "./views/words.js";

/** What rendering a page's OpenAPI blocks needs: the specs they name, loaded. */
export interface PageOpenApi {
  /** The page holds OpenAPI blocks (it loads the OpenAPI script). */
  present: boolean;
  specOf: (key: string) => unknown;
  /** The origins its "Test it" forms call (for the page's connect-src). */
  origins: string[];
  /** Some block's operation could not be found (its spec may not be processed yet): the page is not kept. */
  incomplete: boolean;
}

/** Loads the specs the OpenAPI blocks of a page's documents (its own, the reusable contents it includes) name, each once, concurrently. */
export async function pageOpenApi(data: ReaderData, space: GetPublishedSpaceResponse, documents: readonly JsonDocument[]): Promise<PageOpenApi> {
  const blocks = documents.flatMap(openApiBlocks);
  const keys = [...new Set(blocks.map(openApiSpecKey).filter((key): key is string => key !== undefined))];
  const specs = new Map(await Promise.all(keys.map(async (key) => [key, await data.openApiSpec(space, key)] as const)));
  const specOf = (key: string) => specs.get(key) ?? null;
  const operations = blocks.map((block) => operationOfBlock(block, specOf));
  const origins = [
    ...new Set(operations.map((operation) => (operation ? operationOrigin(operation) : null)).filter((origin): origin is string => origin !== null)),
  ];
  return { present: blocks.length > 0, specOf, origins, incomplete: operations.some((operation) => operation === null) };
}

/** A page's markdown with its OpenAPI tags as readable operations (method, path, parameters, examples), in its space's language. */
export async function markdownWithOperations(data: ReaderData, space: GetPublishedSpaceResponse, markdown: string): Promise<string> {
  if (!/\{%\s*(?:openapi|swagger)/.test(markdown)) return markdown;
  const found: { tag: string; attributes: Map<string, string> }[] = [];
  const { openApi: words } = readerWords(space.language);
  withOpenApiOperations(
    markdown,
    (tag, attributes) => {
      found.push({ tag, attributes });
      return null;
    },
    words,
  );
  const keyOf = (tag: string, attributes: Map<string, string>) => {
    const key = (tag === "openapi-operation" ? attributes.get("spec") : attributes.get("src"))?.trim();
    // A file of the space is written `/files/<id>` in markdown.
    return key?.startsWith("/files/") ? `${OPENAPI_FILE_KEY}${key.slice("/files/".length)}` : key;
  };
  const keys = [...new Set(found.map(({ tag, attributes }) => keyOf(tag, attributes)).filter((key): key is string => !!key))];
  const specs = new Map(await Promise.all(keys.map(async (key) => [key, await data.openApiSpec(space, key)] as const)));
  return withOpenApiOperations(
    markdown,
    (tag, attributes) => {
      const key = keyOf(tag, attributes);
      const document = key ? specs.get(key) : undefined;
      const path = attributes.get("path")?.trim();
      const method = attributes.get("method")?.trim();
      return document && path && method ? openApiOperation(document, path, method) : null;
    },
    words,
  );
}
