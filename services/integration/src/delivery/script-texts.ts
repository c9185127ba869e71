import { CacheBudget, type BudgetedCache } from "@imprint/runtime";

/** Reads one version of an integration's script; null when that version is no longer stored. */
export type ScriptLoader = (integrationId: string, version: number) => Promise<string | null>;

/**
 * Integrations' scripts by version, kept in memory up to `maxBytes` (least recently used dropped
 * first). A script never changes within a version, so nothing needs invalidating; a warm call
 * (every render after the first) reads no script from the database. Concurrent first reads of one
 * version share a single query.
 */
export class ScriptTexts {
  private readonly texts: BudgetedCache<string>;
  private readonly loading = new Map<string, Promise<string | null>>();

  constructor(
    private readonly load: ScriptLoader,
    maxBytes: number,
  ) {
    this.texts = new CacheBudget(maxBytes).cache("scripts");
  }

  /** The script of that version; null when it is no longer stored (republished or unpublished since the caller read it). */
  async textOf(integration: { id: string; version: number }): Promise<string | null> {
    const key = `${integration.id}@${integration.version}`;
    const held = this.texts.get(key);
    if (held !== undefined) return held;
    let loading = this.loading.get(key);
    if (!loading) {
      loading = this.read(key, integration).finally(() => this.loading.delete(key));
      this.loading.set(key, loading);
    }
    return loading;
  }

  private async read(key: string, integration: { id: string; version: number }): Promise<string | null> {
    const text = await this.load(integration.id, integration.version);
    if (text !== null) this.texts.set(key, text, text.length);
    return text;
  }
}
