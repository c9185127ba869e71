import { CachedLoader, type Logger } from "@imprint/runtime/core";
import { watchEvents, type EventWatch, type NatsLink } from "@imprint/runtime/watch";
import { integrationEvents } from "@imprint/proto/integration/v1/event-contracts";
import type { SiteScript } from "@imprint/proto/integration/v1/scripts";
import type { UpstreamClients } from "./upstreams.js";

/** At most this many sites' lists are kept (each a few scripts). */
const MAX_SITES = 2_000;

/**
 * The scripts each site's pages inject, for the published view, which every reader of a site asks
 * for: integration's one list, kept per site while the gateway hears integration's events (an
 * installation changed on any replica drops the lists it may change) and asked at every request
 * while it does not. A write through this gateway's integration routes drops every list at once,
 * so its caller reads its own change before the event arrives.
 */
export class SiteScriptsCache {
  private readonly lists: CachedLoader<readonly SiteScript[]>;
  private watch: EventWatch | undefined;

  constructor(private readonly scripts: UpstreamClients["integration"]["scripts"]) {
    this.lists = new CachedLoader({ name: "site scripts", maxEntries: MAX_SITES });
  }

  /** The scripts of a published site (publishing decides whether the caller sees the site). */
  async list(siteId: string): Promise<readonly SiteScript[]> {
    const read = async () => (await this.scripts.listSiteScripts({ siteId, organizationId: "" })).scripts;
    if (!this.watch?.following()) return read();
    return this.lists.load(siteId, read);
  }

  /** An installation or an integration may have changed: no kept list is trusted any more. */
  changed(siteId?: string): void {
    if (siteId === undefined) this.lists.clear();
    else this.lists.invalidate(siteId);
  }

  /** Keeps lists from now on, dropping them as integration's events say. */
  follow(nats: NatsLink, logger: Logger): EventWatch {
    const watch = watchEvents(nats, {
      events: integrationEvents,
      onEvent: (event) => {
        // A site installation names its site; anything else (an integration published or deleted, an
        // organization installation changed or removed) may change any site's scripts.
        const target = "targetId" in event.payload ? event.payload : undefined;
        if (target?.kind === "site") this.changed(target.targetId);
        else if (target?.kind !== "space") this.changed();
      },
      onGap: () => this.changed(),
      logger,
    });
    this.watch = watch;
    return {
      following: () => watch.following(),
      stop: async () => {
        this.watch = undefined;
        this.changed();
        await watch.stop();
      },
    };
  }
}
