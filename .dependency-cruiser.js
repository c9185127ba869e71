// The dependency rules of CODE_STYLE.md, checked in `npm test` (step "dependency rules"). A broken
// rule fails with its name; the rule's comment says what to do instead.
const SERVICES = "(identity|content|collaboration|publishing|integration|reader)";
/** Where a service keeps a layer, at its root or inside one of its modules (vertical slices). */
const layer = (service, name) => `^services/${service}/src/(${name}|.*/${name})/`;
/** What pure domain code may not reach: the service's I/O layers and the query builders (see domain-is-pure). */
const PERSISTENCE = [
  "^node_modules/(kysely|knex|pg)/",
  "^node_modules/@mikro-orm/(knex|sql)/",
  "^(node:)?(fs|fs/promises|child_process|net|http|https|dgram)$",
];
/** The services (not cut into modules) whose domain/ is pure; content's modules have rules of their own (domain-is-pure). */
const PURE_DOMAIN_SERVICES = "(identity|collaboration|publishing|integration)";
const TRANSPORT = ["^node_modules/@grpc/", "^node_modules/@nats-io/", "^node_modules/koa", "^node_modules/@koa/", "^proto/", "/grpc/"];

/** @type {import('dependency-cruiser').IConfiguration} */
export default {
  forbidden: [
    {
      name: "no-cycles",
      severity: "error",
      comment:
        "Modules must not depend on themselves through others, type-only imports included: move the shared piece (often a type) to a leaf module such as deps.ts or domain/.",
      from: { path: "^(services|gateway)/" },
      to: { circular: true },
    },
    {
      name: "use-cases-and-domain-stay-inside",
      severity: "error",
      comment:
        "Use cases and domain code never reach for the service's assembly (service.ts, main.ts) or its transport (grpc/): they receive what they need through deps.ts.",
      from: { path: [layer(SERVICES, "use-cases"), layer(SERVICES, "domain")] },
      to: { path: [`^services/${SERVICES}/src/(service|main|.*/service|.*/main)\\.ts$`, layer(SERVICES, "grpc")] },
    },
    {
      name: "domain-imports-no-transport",
      severity: "error",
      comment:
        "Domain code (entities, rules, state transitions) knows nothing of gRPC, NATS, HTTP or the wire types: map at the edge (grpc/ mappers, consumers/).",
      from: { path: layer(SERVICES, "domain") },
      to: { path: TRANSPORT },
    },
    {
      name: "content-modules-through-facade",
      severity: "error",
      comment:
        "A content module (services/content/src/<module>/) is used by the others only through its façade, <module>/index.ts: export what they need there (or move the piece to the module that owns it) instead of importing past it. Module cycles are checked by scripts/module-cycles.mjs (content-no-module-cycles).",
      from: { path: "^services/content/src/([^/]+)/", pathNot: "^services/content/src/migrations/" },
      to: { path: "^services/content/src/[^/]+/", pathNot: ["^services/content/src/$1/", "^services/content/src/[^/]+/index\\.ts$"] },
    },
    {
      name: "content-root-through-facade",
      severity: "error",
      comment:
        "Content's root files (service.ts, index.ts, space-content.ts) use a module through its façade too. Only deps.ts and config.ts, the leaves every module imports, take types and defaults from a module's leaf files (its limits, its caches): a façade imports them back.",
      from: { path: "^services/content/src/[^/]+\\.ts$", pathNot: "^services/content/src/(deps|config)\\.ts$" },
      to: { path: "^services/content/src/[^/]+/", pathNot: ["^services/content/src/[^/]+/index\\.ts$", "^services/content/src/migrations/"] },
    },
    {
      name: "domain-is-pure",
      severity: "error",
      comment:
        "Content's domain/ holds entities (defineEntity: schema, not I/O), rules and state transitions, and does no I/O: code that runs SQL (kysely, knex, pg), touches files or runs processes, or calls into a store, belongs in the module's store/ (I/O) or a use case. domain/ may name a store's types (a session it is handed), never import its code.",
      from: { path: "^services/content/src/[^/]+/domain/" },
      to: {
        path: [
          "^node_modules/(kysely|knex|pg|@aws-sdk)/",
          "^(node:)?(fs|fs/promises|child_process|net|http|https|dgram)$",
          "^services/content/src/[^/]+/store/",
          "^services/content/src/(blob-store|s3-blob-store)\\.ts$",
        ],
        dependencyTypesNot: ["type-only"],
      },
    },
    {
      name: "domain-is-pure-no-entity-manager",
      severity: "error",
      comment:
        "A type-only import of MikroORM in content's domain/ is an EntityManager (or Knex) taken to query: move that function to the module's store/. domain/ imports MikroORM only for entity definitions (defineEntity, p).",
      from: { path: "^services/content/src/[^/]+/domain/" },
      to: { path: "^node_modules/@mikro-orm/", dependencyTypes: ["type-only"] },
    },
    {
      name: "domain-is-pure-small-services",
      severity: "error",
      comment:
        "Identity's, collaboration's, publishing's and integration's domain/ (entities defined with defineEntity, rules, state transitions) does no I/O, like content's (domain-is-pure): a function that takes an EntityManager and queries lives in store/, next to domain/, and use cases call it. Domain imports neither store/ nor use-cases/ nor a query builder; ESLint (eslint.config.js) keeps EntityManager and the runtime's query helpers (sql, queryRows, executeStatement, findOwned, WorkQueue) out of it too.",
      from: { path: layer(PURE_DOMAIN_SERVICES, "domain") },
      to: { path: [layer(PURE_DOMAIN_SERVICES, "store"), layer(PURE_DOMAIN_SERVICES, "use-cases"), ...PERSISTENCE] },
    },
    {
      name: "no-service-imports-another-service",
      severity: "error",
      comment:
        "Services talk over gRPC and events only: import the other context's contract from @imprint/proto, never its source. Only the runtime and the document model are shared libraries.",
      from: { path: `^services/${SERVICES}/src/` },
      to: { path: `^services/${SERVICES}/`, pathNot: ["^services/$1/"] },
    },
    {
      name: "gateway-imports-no-service",
      severity: "error",
      comment: "The gateway maps REST to gRPC: it uses @imprint/proto and the runtime, never a service's source.",
      from: { path: "^gateway/src/" },
      to: { path: ["^services/"], pathNot: ["^services/runtime/"] },
    },
    {
      name: "libraries-import-no-service",
      severity: "error",
      comment: "The runtime and the document model are shared by every service: they cannot depend on one.",
      from: { path: "^services/(runtime|document)/src/" },
      to: { path: [`^services/${SERVICES}/`, "^gateway/"] },
    },
  ],
  options: {
    // Workspaces resolve to their built dist/: record the edge, do not walk into built or generated code.
    doNotFollow: { path: ["node_modules", "/dist/", "/src/gen/"] },
    exclude: { path: ["\\.d\\.ts$"] },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.base.json" },
    enhancedResolveOptions: { exportsFields: ["exports"], conditionNames: ["import", "default"], mainFields: ["module", "main"] },
    reporterOptions: { text: { highlightFocused: true } },
  },
};
