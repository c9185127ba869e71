/**
 * One operation of an OpenAPI document (3.x or Swagger 2.0, as content keeps it: parsed, not
 * dereferenced), read into what the reader shows: its parameters, request body and responses
 * with their schemas and examples, and code samples built from them. Local `$ref`s
 * (`#/components/…`, `#/definitions/…`) are followed, each at most once along a path (schemas
 * can be cyclic); an example the document does not give is generated from the schema.
 */

type Json = Record<string, unknown>;

export const OPENAPI_METHODS = ["get", "put", "post", "delete", "options", "head", "patch", "trace"] as const;

/** A schema, reduced to what the reader shows. */
export interface SchemaView {
  /** `string`, `integer`, `array of Pet`, `object`… */
  type: string;
  description?: string;
  enum?: string[];
  /** An object's properties, in the document's order. */
  properties?: { name: string; required: boolean; schema: SchemaView }[];
}

export interface ParameterView {
  name: string;
  in: "path" | "query" | "header" | "cookie";
  required: boolean;
  description?: string;
  schema: SchemaView;
  /** An example value, as text: the document's, else one generated from the schema. */
  example?: string;
  /** The example is the document's own (shown with the parameter; a generated one only fills forms and samples). */
  exampleDocumented: boolean;
}

export interface BodyView {
  contentType: string;
  description?: string;
  schema?: SchemaView;
  /** The example, pretty-printed (JSON) or as given. */
  example?: string;
  /** The example as a value, for the code samples. */
  exampleValue?: unknown;
}

export interface ResponseView {
  status: string;
  description?: string;
  body?: BodyView;
}

export interface OperationView {
  method: string;
  path: string;
  summary?: string;
  description?: string;
  deprecated: boolean;
  /** The first server's URL (variables at their defaults), "" when the document names none. */
  serverUrl: string;
  parameters: ParameterView[];
  requestBody?: BodyView;
  responses: ResponseView[];
}

export interface CodeSample {
  /** `curl`, `javascript`, `python`: the code block's language. */
  syntax: string;
  title: string;
  code: string;
}

const isObject = (value: unknown): value is Json => typeof value === "object" && value !== null && !Array.isArray(value);
const text = (value: unknown): string | undefined => (typeof value === "string" && value.trim() !== "" ? value.trim() : undefined);
/** Schemas nest at most this deep in what is shown (and in generated examples). */
const MAX_DEPTH = 6;

class Reader {
  constructor(private readonly document: Json) {}

  /** The value a local `$ref` names, followed until it is no `$ref` (`seen` stops cycles); the value itself when it is no reference. */
  resolve(value: unknown, seen: ReadonlySet<string> = new Set()): { value: Json | undefined; seen: ReadonlySet<string> } {
    let current = value;
    const visited = new Set(seen);
    while (isObject(current) && typeof current.$ref === "string") {
      const ref = current.$ref;
      if (!ref.startsWith("#/") || visited.has(ref)) return { value: undefined, seen: visited };
      visited.add(ref);
      current = ref
        .slice(2)
        .split("/")
        .map((segment) => segment.replace(/~1/g, "/").replace(/~0/g, "~"))
        .reduce<unknown>((at, segment) => (isObject(at) ? at[segment] : Array.isArray(at) ? at[Number(segment)] : undefined), this.document);
    }
    return { value: isObject(current) ? current : undefined, seen: visited };
  }

  schema(value: unknown, seen: ReadonlySet<string> = new Set(), depth = 0): SchemaView {
    const name = isObject(value) && typeof value.$ref === "string" ? value.$ref.split("/").pop() : undefined;
    const resolved = this.resolve(value, seen);
    const schema = resolved.value;
    if (!schema) return { type: name ?? "any" };
    const combined = [schema.allOf, schema.oneOf, schema.anyOf].find(Array.isArray) as unknown[] | undefined;
    const view: SchemaView = { type: typeOf(schema, name) };
    const description = text(schema.description);
    if (description) view.description = description;
    if (Array.isArray(schema.enum)) view.enum = schema.enum.map((item) => JSON.stringify(item));
    if (depth >= MAX_DEPTH) return view;
    if (schema.type === "array" || isObject(schema.items)) {
      const items = this.schema(schema.items, resolved.seen, depth + 1);
      view.type = `array of ${items.type}`;
      if (items.properties) view.properties = items.properties;
      return view;
    }
    const required = new Set(Array.isArray(schema.required) ? schema.required.filter((item): item is string => typeof item === "string") : []);
    const properties: NonNullable<SchemaView["properties"]> = [];
    if (isObject(schema.properties)) {
      for (const [property, propertySchema] of Object.entries(schema.properties)) {
        properties.push({ name: property, required: required.has(property), schema: this.schema(propertySchema, resolved.seen, depth + 1) });
      }
    }
    // allOf merges its parts' properties; oneOf/anyOf show the first alternative's.
    for (const part of schema.allOf === combined ? (combined ?? []) : (combined ?? []).slice(0, 1)) {
      const partView = this.schema(part, resolved.seen, depth + 1);
      properties.push(...(partView.properties ?? []));
      if (view.type === "any" || view.type === "object") view.type = partView.type === "any" ? view.type : partView.type;
    }
    if (properties.length > 0) view.properties = properties;
    return view;
  }

  /** An example of the schema: its `example`, `default` or first `enum` value, else one built from its type. */
  sample(value: unknown, seen: ReadonlySet<string> = new Set(), depth = 0): unknown {
    const resolved = this.resolve(value, seen);
    const schema = resolved.value;
    if (!schema || depth > MAX_DEPTH) return null;
    if (schema.example !== undefined) return schema.example;
    if (Array.isArray(schema.examples) && schema.examples.length > 0) return schema.examples[0];
    if (schema.default !== undefined) return schema.default;
    if (Array.isArray(schema.enum) && schema.enum.length > 0) return schema.enum[0];
    const combined = [schema.allOf, schema.oneOf, schema.anyOf].find(Array.isArray) as unknown[] | undefined;
    if (combined && combined.length > 0) {
      if (schema.allOf !== combined) return this.sample(combined[0], resolved.seen, depth + 1);
      const merged: Json = {};
      for (const part of combined) {
        const sample = this.sample(part, resolved.seen, depth + 1);
        if (isObject(sample)) Object.assign(merged, sample);
      }
      return merged;
    }
    const type: unknown = Array.isArray(schema.type) ? (schema.type as unknown[]).find((candidate) => candidate !== "null") : schema.type;
    if (type === "array" || isObject(schema.items)) return [this.sample(schema.items, resolved.seen, depth + 1)];
    if (type === "object" || isObject(schema.properties)) {
      const sample: Json = {};
      for (const [property, propertySchema] of Object.entries(isObject(schema.properties) ? schema.properties : {})) {
        sample[property] = this.sample(propertySchema, resolved.seen, depth + 1);
      }
      return sample;
    }
    if (type === "integer" || type === "number") return 0;
    if (type === "boolean") return true;
    if (type === "string") return STRING_SAMPLES[String(schema.format)] ?? "string";
    return null;
  }
}

const STRING_SAMPLES: Record<string, string> = {
  "date-time": "2024-01-01T00:00:00Z",
  date: "2024-01-01",
  email: "user@example.com",
  uuid: "3fa85f64-5717-4562-b3fc-2c963f66afa6",
  uri: "https://example.com",
};

function typeOf(schema: Json, name: string | undefined): string {
  const type = Array.isArray(schema.type) ? schema.type.filter((candidate) => candidate !== "null").join(" | ") : text(schema.type);
  const format = text(schema.format);
  if (type) return format ? `${type} (${format})` : type;
  if (isObject(schema.properties)) return name ?? "object";
  return name ?? "any";
}

/** A value as an example's text: strings as they are, anything else as pretty JSON. */
function exampleText(value: unknown): string {
  return typeof value === "string" ? value : JSON.stringify(value, null, 2);
}

/**
 * The operation `method` `path` of the document, or null when the document has none (the path
 * matched as written, then ignoring a trailing slash; the method in any case).
 */
export function openApiOperation(document: unknown, path: string, method: string): OperationView | null {
  if (!isObject(document) || !isObject(document.paths)) return null;
  const paths = document.paths;
  const pathKey = path in paths ? path : Object.keys(paths).find((candidate) => candidate.replace(/\/$/, "") === path.replace(/\/$/, ""));
  const reader = new Reader(document);
  const pathItem = pathKey === undefined ? undefined : reader.resolve(paths[pathKey]).value;
  const lower = method.toLowerCase();
  const operation = pathItem && OPENAPI_METHODS.some((known) => known === lower) ? reader.resolve(pathItem[lower]).value : undefined;
  if (!pathItem || !operation) return null;
  const swagger2 = typeof document.swagger === "string";

  const parameters: ParameterView[] = [];
  let requestBody: BodyView | undefined;
  const byKey = new Map<string, Json>();
  for (const list of [pathItem.parameters, operation.parameters]) {
    for (const entry of Array.isArray(list) ? list : []) {
      const parameter = reader.resolve(entry).value;
      if (parameter && typeof parameter.name === "string" && typeof parameter.in === "string") byKey.set(`${parameter.in}:${parameter.name}`, parameter);
    }
  }
  const consumes = Array.isArray(operation.consumes) ? operation.consumes : Array.isArray(document.consumes) ? document.consumes : [];
  for (const parameter of byKey.values()) {
    if (parameter.in === "body") {
      const exampleValue = reader.sample(parameter.schema);
      requestBody = {
        contentType: text(consumes[0]) ?? "application/json",
        ...(text(parameter.description) ? { description: text(parameter.description)! } : {}),
        schema: reader.schema(parameter.schema),
        example: exampleText(exampleValue),
        exampleValue,
      };
      continue;
    }
    if (!["path", "query", "header", "cookie"].includes(parameter.in as string)) continue;
    // Swagger 2.0 types its parameters itself; OpenAPI 3 through `schema`.
    const schemaSource = swagger2 && !isObject(parameter.schema) ? parameter : parameter.schema;
    const documented =
      parameter.example !== undefined ? parameter.example : isObject(schemaSource) ? (reader.resolve(schemaSource).value?.example ?? undefined) : undefined;
    const example = documented !== undefined ? documented : reader.sample(schemaSource);
    parameters.push({
      name: parameter.name as string,
      in: parameter.in as ParameterView["in"],
      required: parameter.required === true || parameter.in === "path",
      ...(text(parameter.description) ? { description: text(parameter.description)! } : {}),
      schema: reader.schema(schemaSource),
      ...(example !== null && example !== undefined ? { example: exampleText(example) } : {}),
      exampleDocumented: documented !== undefined,
    });
  }
  if (!swagger2) {
    const body = reader.resolve(operation.requestBody).value;
    if (body) requestBody = bodyOf(reader, body.content, text(body.description));
  }

  const responses: ResponseView[] = [];
  const produces = Array.isArray(operation.produces) ? operation.produces : Array.isArray(document.produces) ? document.produces : [];
  for (const [status, entry] of Object.entries(isObject(operation.responses) ? operation.responses : {})) {
    const response = reader.resolve(entry).value;
    if (!response) continue;
    const view: ResponseView = { status, ...(text(response.description) ? { description: text(response.description)! } : {}) };
    if (swagger2 && response.schema !== undefined) {
      const examples = isObject(response.examples) ? Object.values(response.examples) : [];
      const exampleValue = examples.length > 0 ? examples[0] : reader.sample(response.schema);
      view.body = {
        contentType: text(produces[0]) ?? "application/json",
        schema: reader.schema(response.schema),
        example: exampleText(exampleValue),
        exampleValue,
      };
    } else if (!swagger2) {
      const body = bodyOf(reader, response.content, undefined);
      if (body) view.body = body;
    }
    responses.push(view);
  }

  return {
    method: lower,
    path: pathKey!,
    ...(text(operation.summary) ? { summary: text(operation.summary)! } : {}),
    ...(text(operation.description) ? { description: text(operation.description)! } : {}),
    deprecated: operation.deprecated === true,
    serverUrl: serverUrlOf(document, operation, pathItem),
    parameters,
    ...(requestBody ? { requestBody } : {}),
    responses,
  };
}

/** A 3.x `content` map's first media type (JSON preferred): its schema and example. */
function bodyOf(reader: Reader, content: unknown, description: string | undefined): BodyView | undefined {
  if (!isObject(content)) return undefined;
  const types = Object.keys(content);
  const contentType = types.find((type) => /json/i.test(type)) ?? types[0];
  if (contentType === undefined) return description ? { contentType: "", description } : undefined;
  const media = isObject(content[contentType]) ? content[contentType] : {};
  const examples = isObject(media.examples) ? Object.values(media.examples).map((example) => reader.resolve(example).value?.value) : [];
  const exampleValue =
    media.example !== undefined
      ? media.example
      : (examples.find((example) => example !== undefined) ?? (media.schema ? reader.sample(media.schema) : undefined));
  return {
    contentType,
    ...(description ? { description } : {}),
    ...(media.schema !== undefined ? { schema: reader.schema(media.schema) } : {}),
    ...(exampleValue !== undefined && exampleValue !== null ? { example: exampleText(exampleValue), exampleValue } : {}),
  };
}

/** The operation's (else its path's, else the document's) first server, variables at their defaults; Swagger 2.0's scheme, host and base path. */
function serverUrlOf(document: Json, operation: Json, pathItem: Json): string {
  if (typeof document.swagger === "string") {
    const host = text(document.host);
    const basePath = text(document.basePath) ?? "";
    const scheme = Array.isArray(document.schemes) && typeof document.schemes[0] === "string" ? document.schemes[0] : "https";
    return host ? `${scheme}://${host}${basePath.replace(/\/$/, "")}` : basePath.replace(/\/$/, "");
  }
  const servers = [operation.servers, pathItem.servers, document.servers].find((list) => Array.isArray(list) && list.length > 0) as unknown[] | undefined;
  const server = servers?.[0];
  if (!isObject(server) || typeof server.url !== "string") return "";
  const variables = isObject(server.variables) ? server.variables : {};
  return server.url
    .replace(/\{([^}]+)\}/g, (whole, name: string) => {
      const variable = variables[name];
      return isObject(variable) && typeof variable.default === "string" ? variable.default : whole;
    })
    .replace(/\/$/, "");
}

/** The request the code samples make: the URL with required query parameters, headers and body. */
function requestOf(operation: OperationView): { url: string; headers: [string, string][]; body: unknown } {
  const query = operation.parameters
    .filter((parameter) => parameter.in === "query" && parameter.required)
    .map((parameter) => `${encodeURIComponent(parameter.name)}=${encodeURIComponent(parameter.example ?? "")}`);
  const url = `${operation.serverUrl}${operation.path}${query.length > 0 ? `?${query.join("&")}` : ""}`;
  const headers: [string, string][] = operation.parameters
    .filter((parameter) => parameter.in === "header" && parameter.required)
    .map((parameter) => [parameter.name, parameter.example ?? ""]);
  const body = operation.requestBody?.exampleValue;
  if (operation.requestBody?.contentType) headers.push(["Content-Type", operation.requestBody.contentType]);
  return { url, headers, body };
}

const shellQuote = (value: string) => `'${value.replace(/'/g, `'\\''`)}'`;

/** curl, JavaScript (fetch) and Python (requests) calling the operation with its examples. */
export function codeSamples(operation: OperationView): CodeSample[] {
  const { url, headers, body } = requestOf(operation);
  const method = operation.method.toUpperCase();
  const bodyText = body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body, null, 2);
  const json = body !== undefined && typeof body !== "string" && /json/i.test(operation.requestBody?.contentType ?? "");

  const curl = [
    `curl -X ${method} ${shellQuote(url)}`,
    ...headers.map(([name, value]) => `  -H ${shellQuote(`${name}: ${value}`)}`),
    ...(bodyText !== undefined ? [`  --data ${shellQuote(bodyText)}`] : []),
  ].join(" \\\n");

  const init = [
    `  method: ${JSON.stringify(method)},`,
    ...(headers.length > 0 ? [`  headers: ${JSON.stringify(Object.fromEntries(headers), null, 2).replace(/\n/g, "\n  ")},`] : []),
    ...(bodyText !== undefined ? [`  body: ${json ? `JSON.stringify(${bodyText.replace(/\n/g, "\n  ")})` : JSON.stringify(bodyText)},`] : []),
  ];
  const javascript = `const response = await fetch(${JSON.stringify(url)}, {\n${init.join("\n")}\n});\nconsole.log(response.status, await response.text());`;

  const pythonArguments = [
    JSON.stringify(url),
    ...(headers.length > 0 ? [`headers=${pythonLiteral(Object.fromEntries(headers))}`] : []),
    ...(body !== undefined ? [json ? `json=${pythonLiteral(body)}` : `data=${JSON.stringify(bodyText)}`] : []),
  ];
  const python = `import requests\n\nresponse = requests.request(${JSON.stringify(method)}, ${pythonArguments.join(", ")})\nprint(response.status_code, response.text)`;

  return [
    { syntax: "bash", title: "cURL", code: curl },
    { syntax: "javascript", title: "JavaScript", code: javascript },
    { syntax: "python", title: "Python", code: python },
  ];
}

/** A JSON value as a Python literal (True/False/None). */
function pythonLiteral(value: unknown): string {
  if (value === null || value === undefined) return "None";
  if (value === true) return "True";
  if (value === false) return "False";
  if (Array.isArray(value)) return `[${value.map(pythonLiteral).join(", ")}]`;
  if (isObject(value))
    return `{${Object.entries(value)
      .map(([key, item]) => `${JSON.stringify(key)}: ${pythonLiteral(item)}`)
      .join(", ")}}`;
  return JSON.stringify(value);
}
