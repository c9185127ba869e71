import type { SpaceServiceService } from "@imprint/proto/content/v1/spaces";
import { AppError, CachedLoader, type PromiseClient } from "@imprint/runtime";

/** Readable spaces kept at most; the least recently used go first. */
const MAX_ENTRIES = 10_000;

/**
 * Which organization a space belongs to, when the caller can read it (content's GetSpace), kept per
 * (user, token, space) for `ttlMs`: a component renders many times in a row in one document, and
 * asking content each time would cost more than the render. Only "can read" is kept; a refusal is
 * asked again. Like the role cache, a revoked right lasts at most `ttlMs`.
 */
export class SpaceReads {
  private readonly organizations: CachedLoader<string>;

  constructor(
    private readonly spaces: PromiseClient<typeof SpaceServiceService>,
    ttlMs: number,
    now: () => number = () => performance.now(),
  ) {
    this.organizations = new CachedLoader<string>({ name: "readable spaces", maxEntries: MAX_ENTRIES, ttlMs, now });
  }

  /** The space's organization; not_found when it does not exist or the caller cannot read it. */
  async organizationOf(caller: { userId: string; tokenId: string }, spaceId: string): Promise<string> {
    return this.organizations.load(`${caller.userId}/${caller.tokenId}/${spaceId}`, async () => {
      const { space } = await this.spaces.getSpace({ caller, spaceId, shareKey: "" });
      if (!space) throw AppError.notFound("Space");
      return space.organizationId;
    });
  }
}
