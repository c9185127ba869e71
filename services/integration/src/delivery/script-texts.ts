import { CachedLoader } from "@imprint/runtime";

/** Reads one version of an integration's script; null when that version is no longer stored. */
export type ScriptLoader = (integrationId: string, version: number) => Promise<string | null>;

/**
 * Integrations' scripts by version, kept in memory up to `maxBytes` (least recently used dropped
 * first). A script never changes within a version, so nothing needs invalidating; a warm call
 * (every render after the first) reads no script from the database. Concurrent first reads of one
 * version share a single query (the loader's single flight).
 */
export class ScriptTexts {
  private readonly texts: CachedLoader<string | null>;

  constructor(
    private readonly read: ScriptLoader,
    maxBytes: number,
  ) {
    this.texts = new CachedLoader<string | null>({ name: "scripts", maxBytes, bytes: (text) => text?.length ?? 0 });
  }

  /** The script of that version; null when it is no longer stored (republished or unpublished since the caller read it). */
  async textOf(integration: { id: string; version: number }): Promise<string | null> {
    return this.texts.load(`${integration.id}@${integration.version}`, () => this.read(integration.id, integration.version), { keep: (text) => text !== null });
  }
}
