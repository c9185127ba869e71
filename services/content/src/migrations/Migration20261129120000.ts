import { Migration } from "@mikro-orm/migrations";

/**
 * Git syncs are claimed through the runtime's work queue: the lease of the running import or
 * export. One running when this applies keeps the lease its start gave it (twice the default
 * longest operation, 120 s).
 */
export class Migration20261129120000 extends Migration {
  override name = "Migration20261129120000";

  override up(): void | Promise<void> {
    this.addSql(`alter table "git_syncs" add column "lease_expires_at" timestamptz null;`);
    this.addSql(
      `update "git_syncs" set "lease_expires_at" = ("operation"->>'startedAt')::timestamptz + interval '240 seconds' where "operation"->>'state' = 'running';`,
    );
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "git_syncs" drop column "lease_expires_at";`);
  }
}
