import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { Ajv2020, type ValidateFunction } from "ajv/dist/2020.js";
import { describe, expect, it } from "vitest";
import {
  checkDeclaredConfigurations,
  checkInstallationConfiguration,
  missingRequiredProperties,
  type DeclaredConfigurations,
} from "../src/domain/platform/configuration.js";
import { checkRenderOutput } from "../src/domain/platform/contentkit.js";
import { DISPATCH_PATH, encodeDispatchRequest } from "../src/domain/platform/dispatch.js";
import {
  fetchEvent,
  fetchMethodOf,
  fetchPublishedScriptEvent,
  installationDeletedEvent,
  installationSetupEvent,
  integrationEnvironment,
  pageFeedbackEvent,
  siteInstallationDeletedEvent,
  siteInstallationSetupEvent,
  siteViewEvent,
  spaceContentUpdatedEvent,
  spaceInstallationDeletedEvent,
  spaceInstallationSetupEvent,
  spaceVisibilityUpdatedEvent,
  uiRenderEvent,
} from "../src/domain/platform/events.js";
import { checkRenderRequest } from "../src/domain/platform/render-request.js";
import { SIGNATURE_HEADER, signDispatch, verifyDispatchSignature } from "../src/domain/platform/signature.js";

const require = createRequire(import.meta.url);
// CommonJS plugin; loaded through require so its default export needs no interop guessing.
const addFormats = require("ajv-formats") as (ajv: Ajv2020) => Ajv2020;

/** GitBook's own document, independent of the vendored copy the service validates with. */
const spec = JSON.parse(readFileSync(require.resolve("@gitbook/api/spec/openapi.json"), "utf8")) as { components: Record<string, unknown> };
const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats(ajv);
// GitBook's PlainObject declares no `type`, so every string also matches it and the `oneOf` of its
// values refuses every string: it is read as an object, as GitBook means it (and as the service does).
const schemas = spec.components.schemas as Record<string, Record<string, unknown>>;
schemas.PlainObject = { ...schemas.PlainObject, type: "object" };
ajv.addSchema({ $id: "openapi", components: spec.components });
const schemaCache = new Map<string, ValidateFunction>();
function gitbook(name: string): ValidateFunction {
  let validate = schemaCache.get(name);
  if (!validate) schemaCache.set(name, (validate = ajv.compile({ $ref: `openapi#/components/schemas/${name}` })));
  return validate;
}
function expectValid(name: string, value: unknown): void {
  const validate = gitbook(name);
  const valid = validate(value);
  expect(valid ? [] : validate.errors, `${name}: ${JSON.stringify(value)}`).toEqual([]);
}

/** Where an AppError's message is the point of the test. */
function messageOf(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error("expected a refusal");
}

const user = {
  object: "user" as const,
  id: "u1",
  displayName: "Ada Lovelace",
  email: "ada@example.com",
  photoURL: "https://example.com/ada.png",
  urls: { location: "https://imprint.example/v1/users/u1" },
};
const documentContext = { type: "document" as const, theme: "light" as const, spaceId: "s1", editable: true };

describe("the dispatch request", () => {
  async function parse(body: Uint8Array, contentType: string): Promise<FormData> {
    return new Request(`https://script.example${DISPATCH_PATH}`, { method: "POST", headers: { "content-type": contentType }, body }).formData();
  }

  it("is the multipart body @gitbook/runtime reads with request.formData(): event, environment, fetch-body, intact", async () => {
    const event = uiRenderEvent({
      eventId: "e1",
      installationId: "i1",
      componentId: "hello",
      props: { text: 'héllo ✓ 🎉 "quoted" \r\n--not-a-boundary' },
      context: documentContext,
    });
    const environment = {
      apiEndpoint: "https://imprint.example",
      note: "日本語",
      big: Array.from({ length: 20_000 }, (_, index) => ({ index, text: `row ${index} — ✓` })),
    };
    const { body, contentType } = encodeDispatchRequest({ event, environment, fetchBody: '{"a":"ü"}\r\n' });
    expect(body.byteLength).toBeGreaterThan(500_000);
    const form = await parse(body, contentType);
    expect([...form.keys()]).toEqual(["event", "environment", "fetch-body"]);
    expect(JSON.parse(form.get("event") as string)).toEqual(event);
    expect(JSON.parse(form.get("environment") as string)).toEqual(environment);
    expect(form.get("fetch-body")).toBe('{"a":"ü"}\r\n');
  });

  it("sends an empty fetch-body when there is none, and a new boundary each time", async () => {
    const first = encodeDispatchRequest({ event: { type: "x" }, environment: {} });
    const second = encodeDispatchRequest({ event: { type: "x" }, environment: {} });
    expect(first.contentType).toMatch(/^multipart\/form-data; boundary=\S+$/);
    expect(first.contentType).not.toBe(second.contentType);
    const form = await parse(first.body, first.contentType);
    expect(form.get("fetch-body")).toBe("");
    expect(DISPATCH_PATH).toBe("/v1");
  });
});

describe("the dispatch signature", () => {
  const secret = "integration-signing-secret";
  const now = new Date("2026-03-01T12:00:00Z");
  const body = new TextEncoder().encode("--boundary\r\nbody ✓");

  it("round-trips, in Imprint's header format", () => {
    const header = signDispatch(body, secret, now);
    expect(SIGNATURE_HEADER).toBe("X-GitBook-Signature");
    expect(header).toMatch(/^t=1772366400,v1=[0-9a-f]{64}$/);
    expect(verifyDispatchSignature(header, body, secret, now)).toBe(true);
    expect(verifyDispatchSignature(header, "--boundary\r\nbody ✓", secret, new Date(now.getTime() + 299_000))).toBe(true);
  });

  it("refuses a tampered body, another secret, an old or future timestamp, a malformed header", () => {
    const header = signDispatch(body, secret, now);
    expect(verifyDispatchSignature(header, new TextEncoder().encode("--boundary\r\nbody ✗"), secret, now)).toBe(false);
    expect(verifyDispatchSignature(header, body, "another-secret", now)).toBe(false);
    expect(verifyDispatchSignature(header, body, secret, new Date(now.getTime() + 301_000))).toBe(false);
    expect(verifyDispatchSignature(header, body, secret, new Date(now.getTime() - 301_000))).toBe(false);
    expect(verifyDispatchSignature(header, body, secret, new Date(now.getTime() + 60_000), 30)).toBe(false);
    const [, signature] = header.split(",v1=");
    expect(verifyDispatchSignature(`t=${1772366400 + 1},v1=${signature}`, body, secret, now)).toBe(false);
    for (const malformed of [
      "",
      "t=1772366400",
      `v1=${signature}`,
      `t=abc,v1=${signature}`,
      `t=1772366400,v1=${signature!.slice(2)}`,
      `t=1772366400,v1=${signature}=`,
    ]) {
      expect(verifyDispatchSignature(malformed, body, secret, now), malformed).toBe(false);
    }
    expect(verifyDispatchSignature(undefined, body, secret, now)).toBe(false);
  });

  it("accepts any of several v1 signatures (a secret being rotated)", () => {
    const header = signDispatch(body, secret, now);
    const other = signDispatch(body, "old-secret", now).split(",")[1];
    expect(verifyDispatchSignature(`${other},${header}`, body, secret, now)).toBe(true);
  });
});

describe("the events Imprint sends", () => {
  const previous = { status: "pending" as const, configuration: { token: "x" } };
  const events: Array<[string, object]> = [
    ["InstallationSetupEvent", installationSetupEvent({ eventId: "e1", installationId: "i1", status: "active" })],
    ["InstallationSetupEvent", installationSetupEvent({ eventId: "e1", installationId: "i1", status: "active", previous })],
    ["InstallationDeletedEvent", installationDeletedEvent({ eventId: "e2", installationId: "i1", previous: { configuration: { token: "x" } } })],
    ["SpaceInstallationSetupEvent", spaceInstallationSetupEvent({ eventId: "e3", installationId: "i1", spaceId: "s1", status: "paused", previous })],
    ["SpaceInstallationDeletedEvent", spaceInstallationDeletedEvent({ eventId: "e4", installationId: "i1", spaceId: "s1", previous: {} })],
    ["SiteInstallationSetupEvent", siteInstallationSetupEvent({ eventId: "e5", installationId: "i1", siteId: "site1", status: "active" })],
    ["SiteInstallationDeletedEvent", siteInstallationDeletedEvent({ eventId: "e6", installationId: "i1", siteId: "site1", previous: { configuration: {} } })],
    [
      "SpaceContentUpdatedEvent",
      spaceContentUpdatedEvent({
        eventId: "e7",
        installationId: "i1",
        spaceId: "s1",
        revisionId: "r1",
        updatedBy: [user, { object: "user", id: "u2", displayName: "Grace", urls: { location: "https://imprint.example/v1/users/u2" } }],
      }),
    ],
    [
      "SpaceVisibilityUpdatedEvent",
      spaceVisibilityUpdatedEvent({ eventId: "e8", installationId: "i1", spaceId: "s1", previousVisibility: "private", visibility: "share-link" }),
    ],
    [
      "SiteViewEvent",
      siteViewEvent({
        eventId: "e9",
        installationId: "i1",
        siteId: "site1",
        siteSpaceId: "ss1",
        pageId: "p1",
        visitor: { anonymousId: "anon", cookies: { theme: "dark" }, userAgent: "Mozilla/5.0", ip: "203.0.113.7", language: "fr" },
        url: "https://docs.example.com/guide?x=1",
        referrer: "",
      }),
    ],
    [
      "SiteViewEvent",
      siteViewEvent({
        eventId: "e10",
        installationId: "i1",
        siteId: "site1",
        visitor: { anonymousId: "anon", cookies: {}, userAgent: "curl", ip: "::1" },
        url: "https://docs.example.com/",
        referrer: "https://search.example/",
      }),
    ],
    [
      "PageFeedbackEvent",
      pageFeedbackEvent({
        eventId: "e9b",
        installationId: "i1",
        siteId: "site1",
        pageId: "p1",
        feedback: { rating: "good", comment: "Clear." },
        visitor: { anonymousId: "anon", cookies: {}, userAgent: "Mozilla/5.0", ip: "" },
        url: "https://docs.example.com/guide",
        referrer: "",
      }),
    ],
    [
      "PageFeedbackEvent",
      pageFeedbackEvent({
        eventId: "e9c",
        installationId: "i1",
        siteId: "site1",
        feedback: { rating: "bad" },
        visitor: { anonymousId: "anon", cookies: {}, userAgent: "Mozilla/5.0", ip: "", language: "de" },
        url: "https://docs.example.com/",
        referrer: "",
      }),
    ],
    ["UIRenderEvent", uiRenderEvent({ eventId: "e11", installationId: "i1", componentId: "hello", props: { text: "hi" }, context: documentContext })],
    [
      "UIRenderEvent",
      uiRenderEvent({
        eventId: "e12",
        installationId: "i1",
        componentId: "config",
        props: {},
        state: { step: 2 },
        context: { type: "configuration_space", theme: "dark", spaceId: "s1" },
        action: { action: "@ui.modal.open", componentId: "modal", props: {} },
        auth: { userId: "u1" },
      }),
    ],
    [
      "FetchEvent",
      fetchEvent({
        eventId: "e13",
        request: {
          method: "post",
          url: "https://imprint.example/v1/integrations/x/installations/i1/public/hook?a=1",
          headers: { "content-type": "application/json" },
        },
      }),
    ],
    [
      "FetchEvent",
      fetchEvent({
        eventId: "e14",
        installationId: "i1",
        spaceId: "s1",
        auth: { userId: "u1" },
        request: { method: "get", url: "https://imprint.example/v1/integrations/x/public/", headers: {} },
      }),
    ],
    ["FetchPublishedScriptEvent", fetchPublishedScriptEvent({ eventId: "e15", installationId: "i1", siteId: "site1" })],
  ];

  it.each(events.map(([name, event], index) => [index, name, event] as const))(
    "#%i validates against GitBook's %s and its Event union",
    (_index, name, event) => {
      expectValid(name, event);
      expectValid("Event", event);
      expect(Object.values(event)).not.toContain(undefined);
    },
  );

  it("builds a ui_render without space or site: GitBook's UIRenderEvent admits neither (oneOf SpaceEvent | SiteEvent | InstallationEvent)", () => {
    const withSpace = { ...uiRenderEvent({ eventId: "e", installationId: "i1", componentId: "c", props: {}, context: documentContext }), spaceId: "s1" };
    expect(gitbook("UIRenderEvent")(withSpace)).toBe(false);
  });

  it("maps HTTP methods to the four a FetchEvent can carry", () => {
    expect(["GET", "post", "Put", "DELETE", "PATCH", "HEAD"].map(fetchMethodOf)).toEqual(["get", "post", "put", "delete", null, null]);
  });

  it("builds the IntegrationEnvironment GitBook's schema describes, with the deprecated fields older runtimes read", () => {
    const organization = {
      object: "organization",
      id: "o1",
      title: "Acme Docs",
      createdAt: "2026-01-01T00:00:00.000Z",
      type: "business",
      plan: "free",
      inviteLinks: false,
      emailDomains: [],
      mergeRules: { type: "none" },
      urls: { location: "https://imprint.example/v1/orgs/o1", app: "https://imprint.example/o/o1" },
      trial: { status: "notapplicable", count: 0 },
      permissions: Object.fromEntries(
        [
          "view",
          "access",
          "admin",
          "ownTeam",
          "createContent",
          "createOpenAPISpec",
          "viewBilling",
          "listMembers",
          "listTeams",
          "listIntegrations",
          "listInstallations",
          "installIntegration",
        ].map((name) => [name, false]),
      ),
    };
    const location = "https://imprint.example/v1/integrations/acme";
    const integration = {
      object: "integration",
      name: "acme",
      version: 3,
      title: "Acme",
      description: "Acme's integration",
      previewImages: [],
      target: "all",
      verified: false,
      visibility: "private",
      scopes: ["space:content:read"],
      categories: ["content"],
      configurations: { space: { properties: { channel: { type: "string", title: "Channel" } } } },
      externalLinks: [],
      owner: organization,
      permissions: { admin: false },
      urls: { location, app: location, assets: `${location}/assets/`, publicEndpoint: `${location}/public`, publicContentEndpoint: `${location}/public` },
    };
    const installationUrls = {
      location: `${location}/installations/i1`,
      app: `${location}/installations/i1`,
      publicEndpoint: `${location}/installations/i1/public`,
      publicContentEndpoint: `${location}/installations/i1/public`,
    };
    const installation = {
      id: "i1",
      status: "active",
      space_selection: "selected",
      site_selection: "all",
      spaces: 1,
      configuration: {},
      createdAt: "2026-01-01T00:00:00.000Z",
      updatedAt: "2026-01-02T00:00:00.000Z",
      urls: installationUrls,
      externalIds: [],
      target: { organization: "o1" },
    };
    const spaceInstallation = {
      integration: "acme",
      installation: "i1",
      status: "active",
      configuration: { channel: "#docs" },
      externalIds: ["C123"],
      urls: {
        location: `${installationUrls.location}/spaces/s1`,
        publicEndpoint: installationUrls.publicEndpoint,
        publicContentEndpoint: installationUrls.publicContentEndpoint,
      },
      space: "s1",
    };
    const full = integrationEnvironment({
      apiEndpoint: "https://imprint.example",
      integration,
      installation,
      spaceInstallation,
      secrets: { CLIENT_SECRET: "shh" },
      signingSecrets: { integration: "sig-int", installation: "sig-inst", spaceInstallation: "sig-space" },
      apiTokens: { integration: "tok-int", installation: "tok-inst" },
      authToken: "tok-inst",
    });
    expectValid("IntegrationEnvironment", full);
    expect(full).toMatchObject({
      apiTokens: { integration: "tok-int", installation: "tok-inst" },
      authToken: "tok-inst",
      signingSecret: "sig-int",
      spaceInstallation: { space: "s1" },
    });

    const bare = integrationEnvironment({
      apiEndpoint: "https://imprint.example",
      integration,
      secrets: {},
      signingSecrets: { integration: "sig-int", installation: undefined },
      apiTokens: { integration: "tok-int" },
      authToken: "tok-int",
    });
    expectValid("IntegrationEnvironment", bare);
    expect(Object.keys(bare).sort()).toEqual(["apiEndpoint", "apiTokens", "authToken", "integration", "secrets", "signingSecret", "signingSecrets"]);
    expect(bare.signingSecrets).toEqual({ integration: "sig-int" });
  });
});

describe("a script's render output", () => {
  // What @gitbook/runtime's createComponent answers: after a render, and after an action that completes.
  const element = {
    type: "element",
    state: { count: 1 },
    props: { text: "hi" },
    element: { type: "block", children: [{ type: "button", label: "Press", onPress: { action: "x" } }] },
  };
  const withChild = (child: unknown) => ({ ...element, element: { type: "block", children: [child] } });

  it("is accepted when GitBook's ContentKitRenderOutput accepts it", () => {
    for (const output of [element, { type: "complete", returnValue: {} }, { type: "complete" }, { ...element, type: undefined }]) {
      const check = checkRenderOutput(JSON.parse(JSON.stringify(output)));
      expect(check, JSON.stringify(output)).toEqual({ ok: true, output: JSON.parse(JSON.stringify(output)) });
      expectValid("ContentKitRenderOutput", JSON.parse(JSON.stringify(output)));
    }
  });

  it("is refused naming the path of its first problem", () => {
    const cases: Array<[unknown, string]> = [
      [withChild({ type: "buton", label: "Press", onPress: { action: "x" } }), "element.children[0].type: must be equal to one of the allowed values"],
      [withChild({ type: "button", label: "Press" }), "element.children[0].onPress: is required"],
      [withChild({ type: "button", label: 7, onPress: { action: "x" } }), "element.children[0].label: must be a string"],
      [
        withChild({ type: "button", label: "Press", onPress: { action: "x" }, style: "loud" }),
        'element.children[0].style: must be one of "primary", "secondary", "danger"',
      ],
      [withChild({ type: "button", onPress: {} }), "element.children[0].onPress.action: is required"],
      [{ ...element, element: { type: "blok", children: [] } }, 'element.type: must be one of "block", "modal", "configuration"'],
      [{ ...element, state: undefined }, "state: is required"],
      [{ type: "complete", returnValue: "done" }, "returnValue: must be an object"],
      [{ type: "done" }, "element: is required"],
      ["<html>", "output: must be an object"],
      [null, "output: must be an object"],
    ];
    for (const [output, problem] of cases) {
      const value: unknown = output === undefined ? output : JSON.parse(JSON.stringify(output));
      expect(checkRenderOutput(value), JSON.stringify(output)).toEqual({ ok: false, problem });
      expect(gitbook("ContentKitRenderOutput")(value)).toBe(false);
    }
  });
});

describe("a render request", () => {
  const request = {
    componentId: "hello",
    props: { text: "héllo ✓ 🎉", n: 1 },
    state: { open: true },
    context: documentContext,
    action: { action: "@ui.url.open", url: "https://example.com" },
  };

  it("checks a POST body with the same shape, named `body`", () => {
    expect(checkRenderRequest(request)).toEqual(request);
    expect(checkRenderRequest({ ...request, extra: 1, state: undefined })).toEqual({
      componentId: "hello",
      props: request.props,
      context: documentContext,
      action: request.action,
    });
    expect(messageOf(() => checkRenderRequest({ ...request, state: "x" }))).toBe("body.state: must be an object");
    expect(messageOf(() => checkRenderRequest(undefined))).toBe("body: must be an object");
    expect(messageOf(() => checkRenderRequest([1, 2]))).toBe("body: must be an object");
    expect(messageOf(() => checkRenderRequest({ ...request, componentId: 7 }))).toBe("body.componentId: must be a string");
    expect(messageOf(() => checkRenderRequest({ props: {}, context: documentContext }))).toBe("body.componentId: is required");
    expect(messageOf(() => checkRenderRequest({ ...request, props: [] }))).toBe("body.props: must be an object");
    expect(messageOf(() => checkRenderRequest({ ...request, context: { type: "page", theme: "dark" } }))).toBe(
      'body.context.type: must be one of "configuration_account", "configuration_space", "configuration_site", "configuration_contentsource", "document"',
    );
    expect(messageOf(() => checkRenderRequest({ ...request, context: { ...documentContext, theme: "blue" } }))).toBe(
      'body.context.theme: must be one of "dark", "light"',
    );
    expect(messageOf(() => checkRenderRequest({ ...request, context: { type: "document", theme: "dark", spaceId: "s1" } }))).toBe(
      "body.context.editable: is required",
    );
    expect(messageOf(() => checkRenderRequest({ ...request, action: { url: "x" } }))).toBe("body.action.action: is required");
  });
});

describe("declared configurations", () => {
  // Slack's, as its gitbook-manifest.yaml declares them: an OAuth button, a completed string, booleans with defaults.
  const slack = {
    account: {
      properties: {
        oauth_credentials: {
          type: "button",
          title: "Connection",
          description: "Authorization between Slack and GitBook.",
          button_text: "Authorize",
          callback_url: "/oauth",
        },
        default_channel: { type: "string", title: "Default channel", description: "Channel to post messages to.", completion_url: "/channels" },
      },
      required: ["oauth_credentials"],
    },
    space: {
      properties: {
        channel: { type: "string", title: "Channel", completion_url: "/channels" },
        notify_content_update: { type: "boolean", title: "Notify content update", default: true },
        mode: { type: "string", title: "Mode", enum: ["all", "important"], default: "all" },
        count: { type: "number", title: "Count", default: 3 },
      },
      required: ["channel"],
    },
    site: { componentId: "configureSite" },
  };

  it("accepts what GitBook's schema accepts within Imprint's limits", () => {
    expect(checkDeclaredConfigurations(slack)).toEqual(slack);
    expectValid("IntegrationConfigurations", slack);
    expect(checkDeclaredConfigurations({})).toEqual({});
    const hundred = { space: { properties: Object.fromEntries(Array.from({ length: 100 }, (_, index) => [`p_${index}`, { type: "boolean" }])) } };
    expect(checkDeclaredConfigurations(hundred)).toEqual(hundred);
  });

  it("refuses a declaration naming the path of the problem", () => {
    const space = (declaration: unknown) => ({ space: declaration });
    const cases: Array<[unknown, string]> = [
      [space({ properties: { channel: { type: "string" } }, required: ["token"] }), 'configurations.space.required[0]: "token" is not a declared property'],
      [
        space({ properties: { color: { type: "color" } } }),
        'configurations.space.properties.color.type: must be one of "string", "number", "boolean", "button"',
      ],
      [space({ properties: { color: { title: "Color" } } }), "configurations.space.properties.color.type: is required"],
      [space({ properties: { count: { type: "number", default: "3" } } }), "configurations.space.properties.count.default: must be a number"],
      [space({ properties: { go: { type: "button", button_text: "Go" } } }), "configurations.space.properties.go.callback_url: is required"],
      [space({ properties: { x: { type: "string", title: "X" } } }), "configurations.space.properties.x.title: must be at least 2 characters"],
      [
        space({ properties: { x: { type: "string", description: "d".repeat(101) } } }),
        "configurations.space.properties.x.description: must be at most 100 characters",
      ],
      [space({ properties: { x: { type: "string" } }, required: ["x", "x"] }), "configurations.space.required: must not contain duplicates"],
      [space({ required: [] }), "configurations.space.properties: is required"],
      [
        space({ properties: { mode: { type: "string", enum: ["a", "b"], default: "c" } } }),
        "configurations.space.properties.mode.default: must be one of its enum",
      ],
      [space({ properties: { "a b": { type: "string" } } }), 'configurations.space.properties: "a b" must be 1 to 64 letters, digits, "_" or "-"'],
      [
        space({ properties: { ["x".repeat(65)]: { type: "string" } } }),
        `configurations.space.properties: "${"x".repeat(65)}" must be 1 to 64 letters, digits, "_" or "-"`,
      ],
      [
        space({ properties: Object.fromEntries(Array.from({ length: 101 }, (_, index) => [`p${index}`, { type: "boolean" }])) }),
        "configurations.space.properties: must declare at most 100 properties",
      ],
      [space({ componentId: 7 }), "configurations.space.componentId: must be a string"],
      [space({ componentId: "c", properties: {} }), "configurations.space: must declare either properties or a componentId, not both"],
      [space("text"), "configurations.space: must be an object"],
      [{ organization: { properties: {} } }, "configurations.organization: is not a configuration target (account, space or site)"],
      [[], "configurations: must be an object"],
    ];
    for (const [declaration, problem] of cases)
      expect(
        messageOf(() => checkDeclaredConfigurations(declaration)),
        JSON.stringify(declaration),
      ).toBe(problem);
  });

  describe("an installation's configuration", () => {
    const declared: DeclaredConfigurations = checkDeclaredConfigurations(slack);

    it("is answered with the declared defaults applied", () => {
      expect(checkInstallationConfiguration(declared.space, { channel: "#docs" }, "space")).toEqual({
        channel: "#docs",
        notify_content_update: true,
        mode: "all",
        count: 3,
      });
      expect(checkInstallationConfiguration(declared.space, { channel: "#docs", notify_content_update: false, mode: "important", count: 0 }, "space")).toEqual({
        channel: "#docs",
        notify_content_update: false,
        mode: "important",
        count: 0,
      });
    });

    it("accepts whatever an OAuth button's callback stored, and lets an installation wait for it", () => {
      const credentials = { access_token: "xoxb", expires_at: 1772366400000 };
      expect(checkInstallationConfiguration(declared.account, { oauth_credentials: credentials }, "account")).toEqual({ oauth_credentials: credentials });
      expect(messageOf(() => checkInstallationConfiguration(declared.account, {}, "account"))).toBe("configuration.oauth_credentials: is required");
      expect(checkInstallationConfiguration(declared.account, { default_channel: "#x" }, "account", { allowMissingRequired: true })).toEqual({
        default_channel: "#x",
      });
      expect(missingRequiredProperties(declared.account, { default_channel: "#x" })).toEqual(["oauth_credentials"]);
      expect(missingRequiredProperties(declared.site, {})).toEqual([]);
    });

    it("accepts any object for a component's configuration", () => {
      const stored = { repository: { owner: "acme", name: "docs" }, branch: "main", nested: [1, { a: true }] };
      expect(checkInstallationConfiguration(declared.site, stored, "site")).toEqual(stored);
    });

    it("accepts only {} where nothing is declared", () => {
      expect(checkInstallationConfiguration(undefined, {}, "site")).toEqual({});
      expect(messageOf(() => checkInstallationConfiguration(undefined, { token: "x" }, "space"))).toBe(
        "configuration.token: is not a declared property (the integration declares no space configuration)",
      );
    });

    it("is refused naming the property", () => {
      const cases: Array<[unknown, string]> = [
        [{ channel: "#docs", token: "x" }, "configuration.token: is not a declared property"],
        [{ channel: "#docs", count: "3" }, "configuration.count: must be a number"],
        [{ channel: "#docs", count: Number.NaN }, "configuration.count: must be a number"],
        [{ channel: 1 }, "configuration.channel: must be a string"],
        [{ channel: null }, "configuration.channel: must be a string"],
        [{ channel: "#docs", notify_content_update: "yes" }, "configuration.notify_content_update: must be a boolean"],
        [{ channel: "#docs", mode: "some" }, 'configuration.mode: must be one of "all", "important"'],
        [{ mode: "all" }, "configuration.channel: is required"],
        [{ toString: "x", channel: "#docs" }, "configuration.toString: is not a declared property"],
        [[], "configuration: must be an object"],
        ["{}", "configuration: must be an object"],
        [{ channel: "x".repeat(64 * 1024) }, "configuration: must be at most 64 KiB of JSON"],
      ];
      for (const [configuration, problem] of cases)
        expect(
          messageOf(() => checkInstallationConfiguration(declared.space, configuration, "space")),
          JSON.stringify(configuration).slice(0, 80),
        ).toBe(problem);
    });
  });
});
