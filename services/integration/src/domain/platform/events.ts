import type { ContentKitAction, ContentKitContext, ContentVisibility, GitBookUser, InstallationStatus, PlainObject } from "./types.js";

/**
 * The GitBook Events Imprint dispatches to an integration's script, built to GitBook's schemas of
 * the same names (every builder's output is checked against the OpenAPI document in
 * test/platform.test.ts). `@gitbook/runtime` routes on `type` and hands the rest to the
 * integration's handler as is, so a field spelled differently from GitBook's is a field the script
 * never sees. Types are literals rather than interfaces so an event is also a Record<string, unknown>.
 */

export { integrationEnvironment, type EnvironmentInput, type IntegrationEnvironment } from "./environment.js";

/** Who acted, when the event is caused by a signed-in user (UIRenderEvent, FetchEvent). */
export type EventAuth = {
  userId: string;
};

/** An installation's state before an update (`previous` of the *_setup events). */
export type PreviousInstallationState = {
  status: InstallationStatus;
  configuration?: PlainObject;
};

/** An installation's state before its deletion (`previous` of the *_deleted events). */
export type DeletedInstallationState = {
  configuration?: PlainObject;
};

export type InstallationSetupEvent = {
  type: "installation_setup";
  eventId: string;
  installationId: string;
  status: InstallationStatus;
  previous?: PreviousInstallationState;
};

export type InstallationDeletedEvent = {
  type: "installation_deleted";
  eventId: string;
  installationId: string;
  previous: DeletedInstallationState;
};

export type SpaceInstallationSetupEvent = {
  type: "space_installation_setup";
  eventId: string;
  installationId: string;
  spaceId: string;
  status: InstallationStatus;
  previous?: PreviousInstallationState;
};

export type SpaceInstallationDeletedEvent = {
  type: "space_installation_deleted";
  eventId: string;
  installationId: string;
  spaceId: string;
  previous: DeletedInstallationState;
};

export type SiteInstallationSetupEvent = {
  type: "site_installation_setup";
  eventId: string;
  installationId: string;
  siteId: string;
  status: InstallationStatus;
  previous?: PreviousInstallationState;
};

export type SiteInstallationDeletedEvent = {
  type: "site_installation_deleted";
  eventId: string;
  installationId: string;
  siteId: string;
  previous: DeletedInstallationState;
};

export type SpaceContentUpdatedEvent = {
  type: "space_content_updated";
  eventId: string;
  installationId: string;
  spaceId: string;
  revisionId: string;
  updatedBy: GitBookUser[];
};

export type SpaceVisibilityUpdatedEvent = {
  type: "space_visibility_updated";
  eventId: string;
  installationId: string;
  spaceId: string;
  previousVisibility: ContentVisibility;
  visibility: ContentVisibility;
};

/** EventVisitor: the reader behind a site view. */
export type EventVisitor = {
  anonymousId: string;
  cookies: Record<string, string>;
  userAgent: string;
  ip: string;
  language?: string;
};

export type SiteViewEvent = {
  type: "site_view";
  eventId: string;
  installationId: string;
  siteId: string;
  /** Deprecated by GitBook in favour of siteSpaceId; still sent for scripts that read it. */
  spaceId?: string;
  siteSpaceId?: string;
  pageId?: string;
  visitor: EventVisitor;
  url: string;
  referrer: string;
};

/** GitBook's PageFeedbackRating. */
export type PageFeedbackRating = "good" | "ok" | "bad";

export type PageFeedbackEvent = {
  type: "page_feedback";
  eventId: string;
  installationId: string;
  siteId: string;
  pageId?: string;
  feedback: { rating: PageFeedbackRating; comment?: string };
  visitor: EventVisitor;
  url: string;
  referrer: string;
};

export type UIRenderEvent = {
  type: "ui_render";
  eventId: string;
  installationId: string;
  componentId: string;
  props: PlainObject;
  state?: PlainObject;
  context: ContentKitContext;
  action?: ContentKitAction;
  auth?: EventAuth;
};

/** The only methods a FetchEvent can carry (FetchRequest.method), lower case as GitBook sends them. */
export type FetchMethod = "get" | "post" | "put" | "delete";

export type FetchRequest = {
  method: FetchMethod;
  url: string;
  headers: Record<string, string>;
};

export type FetchEvent = {
  type: "fetch";
  eventId: string;
  installationId?: string;
  spaceId?: string;
  siteId?: string;
  auth?: EventAuth;
  request: FetchRequest;
};

export type FetchPublishedScriptEvent = {
  type: "fetch_published_script";
  eventId: string;
  installationId: string;
  siteId: string;
};

/** A task the integration queued for itself (queueIntegrationTask), delivered once its schedule passed. */
export type TaskEvent = {
  type: "task";
  eventId: string;
  task: Record<string, unknown>;
};

/** The members of GitBook's Event that Imprint sends. */
export type GitBookEvent =
  | InstallationSetupEvent
  | InstallationDeletedEvent
  | SpaceInstallationSetupEvent
  | SpaceInstallationDeletedEvent
  | SiteInstallationSetupEvent
  | SiteInstallationDeletedEvent
  | SpaceContentUpdatedEvent
  | SpaceVisibilityUpdatedEvent
  | SiteViewEvent
  | PageFeedbackEvent
  | UIRenderEvent
  | FetchEvent
  | FetchPublishedScriptEvent
  | TaskEvent;

/** Input of a builder: the event without its `type`. */
type Input<E extends GitBookEvent> = Omit<E, "type">;

/** The event with its optional fields left out when not given (a key holding `undefined` is not GitBook's absent field). */
function event<E extends GitBookEvent>(type: E["type"], input: Input<E>): E {
  const entries = Object.entries(input).filter(([, value]) => value !== undefined);
  return { type, ...Object.fromEntries(entries) } as E;
}

export const installationSetupEvent = (input: Input<InstallationSetupEvent>) => event<InstallationSetupEvent>("installation_setup", input);
export const installationDeletedEvent = (input: Input<InstallationDeletedEvent>) => event<InstallationDeletedEvent>("installation_deleted", input);
export const spaceInstallationSetupEvent = (input: Input<SpaceInstallationSetupEvent>) => event<SpaceInstallationSetupEvent>("space_installation_setup", input);
export const spaceInstallationDeletedEvent = (input: Input<SpaceInstallationDeletedEvent>) =>
  event<SpaceInstallationDeletedEvent>("space_installation_deleted", input);
export const siteInstallationSetupEvent = (input: Input<SiteInstallationSetupEvent>) => event<SiteInstallationSetupEvent>("site_installation_setup", input);
export const siteInstallationDeletedEvent = (input: Input<SiteInstallationDeletedEvent>) =>
  event<SiteInstallationDeletedEvent>("site_installation_deleted", input);
export const spaceContentUpdatedEvent = (input: Input<SpaceContentUpdatedEvent>) => event<SpaceContentUpdatedEvent>("space_content_updated", input);
export const spaceVisibilityUpdatedEvent = (input: Input<SpaceVisibilityUpdatedEvent>) => event<SpaceVisibilityUpdatedEvent>("space_visibility_updated", input);
export const siteViewEvent = (input: Input<SiteViewEvent>) => event<SiteViewEvent>("site_view", input);
export const pageFeedbackEvent = (input: Input<PageFeedbackEvent>) => event<PageFeedbackEvent>("page_feedback", input);
export const taskEvent = (input: Input<TaskEvent>) => event<TaskEvent>("task", input);
export const fetchPublishedScriptEvent = (input: Input<FetchPublishedScriptEvent>) => event<FetchPublishedScriptEvent>("fetch_published_script", input);

/**
 * A ui_render event. It names no space or site: GitBook's UIRenderEvent is `oneOf` SpaceEvent,
 * SiteEvent and InstallationEvent, and every SpaceEvent or SiteEvent is also an InstallationEvent, so
 * only an event with neither `spaceId` nor `siteId` matches exactly one. The script finds them in
 * `context` and in its environment's spaceInstallation / siteInstallation.
 */
export const uiRenderEvent = (input: Input<UIRenderEvent>) => event<UIRenderEvent>("ui_render", input);

/** A fetch event: an HTTP request to the integration's (or an installation's) public endpoint, forwarded. */
export const fetchEvent = (input: Input<FetchEvent>) => event<FetchEvent>("fetch", input);

/** The FetchEvent method of an HTTP method, or null for one GitBook does not forward (HEAD, PATCH, OPTIONS…). */
export function fetchMethodOf(method: string): FetchMethod | null {
  const lower = method.toLowerCase();
  return lower === "get" || lower === "post" || lower === "put" || lower === "delete" ? lower : null;
}
