import { PublishedContentServiceService } from "@imprint/proto/content/v1/published";
import { SearchServiceService } from "@imprint/proto/content/v1/search";
import { ScriptServiceService } from "@imprint/proto/integration/v1/scripts";
import { MemberVisitorTokenServiceService } from "@imprint/proto/publishing/v1/member_visitor_tokens";
import { ReaderServiceService } from "@imprint/proto/publishing/v1/reader";
import { SiteInsightsServiceService } from "@imprint/proto/publishing/v1/site_insights";
import { openUpstreams, type CoHostedServices, type OpenedUpstreams, type UpstreamSpecs } from "@imprint/runtime/core";
import type { ReaderConfig } from "./config.js";

/**
 * The services the reader calls: publishing's reads of sites and visitor tokens and its site insights, content's published
 * pages and search, and (when configured) integration's site scripts and views. Opened once by
 * `startReader` for everything it serves, closed at its stop.
 */
export function readerUpstreams(config: ReaderConfig) {
  const defaultTimeoutMs = config.UPSTREAM_TIMEOUT_MS;
  return {
    publishing: {
      address: config.PUBLISHING_GRPC_ADDRESS,
      services: { sites: ReaderServiceService, memberTokens: MemberVisitorTokenServiceService, insights: SiteInsightsServiceService },
      defaultTimeoutMs,
    },
    content: {
      address: config.CONTENT_GRPC_ADDRESS,
      services: { published: PublishedContentServiceService, searches: SearchServiceService },
      defaultTimeoutMs,
    },
    integration: config.INTEGRATION_GRPC_ADDRESS
      ? { address: config.INTEGRATION_GRPC_ADDRESS, services: { scripts: ScriptServiceService }, defaultTimeoutMs }
      : undefined,
  } satisfies UpstreamSpecs;
}

export type ReaderUpstreams = OpenedUpstreams<ReturnType<typeof readerUpstreams>>;

/** With `coHosted` (the services hosted in this process), those found there are called directly. */
export function openReaderUpstreams(config: ReaderConfig, coHosted?: CoHostedServices): ReaderUpstreams {
  return openUpstreams(readerUpstreams(config), { coHosted });
}
