import type { SpaceServiceService } from "@imprint/proto/content/v1/spaces";
import { AppError, type PromiseClient } from "@imprint/runtime";

interface Entry {
  organizationId: string;
  expiresAt: number;
}

const MAX_ENTRIES = 10_000;

/**
 * Which organization a space belongs to, when the caller can read it (content's GetSpace), kept per
 * (user, token, space) for `ttlMs`: a component renders many times in a row in one document, and
 * asking content each time would cost more than the render. Only "can read" is kept; a refusal is
 * asked again. Like the role cache, a revoked right lasts at most `ttlMs`.
 */
export class SpaceReads {
  private readonly entries = new Map<string, Entry>();

  constructor(
    private readonly spaces: PromiseClient<typeof SpaceServiceService>,
    private readonly ttlMs: number,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /** The space's organization; not_found when it does not exist or the caller cannot read it. */
  async organizationOf(caller: { userId: string; tokenId: string }, spaceId: string): Promise<string> {
    const key = `${caller.userId}/${caller.tokenId}/${spaceId}`;
    const cached = this.entries.get(key);
    if (cached && cached.expiresAt > this.now()) return cached.organizationId;
    const { space } = await this.spaces.getSpace({ caller, spaceId, shareKey: "" });
    if (!space) throw AppError.notFound("Space");
    if (this.entries.size >= MAX_ENTRIES) this.entries.delete(this.entries.keys().next().value as string);
    this.entries.set(key, { organizationId: space.organizationId, expiresAt: this.now() + this.ttlMs });
    return space.organizationId;
  }
}
