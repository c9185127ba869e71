import { recordEvent } from "@imprint/runtime";
import { randomUUID } from "node:crypto";
import type { EntityManager } from "@mikro-orm/postgresql";
import { newShareKey, ShareLink, validateName } from "../../domain/share-link.js";
import { shareLinkCreated } from "../../events.js";
import type { UseCaseDeps } from "../../deps.js";
import { type CallerInput, requireSiteCaller } from "../shared/access.js";
import type { ShareLinkView } from "../shared/share-links.js";
import { findSite } from "../shared/sites.js";

export interface CreateShareLinkInput {
  caller: CallerInput | undefined;
  organizationId: string;
  siteId: string;
  name: string;
}

/** Creates an active share link with a new random key (site admins only). Records `share_link.created`. */
export async function createShareLink(em: EntityManager, input: CreateShareLinkInput, deps: UseCaseDeps): Promise<ShareLinkView> {
  const name = validateName(input.name);
  const access = await requireSiteCaller(deps, input.caller, input.organizationId, "admin", "change sites");
  return deps.unitOfWork.run(em, async (tx) => {
    const site = await findSite(tx, access, input.siteId);
    const shareLink = tx.create(ShareLink, {
      id: randomUUID(),
      siteId: site.id,
      organizationId: site.organizationId,
      name,
      key: newShareKey(),
      active: true,
      createdAt: deps.clock(),
    });
    recordEvent(tx, shareLinkCreated, {
      organizationId: site.organizationId,
      actor: access.caller,
      payload: { siteId: site.id, shareLinkId: shareLink.id, name },
    });
    return { shareLink, site };
  });
}
